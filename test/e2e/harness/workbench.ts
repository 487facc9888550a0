// Drives the VS Code workbench the way a person does: keyboard shortcuts, the command palette, quick
// open, clicks. Every wait is a poll with a deadline (Playwright's own waits or waitFor).
import { waitFor } from '../../helpers/wait';
import type { Locator, Page } from './playwright';

const QUICK_INPUT = '.quick-input-widget';

export class Workbench {
  constructor(readonly page: Page) {}

  async open(url: string, folder: string): Promise<void> {
    await this.page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { timeout: 60_000 });
    await this.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    // The explorer shows the folder once the workbench is restored and the file service is ready.
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
  }

  private async quickInput(prefixKey: string, text: string, pick: string | RegExp): Promise<void> {
    await this.page.keyboard.press(prefixKey);
    const widget = this.page.locator(QUICK_INPUT);
    await widget.waitFor({ state: 'visible', timeout: 10_000 });
    await this.focusQuickInput();
    await this.page.keyboard.type(text);
    // Quick Open's first file search after a start can take this long on a loaded machine.
    await widget.locator('.monaco-list-row').filter({ hasText: pick }).first().waitFor({ timeout: 45_000 });
    // The first row is the focused one: wait until the best match is on top, then accept it.
    await waitFor(
      async () => {
        const first = await widget.locator('.monaco-list-row.focused').first().innerText();
        return typeof pick === 'string' ? first.includes(pick) : pick.test(first);
      },
      `"${String(pick)}" to be the focused entry of the quick input`,
    );
    await this.page.keyboard.press('Enter');
  }

  /** Runs a command from the command palette by its title ("Lockwise: Set Redis Password"). */
  runCommand(title: string): Promise<void> {
    return this.quickInput('F1', title, title);
  }

  /** Opens a workspace file with Quick Open (Ctrl+P) and waits for its editor tab. */
  async openFile(relPath: string): Promise<void> {
    const name = relPath.split('/').pop()!;
    await this.quickInput('Control+P', relPath, name);
    await this.page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`).waitFor({ timeout: 15_000 });
    await this.editor().locator('.view-lines').waitFor({ timeout: 15_000 });
  }

  /**
   * Makes sure keys reach the open quick input. It shows before it takes the focus, and a menu closing or
   * a view re-rendering under it can keep the focus elsewhere; a quick pick that ignores focus-out then
   * stays open while Enter and the arrows go to the tree or the editor. Clicking its box selects nothing.
   */
  async focusQuickInput(): Promise<void> {
    const widget = this.page.locator(QUICK_INPUT);
    const focused = () => widget.evaluate((el) => el.contains(el.ownerDocument.activeElement));
    await waitFor(async () => {
      if (await focused()) return true;
      await widget.locator('.quick-input-box input').first().click();
      return false;
    }, 'the focus in the quick input', { intervalMs: 200 });
  }

  /** Go to Line/Column (Ctrl+G), 1-based as the status bar shows it. */
  async goTo(line: number, column: number): Promise<void> {
    await this.page.keyboard.press('Control+G');
    await this.page.locator(QUICK_INPUT).waitFor({ state: 'visible', timeout: 10_000 });
    await this.focusQuickInput();
    await this.page.keyboard.type(`${line}:${column}`);
    await this.page.keyboard.press('Enter');
    await waitFor(
      async () => (await this.page.locator('.statusbar-item[id="status.editor.selection"]').innerText()).includes(`Ln ${line}, Col ${column}`),
      `the cursor at ${line}:${column}`,
    );
  }

  editor(): Locator {
    return this.page.locator('.editor-group-container.active .monaco-editor').first();
  }

  /** The active editor's text as rendered (the fixture files are short enough to be all on screen). */
  async editorText(): Promise<string> {
    return (await this.editor().locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
  }

  problems(): Locator {
    return this.page.locator('.markers-panel');
  }

  /** Rows of the Redis Locks view. */
  lockRows(): Locator {
    return this.page.locator('[id="workbench.view.extension.lockwise"] .monaco-list-row');
  }

  async lockRow(label: string): Promise<Locator> {
    const row = this.lockRows().filter({ hasText: label }).first();
    await row.waitFor({ timeout: 20_000 });
    return row;
  }

  /** True when the element's text is wider than its box (shown cut off with an ellipsis). */
  isCutOff(locator: Locator): Promise<boolean> {
    return locator.evaluate((el) => el.scrollWidth > el.clientWidth);
  }

  /** The element's computed text colour and the theme colour `variable`, both as "r, g, b" (alpha dropped). */
  colours(locator: Locator, variable: string): Promise<{ element: string; theme: string }> {
    // No named functions inside: the test runner's transpiler would wrap them in a helper the page lacks.
    return locator.evaluate((el, name) => {
      const doc = el.ownerDocument;
      const win = doc.defaultView;
      const theme = win.getComputedStyle(doc.querySelector('.monaco-workbench')).getPropertyValue(name).trim();
      const out: string[] = [];
      for (const colour of [win.getComputedStyle(el).color, theme]) {
        const probe = doc.createElement('div');
        probe.style.color = colour;
        doc.body.appendChild(probe);
        out.push(colour ? (win.getComputedStyle(probe).color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).join(', ') : '');
        probe.remove();
      }
      return { element: out[0]!, theme: out[1]! };
    }, variable);
  }

  /**
   * Hovers a row of the Redis Locks view until its tooltip shows and matches `match`; returns its text.
   * The pointer leaves and comes back between attempts, as a person would do.
   */
  async hoverTooltip(label: string, match: RegExp): Promise<string> {
    const hover = this.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: match }).first();
    const text = await waitFor(async () => {
      await this.page.mouse.move(0, 0);
      await (await this.lockRow(label)).locator('.label-name').first().hover();
      // Short attempts: a refresh that re-renders the row closes a tooltip that was about to open; a
      // new hover is the way past it.
      if (!(await hover.waitFor({ state: 'visible', timeout: 2_500 }).then(() => true, () => false))) return undefined;
      return hover.innerText();
    }, `the tooltip of ${label} matching ${match}`, { timeoutMs: 30_000, intervalMs: 100 });
    await this.dismissHovers();
    return text;
  }

  /** Moves the pointer off the views and waits until no hover is open (a tree tooltip opens over the side bar's sash). */
  async dismissHovers(): Promise<void> {
    await this.page.mouse.move(0, 0);
    const open = this.page.locator('.monaco-hover:visible, .workbench-hover:visible');
    await waitFor(async () => {
      if ((await open.count()) === 0) return true;
      await this.page.keyboard.press('Escape');
      return false;
    }, 'every hover to close', { intervalMs: 200 });
  }

  /**
   * Opens the code action menu at the cursor until it lists `title`: a press that comes before the
   * server's answer for this file (or while another widget still has focus) shows a shorter menu.
   */
  async openQuickFixMenuWith(title: string): Promise<void> {
    const entry = this.page.locator('.action-widget .monaco-list-row').filter({ hasText: title }).first();
    await waitFor(async () => {
      await this.page.keyboard.press('Control+.');
      if (await entry.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) return true;
      await this.page.keyboard.press('Escape');
      return false;
    }, `"${title}" in the code action menu`, { timeoutMs: 30_000, intervalMs: 200 });
  }

  /**
   * Picks an entry of the code action menu (lightbulb, Refactor...) with the arrow keys and Enter, as the
   * menu expects: a pointer block over the editor swallows synthetic clicks on its rows.
   */
  async pickAction(title: string): Promise<void> {
    const rows = this.page.locator('.action-widget .monaco-list-row');
    await rows.filter({ hasText: title }).first().waitFor({ state: 'visible', timeout: 20_000 });
    const focusedText = () => this.page.locator('.action-widget .monaco-list-row.focused').first().innerText();
    await waitFor(
      async () => {
        if ((await focusedText()).includes(title)) return true;
        await this.page.keyboard.press('ArrowDown');
        return false;
      },
      `"${title}" to be focused in the code action menu`,
      { intervalMs: 100 },
    );
    await this.page.keyboard.press('Enter');
    await rows.first().waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** Clicks an entry of the open context menu (right-click menu). */
  async contextMenu(entry: string): Promise<void> {
    const item = this.page.locator('.context-view .action-item').filter({ hasText: entry }).first();
    await item.waitFor({ state: 'visible', timeout: 10_000 });
    await item.click();
    if (await item.waitFor({ state: 'hidden', timeout: 1_500 }).then(() => true, () => false)) return;
    // A tree refresh under the open menu (the TTL countdown re-renders rows) can swallow the click and
    // leave the entry highlighted; Enter then runs it. Once the menu is gone the entry has run.
    await waitFor(async () => {
      if (!(await item.isVisible())) return true;
      await this.page.keyboard.press('Enter');
      return false;
    }, `the context menu entry "${entry}" to run`, { timeoutMs: 10_000, intervalMs: 500 });
  }

  /** Drags the sash on the side bar's right edge so it is `width` pixels wide (long descriptions fit). */
  async resizeSideBar(width: number): Promise<void> {
    await this.dismissHovers();
    const bar = await this.page.locator('.part.sidebar').boundingBox();
    if (!bar) throw new Error('the side bar is not shown');
    const y = bar.y + bar.height / 2;
    await this.page.mouse.move(bar.x + bar.width - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(bar.x + width, y, { steps: 5 });
    await this.page.mouse.up();
    await waitFor(async () => Math.abs(((await this.page.locator('.part.sidebar').boundingBox())?.width ?? 0) - width) < 8, 'the side bar width');
  }

  /** Saves a screenshot of one part of the window (for the README: small and to the point). */
  async screenshotOf(selector: string, path: string, extra: { width?: number; height?: number } = {}): Promise<void> {
    const box = await this.page.locator(selector).first().boundingBox();
    if (!box) throw new Error(`${selector} is not shown`);
    await this.page.screenshot({ path, clip: { ...box, width: extra.width ?? box.width, height: extra.height ?? box.height } });
  }

  /** Notification toasts currently shown, as text. */
  async notifications(): Promise<string> {
    const toasts = this.page.locator('.notifications-toasts .notification-toast');
    const texts: string[] = [];
    for (let i = 0; i < (await toasts.count()); i++) texts.push(await toasts.nth(i).innerText());
    return texts.join('\n');
  }

  async waitForNotification(match: RegExp, what: string): Promise<string> {
    return waitFor(async () => {
      const text = await this.notifications();
      return match.test(text) ? text : undefined;
    }, what, { timeoutMs: 20_000 });
  }

  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await waitFor(async () => (await this.notifications()) === '', 'the notifications to be cleared');
  }
}
