// Lockwise in a real VS Code (code-server 4.100.3 = VS Code 1.100.3), used as a person would: the .vsix
// built by `npm run package` is installed, a fixture workspace is opened in Chromium, and each scenario
// of the extension is checked through what is on screen, against a private redis-server.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { startCodeServer, type CodeServer } from './harness/code-server';
import { FIXTURE_WORKSPACE, README_IMAGES, VSIX } from './harness/paths';
import { launchChromium, type Browser, type Page } from './harness/playwright';
import { QUIET_WORKBENCH } from './harness/settings';
import { step } from './harness/steps';
import { Workbench } from './harness/workbench';

const PASSWORD = 'e2e-secret';

let redis: RedisProcess;
let seed: Redis;
let server: CodeServer;
let browser: Browser;
let page: Page;
let wb: Workbench;
let workspace: string;

/** 1-based line and column of the first occurrence of `needle` in a fixture file. */
function positionOf(relPath: string, needle: string): { line: number; column: number } {
  const lines = readFileSync(join(FIXTURE_WORKSPACE, relPath), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, `${needle} is in ${relPath}`);
  return { line: line + 1, column: lines[line]!.indexOf(needle) + 1 };
}

before(async () => {
  assert.ok(existsSync(VSIX), `${VSIX} exists (npm run test:e2e builds it first)`);
  mkdirSync(README_IMAGES, { recursive: true });
  redis = await startRedis({ args: ['--requirepass', PASSWORD] });
  seed = new Redis(redis.port, '127.0.0.1', { password: PASSWORD, lazyConnect: true });
  seed.on('error', () => undefined); // the stale-rows step takes this server down on purpose
  await seed.connect();
  workspace = mkdtempSync(join(tmpdir(), 'lockwise-e2e-ws-'));
  cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  server = await startCodeServer({
    vsix: VSIX,
    folder: workspace,
    settings: {
      ...QUIET_WORKBENCH,
      'lockwise.redis.urls': [redis.url],
      'lockwise.redis.refreshSeconds': 1,
    },
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  wb = new Workbench(page);
  await wb.open(server.url, workspace);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  seed?.disconnect();
  await redis?.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

test('1. SETNX + EXPIRE and a plain DEL show squiggles and Problems entries with rule ids', async () => {
  await step(page, server, '1-diagnostics', async () => {
    await wb.openFile('src/reserve-stock.ts');
    await waitFor(async () => (await wb.editor().locator('.squiggly-error').count()) === 2, 'two error squiggles', {
      timeoutMs: 60_000,
    });
    await wb.runCommand('View: Focus Problems');
    const problems = await waitFor(async () => {
      const text = await wb.problems().innerText();
      return /atomic-acquire/.test(text) && /owner-checked-release/.test(text) ? text : undefined;
    }, 'the Problems view to list atomic-acquire and owner-checked-release');
    assert.match(problems, /acquired without a TTL/);
  });
});

test('2. the quick fix from the lightbulb rewrites the acquire and its diagnostic disappears', async () => {
  await step(page, server, '2-quick-fix', async () => {
    const at = positionOf('src/reserve-stock.ts', 'redis.setnx(');
    await wb.goTo(at.line, at.column);
    const bulb = page.locator('.lightBulbWidget').first();
    await bulb.waitFor({ state: 'visible', timeout: 20_000 });
    await bulb.click();
    await page.locator('.action-widget .monaco-list-row').filter({ hasText: 'Acquire with one SET' }).first().waitFor({ timeout: 10_000 });
    await wb.screenshotOf('.part.editor', join(README_IMAGES, 'quick-fix.png'), { height: 360 });
    await wb.pickAction('Acquire with one SET');
    await waitFor(async () => /redis\.set\(key, randomUUID\(\), 'EX', 30, 'NX'\)/.test(await wb.editorText()), 'the SET NX EX rewrite', {
      timeoutMs: 10_000,
    });
    assert.doesNotMatch(await wb.editorText(), /setnx|expire\(/);
    await waitFor(async () => !/atomic-acquire/.test(await wb.problems().innerText()), 'the atomic-acquire entry to go', {
      timeoutMs: 20_000,
    });
    assert.match(await wb.problems().innerText(), /owner-checked-release/, 'the DEL is still reported');
  });
});

test('3. "Convert to withLock" rewrites the lock region and creates the helper file', async () => {
  await step(page, server, '3-convert-to-with-lock', async () => {
    await wb.openFile('src/settle.ts');
    const at = positionOf('src/settle.ts', 'redis.set(');
    await wb.goTo(at.line, at.column + 'redis.s'.length);
    await openRefactorings('Convert to withLock');
    await wb.pickAction('Convert to withLock');
    await waitFor(async () => /await withLock\(/.test(await wb.editorText()), 'the withLock call in settle.ts', { timeoutMs: 10_000 });
    const text = await wb.editorText();
    assert.match(text, /import \{ withLock \} from '\.\/lib\/with-lock';/);
    assert.doesNotMatch(text, /redis\.eval\(/);
    await wb.runCommand('File: Save All Files');
    const helper = join(workspace, 'src', 'lib', 'with-lock.ts');
    await waitFor(() => existsSync(helper) && /export async function withLock/.test(readFileSync(helper, 'utf8')), 'the helper file on disk');
    // The explorer shows the new folder the helper lives in.
    await page.locator('.explorer-folders-view .monaco-list-row[aria-level="2"]').filter({ hasText: /^lib$/ }).first().waitFor({ timeout: 10_000 });
  });
});

/**
 * Run "Refactor..." until the menu offers `title`. In one of two clean CI runs the first request, right
 * after the file opened, showed "No refactorings available" (the server answered the same request with
 * the action when asked again; root cause not established). Asking again is what a person would do.
 */
async function openRefactorings(title: string): Promise<void> {
  const entry = page.locator('.action-widget .monaco-list-row').filter({ hasText: title }).first();
  await waitFor(async () => {
    await wb.runCommand('Refactor...');
    if (await entry.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) return true;
    await page.keyboard.press('Escape');
    return false;
  }, `"${title}" in the Refactor menu`, { timeoutMs: 30_000, intervalMs: 200 });
}

/** The TTL shown for a lock row ("47.3 s", "1m 59s"), in ms. */
function shownTtlMs(rowText: string): number {
  const seconds = /(\d+(?:\.\d)?) s\b/.exec(rowText);
  if (seconds) return Number(seconds[1]) * 1000;
  const minutes = /(\d+)m (\d+)s/.exec(rowText);
  assert.ok(minutes, `a TTL in "${rowText}"`);
  return (Number(minutes[1]) * 60 + Number(minutes[2])) * 1000;
}

test('4. the Redis Locks view lists seeded locks with TTL and holder, flags a lock without expiry, counts down, shows tooltips', async () => {
  await step(page, server, '4-redis-locks-view', async () => {
    await seed.set('lock:orders:42', 'checkout-api#4242', 'PX', 50_000);
    await seed.set('lock:reports:daily', 'report-worker#7');
    await seed.set('lock:invoices:9', 'billing#9', 'PX', 120_000);
    await seed.set('lock:payouts:3', 'payout-runner#3', 'PX', 120_000);

    await page.locator('.activitybar .action-item a[aria-label^="Lockwise"]').click();
    // The connection is configured, but without the password Redis answers nothing but NOAUTH, and
    // the view stops retrying until the password is set.
    const connection = await wb.lockRow('127.0.0.1');
    await waitFor(async () => /authentication failed|requires a password/.test(await connection.innerText()), 'the refused connection');
    assert.equal(await wb.lockRows().filter({ hasText: 'lock:' }).count(), 0, 'no lock is listed before the password is set');
    await wb.lockRow('Not retrying: set the password');
    await wb.runCommand('Lockwise: Set Redis Password');
    await page.locator('.quick-input-widget input[type="password"]').waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');

    const orders = await wb.lockRow('lock:orders:42');
    // Whenever rows are listed, the connection row says how many: never "connecting".
    assert.doesNotMatch(await (await wb.lockRow('127.0.0.1')).innerText(), /connecting/);
    const first = await orders.innerText();
    assert.match(await orders.locator('.label-description').first().innerText(), /^\d+(\.\d)? s · checkout-api#4242$/, 'TTL first, then the holder');
    const forever = await wb.lockRow('lock:reports:daily');
    assert.equal(await forever.locator('.label-description').first().innerText(), 'NO EXPIRY · report-worker#7');
    assert.equal(await forever.locator('.codicon-warning').count(), 1, 'the lock without expiry carries the warning icon');
    await waitFor(
      async () => shownTtlMs(await (await wb.lockRow('lock:orders:42')).innerText()) <= shownTtlMs(first) - 1000,
      'the TTL of lock:orders:42 to count down (in 5 s steps above 10 s)',
    );
    // Tooltips appear, on a row without countdown and on one that counts down.
    await wb.hoverTooltip('lock:reports:daily', /This lock has no TTL/);
    await wb.hoverTooltip('lock:orders:42', /Raw value:[\s\S]*checkout-api#4242/);
    await wb.resizeSideBar(560);
    await wb.screenshotOf('.part.sidebar', join(README_IMAGES, 'redis-locks-view.png'), { height: 260 });
  });
});

/** Right-click the lock and choose "Release Lock..." until its confirmation (a quick pick) shows. */
async function openReleaseConfirmation(key: string): Promise<ReturnType<Page['locator']>> {
  const confirmation = page.locator('.quick-input-widget').filter({ hasText: `Release lock ${key}?` });
  await waitFor(async () => {
    if (await confirmation.isVisible()) return true;
    await (await wb.lockRow(key)).click({ button: 'right' });
    await wb.contextMenu('Release Lock...');
    return confirmation.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false);
  }, `the release confirmation for ${key}`, { timeoutMs: 30_000, intervalMs: 200 });
  return confirmation;
}

/** The text of the focused entry of the open quick pick ('' while none has the focus). */
async function focusedQuickEntry(): Promise<string> {
  const row = page.locator('.quick-input-widget .monaco-list-row.focused').first();
  return (await row.count()) > 0 ? row.innerText() : '';
}

/** Picks an entry of the open quick pick by moving the focus to it (ArrowDown) and pressing Enter. */
async function pickQuickEntry(label: string): Promise<void> {
  await wb.focusQuickInput();
  await waitFor(async () => {
    if ((await focusedQuickEntry()).startsWith(label)) return true;
    await page.keyboard.press('ArrowDown');
    return false;
  }, `"${label}" to be focused in the quick pick`, { intervalMs: 100 });
  await page.keyboard.press('Enter');
}

test('5. guarded release asks first with Cancel as the default, removes the lock; a changed token removes nothing', async () => {
  await step(page, server, '5-guarded-release', async () => {
    await wb.clearNotifications();
    let confirmation = await openReleaseConfirmation('lock:invoices:9');
    assert.match(await confirmation.innerText(), /billing#9/);
    // Cancel is the entry focused when the confirmation opens, so Enter right away keeps the lock. The
    // focus lands a moment after the widget shows: an Enter before it would go nowhere.
    await waitFor(async () => (await focusedQuickEntry()).startsWith('Cancel'), 'Cancel to be focused in the confirmation', { intervalMs: 100 });
    await wb.focusQuickInput();
    await page.keyboard.press('Enter');
    await confirmation.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(await seed.get('lock:invoices:9'), 'billing#9', 'Enter did not delete');

    confirmation = await openReleaseConfirmation('lock:invoices:9');
    await pickQuickEntry('Release');
    await wb.waitForNotification(/released lock:invoices:9 \(was held by billing#9\)/, 'the release notification');
    assert.equal(await seed.exists('lock:invoices:9'), 0, 'the key is gone from Redis');
    await waitFor(async () => (await wb.lockRows().filter({ hasText: 'lock:invoices:9' }).count()) === 0, 'the row to go');

    await wb.clearNotifications();
    confirmation = await openReleaseConfirmation('lock:payouts:3');
    assert.match(await confirmation.innerText(), /payout-runner#3/);
    // Another process takes the lock over while the confirmation is open.
    await seed.set('lock:payouts:3', 'payout-runner#8', 'PX', 120_000);
    await pickQuickEntry('Release');
    await wb.waitForNotification(/lock:payouts:3 is now held by payout-runner#8[\s\S]*Nothing was removed/, 'the token-changed warning');
    assert.equal(await seed.get('lock:payouts:3'), 'payout-runner#8', 'the new holder keeps the lock');
  });
});

test('6. Show Lock History lists what the view saw of a lock', async () => {
  await step(page, server, '6-lock-history', async () => {
    await waitFor(async () => /payout-runner#8/.test(await (await wb.lockRow('lock:payouts:3')).innerText()), 'the new holder on screen');
    await (await wb.lockRow('lock:payouts:3')).click({ button: 'right' });
    await wb.contextMenu('Show Lock History');
    await page.locator('.tabs-container .tab.active').filter({ hasText: 'lock:payouts:3.history' }).first().waitFor({ timeout: 15_000 });
    const text = await waitFor(async () => {
      const t = await wb.editorText();
      return /taken over by payout-runner#8 \(was payout-runner#3\)/.test(t) ? t : undefined;
    }, 'the holder change in the history');
    assert.match(text, /Lock history: lock:payouts:3/);
    assert.match(text, /seen, held by payout-runner#3/);
  });
});

test('7. when Redis goes down the rows stay, dimmed and frozen, "last read" is shown, and Release is disabled', async () => {
  await step(page, server, '7-stale-rows', async () => {
    await wb.resizeSideBar(300);
    await redis.kill();
    const note = await wb.lockRow('Rows below as read at');
    const noteLabel = note.locator('.label-name').first();
    assert.equal(await wb.isCutOff(noteLabel), false, `the note "${await note.innerText()}" is not cut off in a 300 px sidebar`);
    const connection = await wb.lockRow('127.0.0.1');
    await waitFor(async () => /last read \d\d:\d\d:\d\d/.test(await connection.innerText()), '"last read" on the connection row');
    const row = await wb.lockRow('lock:payouts:3');
    const frozen = await row.innerText();
    // Dimmed: the icon carries the theme's disabled colour instead of the state's.
    const { element, theme } = await wb.colours(row.locator('.custom-view-tree-node-item-icon').first(), '--vscode-disabledForeground');
    assert.ok(theme !== '', 'the theme defines disabledForeground');
    assert.equal(element, theme, 'the stale icon is dimmed');
    // The countdown stopped: after the reconnect countdown (a row of its own under the connection) has
    // ticked 12 times (a live row in 10 s steps would have moved on), the row still reads the same.
    const retry = await wb.lockRow('Reconnecting in');
    let last = await retry.innerText();
    let ticks = 0;
    await waitFor(async () => {
      const now = await retry.innerText();
      if (now !== last) [last, ticks] = [now, ticks + 1];
      return ticks >= 12;
    }, 'twelve ticks of the reconnect countdown', { timeoutMs: 40_000, intervalMs: 100 });
    assert.equal(await row.innerText(), frozen, 'the TTL of a stale row does not count down');
    assert.doesNotMatch(await connection.innerText(), /reconnecting in/, 'the connection row does not tick: its rows would re-render with it');
    // The countdown ticking does not re-render the stale rows, so the tooltip opens (and stays) at once.
    await wb.hoverTooltip('lock:payouts:3', /Not live:/);
    await wb.screenshotOf('.part.sidebar', join(README_IMAGES, 'redis-locks-stale.png'), { height: 260 });

    await row.click({ button: 'right' });
    const release = page.locator('.context-view .action-item').filter({ hasText: 'Release Lock...' }).first();
    await release.waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok(
      await release.evaluate((el) => el.classList.contains('disabled') || el.querySelector('[aria-disabled="true"]') !== null),
      'Release Lock... is disabled on a stale row',
    );
    await page.keyboard.press('Escape');
    await redis.restart();
  });
});
