// Code actions answer as soon as diagnostics are published: a settings change that leaves the
// findings as they were re-sends nothing (an editor re-asks for code actions on every diagnostics
// change, cancelling the ones the user asked for), and the first request right after the diagnostics
// already gets the fixes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;
let client: LspClient;

before(async () => {
  ws = tempWorkspace('ready', { 'src/orders.ts': IOREDIS_ORDERS });
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

test('unchanged diagnostics are not re-sent after a settings change, and the fixes are there on the first request', async () => {
  const uri = ws.uriOf('src/orders.ts');
  const published: Diagnostic[][] = [];
  client.onDiagnostics((p) => {
    if (p.uri === uri) published.push(p.diagnostics);
  });
  client.open(uri, IOREDIS_ORDERS);
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0);
  const requestsBefore = client.configurationRequests.length;
  void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  const atomic = diagnostics.find((d) => d.code === 'atomic-acquire')!;
  // The request waits for the re-analysis the settings change started (it reads the new settings).
  const actions: CodeAction[] = await client.request('textDocument/codeAction', {
    textDocument: { uri },
    range: atomic.range,
    context: { diagnostics: [atomic] },
  });
  assert.ok(client.configurationRequests.length > requestsBefore, 'the settings were read again');
  assert.ok(actions.some((a) => a.isPreferred && a.edit), JSON.stringify(actions.map((a) => a.title)));
  assert.equal(published.length, 1, 'the same diagnostics are published once');
});
