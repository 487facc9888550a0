// What a diagnostic offers the moment it shows, in a real VS Code (code-server 4.100.3) whose Lockwise
// server has just started: the first Ctrl+. lists the rule's fix (issue 13: it once said "No code
// actions available" while the lightbulb showed), and the lockwise(<rule>) code link, in the hover and
// in the Problems view, opens the bundled rule doc as a markdown preview, not as plain text.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor } from '../helpers/wait';
import { startCodeServer, type CodeServer } from './harness/code-server';
import { FIXTURE_WORKSPACE, VSIX } from './harness/paths';
import { launchChromium, type Browser, type Page } from './harness/playwright';
import { QUIET_WORKBENCH } from './harness/settings';
import { step } from './harness/steps';
import { Workbench } from './harness/workbench';

// SETNX + EXPIRE (atomic-acquire, with a fix) and a plain DEL (owner-checked-release).
const NIGHTLY = `import Redis from 'ioredis';

const redis = new Redis();

export async function nightly(token: string): Promise<void> {
  const ok = await redis.setnx('lock:nightly', token);
  if (!ok) return;
  await redis.expire('lock:nightly', 60);
  console.log('nightly run');
  await redis.del('lock:nightly');
}
`;

let server: CodeServer;
let browser: Browser;
let page: Page;
let wb: Workbench;
let workspace: string;

function lineOf(text: string, needle: string): { line: number; column: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return { line: line + 1, column: lines[line]!.indexOf(needle) + 1 };
}

const previewTab = (rule: string) => page.locator('.tabs-container .tab').filter({ hasText: `Preview ${rule}.md` }).first();
// The doc opened as text: a tab named after the file itself.
const textTabs = (rule: string) => page.locator(`.tabs-container .tab[aria-label^="${rule}.md"]`);

before(async () => {
  assert.ok(existsSync(VSIX), `${VSIX} exists (npm run test:e2e builds it first)`);
  workspace = mkdtempSync(join(tmpdir(), 'lockwise-e2e-diagnostics-'));
  cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  writeFileSync(join(workspace, 'src', 'nightly.ts'), NIGHTLY);
  server = await startCodeServer({
    vsix: VSIX,
    folder: workspace,
    // TypeScript's syntax server only: VS Code cancels a pending Ctrl+. (and then says "No code actions
    // available") when a code action provider registers or, 750 ms on, when the file's markers change,
    // and TypeScript's full server does both seconds after the first file opens. That is VS Code's and
    // TypeScript's race, not Lockwise's; without it the test sees Lockwise's answer alone.
    settings: { ...QUIET_WORKBENCH, 'typescript.tsserver.useSyntaxServer': 'always' },
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  wb = new Workbench(page);
  await wb.open(server.url, workspace);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

test('1. the first Ctrl+. once the diagnostic shows lists the fix, on a file just opened', async () => {
  await step(page, server, 'diagnostics-1-first-quick-fix', async () => {
    // The first TypeScript file of the session activates Lockwise and TypeScript's extension; once its
    // squiggles show, the server runs. TypeScript registers its code action providers as it activates,
    // and a registration cancels a pending Ctrl+.: on a loaded machine it can come after the first file's
    // squiggles (the likely cause of one CI run's "No code actions available" 22 s into the start).
    await wb.openFile('src/reserve-stock.ts');
    await waitFor(async () => (await wb.editor().locator('.squiggly-error').count()) >= 2, 'the first file\'s squiggles', { timeoutMs: 60_000 });
    // The file under test is opened only now, on a server that has just started.
    await wb.openFile('src/nightly.ts');
    const at = lineOf(NIGHTLY, 'redis.setnx(');
    await wb.goTo(at.line, at.column + 'redis.s'.length);
    await waitFor(async () => (await wb.editor().locator('.squiggly-error').count()) >= 2, 'the two error squiggles', { timeoutMs: 60_000 });
    await page.keyboard.press('Control+.');
    // Pressed once: the answer to that one press is either the menu or VS Code's "no actions" message.
    const fix = page.locator('.action-widget .monaco-list-row').filter({ hasText: 'Acquire with one SET' }).first();
    const nothing = page.locator('.monaco-editor-overlaymessage').filter({ hasText: 'No code actions available' }).first();
    const answer = await waitFor(async () => {
      if (await fix.isVisible()) return 'the fix';
      if (await nothing.isVisible()) return 'No code actions available';
      return undefined;
    }, 'the answer to the first Ctrl+.', { timeoutMs: 20_000, intervalMs: 50 });
    assert.equal(answer, 'the fix');
    await page.keyboard.press('Escape');
    await fix.waitFor({ state: 'hidden', timeout: 10_000 });
  });
});

test('2. the code link in the hover opens the rule doc as a markdown preview', async () => {
  await step(page, server, 'diagnostics-2-hover-code-link', async () => {
    const at = lineOf(NIGHTLY, 'redis.del(');
    await wb.goTo(at.line, at.column + 'redis.d'.length);
    const link = page.locator('.monaco-hover a.code-link').filter({ hasText: 'owner-checked-release' }).first();
    await wb.runCommand('Show or Focus Hover');
    await link.waitFor({ state: 'visible', timeout: 15_000 });
    await link.click();
    await previewTab('owner-checked-release').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await textTabs('owner-checked-release').count(), 0, 'the doc is not also open as text');
  });
});

test('3. the code link in the Problems view opens the rule doc as a markdown preview', async () => {
  await step(page, server, 'diagnostics-3-problems-code-link', async () => {
    await wb.runCommand('View: Focus Problems');
    const link = wb.problems().locator('a.monaco-link').filter({ hasText: 'atomic-acquire' }).first();
    await link.waitFor({ state: 'visible', timeout: 20_000 });
    await link.click();
    await previewTab('atomic-acquire').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await textTabs('atomic-acquire').count(), 0, 'the doc is not also open as text');
  });
});
