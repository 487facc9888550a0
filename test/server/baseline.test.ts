// The folder's baseline (written by `lockwise check --update-baseline`) in the language server: recorded
// findings are hints, or hidden by lockwise.baseline.findings; new ones keep their severity; a line move
// in the editor keeps the match; a broken baseline is logged and ignored.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DiagnosticSeverity } from 'vscode-languageserver-protocol';
import { runCli, SETNX_THEN_EXPIRE } from '../cli/cli-process';
import { waitFor } from '../helpers/wait';
import { startServer, type LspClient } from './helpers/lsp-client';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const NEW = SETNX_THEN_EXPIRE.replace('runJob', 'runOtherJob');
let ws: TempWorkspace;
let client: LspClient;
let old: string;
let added: string;

before(async () => {
  ws = tempWorkspace('baseline', { 'src/lock.ts': SETNX_THEN_EXPIRE });
  const update = runCli(['check', '--update-baseline', 'src'], ws.path);
  assert.equal(update.status, 0, update.stderr);
  ws.write('src/new.ts', NEW);
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }], settings: { '': {} } });
  old = ws.uriOf('src/lock.ts');
  added = ws.uriOf('src/new.ts');
  client.open(old, SETNX_THEN_EXPIRE);
  client.open(added, NEW);
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

const severities = (uri: string, expected: (DiagnosticSeverity | undefined)[]) =>
  client.waitForDiagnostics(uri, (d) => JSON.stringify(d.map((x) => x.severity)) === JSON.stringify(expected));

test('a baselined finding is a hint that says so; a new one keeps its severity', async () => {
  const [hint] = await severities(old, [DiagnosticSeverity.Hint]);
  assert.equal(hint.code, 'atomic-acquire');
  assert.match(String(hint.message), /\(In the baseline\.\)$/);
  const [error] = await severities(added, [DiagnosticSeverity.Error]);
  assert.doesNotMatch(String(error.message), /baseline/);
});

test('moving the lines in the editor keeps the match', async () => {
  client.change(old, [{ text: `// a comment\n\n${SETNX_THEN_EXPIRE}` }]);
  await severities(old, [DiagnosticSeverity.Hint]);
});

test('lockwise.baseline.findings = hidden leaves them out', async () => {
  client.settings = { '': { baseline: { findings: 'hidden' } } };
  await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  await severities(old, []);
  await severities(added, [DiagnosticSeverity.Error]);
});

test('a broken baseline is logged and ignored', async () => {
  ws.write('lockwise-baseline.json', '{ "version": 2, "entries": [] }');
  client.change(old, [{ text: SETNX_THEN_EXPIRE }]);
  await severities(old, [DiagnosticSeverity.Error]);
  await waitFor(() => client.logs.find((l) => /baseline .*lockwise-baseline\.json ignored: .*unsupported baseline version 2/.test(l)), 'the log line');
  assert.ok(client.alive);
});
