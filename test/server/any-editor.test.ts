// The language server as any LSP editor starts it: the `lockwise-language-server` bin (dist/server.js,
// run as an executable with no arguments) and `lockwise lsp --stdio`, driven by a plain JSON-RPC client
// that knows nothing of the VS Code extension: initialize, diagnostics pushed and pulled, settings from
// initializationOptions or workspace/configuration (or none), a code action, shutdown and exit.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { ClientCapabilities, CodeAction, Diagnostic, InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { makeTree, SETNX_THEN_EXPIRE, type Tree } from '../cli/cli-process';
import { waitFor } from '../helpers/wait';

interface Editor {
  connection: MessageConnection;
  child: ChildProcess;
  pushed: PublishDiagnosticsParams[];
  initialized: InitializeResult;
  exited: Promise<number | null>;
}

let tree: Tree;
let uri: string;
before(() => {
  tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE });
  uri = pathToFileURL(resolve(tree.root, 'src/lock.ts')).href;
});
after(() => tree.remove());

async function start(command: string, args: string[], capabilities: ClientCapabilities, initializationOptions?: unknown, configuration?: unknown): Promise<Editor> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const pushed: PublishDiagnosticsParams[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    pushed.push(p);
  });
  // What an editor with no `lockwise` settings answers.
  connection.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => configuration ?? null));
  connection.onRequest('window/workDoneProgress/create', () => null);
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  const rootUri = pathToFileURL(tree.root).href;
  const initialized = (await connection.sendRequest('initialize', { processId: process.pid, rootUri, capabilities, initializationOptions })) as InitializeResult;
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: SETNX_THEN_EXPIRE } });
  return { connection, child, pushed, initialized, exited };
}

async function shutDown(editor: Editor): Promise<void> {
  assert.equal(await editor.connection.sendRequest('shutdown'), null);
  await editor.connection.sendNotification('exit');
  assert.equal(await editor.exited, 0, 'the server exits with 0 after shutdown and exit');
  editor.connection.dispose();
}

async function codeActionsFor(editor: Editor, diagnostic: Diagnostic): Promise<CodeAction[]> {
  return editor.connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic] },
  });
}

test('the bin with push diagnostics and settings from initializationOptions', async () => {
  const editor = await start(resolve('dist/server.js'), [], { textDocument: { publishDiagnostics: {}, codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } } } }, {
    lockwise: { rules: { 'atomic-acquire': 'warning' } },
  });
  try {
    assert.equal(editor.initialized.serverInfo?.name, 'lockwise');
    assert.equal(editor.initialized.capabilities.diagnosticProvider, undefined, 'no pull without the client capability');
    const diagnostics = await waitFor(() => editor.pushed.find((p) => p.uri === uri && p.diagnostics.length > 0)?.diagnostics, 'pushed diagnostics');
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity, d.source]), [['atomic-acquire', 2, 'lockwise']], 'warning, as initializationOptions say');

    const actions = await codeActionsFor(editor, diagnostics[0]);
    const fix = actions.find((a) => a.kind === 'quickfix' && a.edit);
    assert.ok(fix, `a quick fix with an edit among ${actions.map((a) => a.title).join(', ')}`);
    assert.match(JSON.stringify(fix.edit), /NX/, 'the fix writes one SET ... NX');
  } finally {
    await shutDown(editor);
  }
});

test('lockwise lsp --stdio with pull diagnostics and defaults when workspace/configuration answers null', async () => {
  const editor = await start(process.execPath, [resolve('dist/cli.js'), 'lsp', '--stdio'], {
    workspace: { configuration: true },
    textDocument: { diagnostic: { dynamicRegistration: false }, publishDiagnostics: {} },
  });
  try {
    assert.equal(editor.initialized.capabilities.diagnosticProvider?.interFileDependencies, false);
    const report = await editor.connection.sendRequest<{ kind: string; items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.equal(report.kind, 'full');
    assert.deepEqual(report.items.map((d) => [d.code, d.severity]), [['atomic-acquire', 1]], 'error: the default severity');
    // Never pushed as well: that would show each finding twice.
    await waitFor(() => editor.pushed.some((p) => p.uri === uri), 'the open document\'s push');
    assert.deepEqual(editor.pushed.filter((p) => p.uri === uri).flatMap((p) => p.diagnostics), []);
    assert.ok((await codeActionsFor(editor, report.items[0])).some((a) => a.kind === 'quickfix'));
  } finally {
    await shutDown(editor);
  }
});

test('settings through workspace/configuration win over the defaults', async () => {
  const editor = await start(process.execPath, [resolve('dist/cli.js'), 'lsp'], { workspace: { configuration: true } }, undefined, { rules: { 'atomic-acquire': 'info' } });
  try {
    const diagnostics = await waitFor(() => editor.pushed.find((p) => p.uri === uri && p.diagnostics.length > 0)?.diagnostics, 'pushed diagnostics');
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity]), [['atomic-acquire', 3]]);
  } finally {
    await shutDown(editor);
  }
});

test('initializationOptions apply where workspace/configuration answers null', async () => {
  const editor = await start(process.execPath, [resolve('dist/cli.js'), 'lsp'], { workspace: { configuration: true } }, { rules: { 'atomic-acquire': 'warning' } });
  try {
    const diagnostics = await waitFor(() => editor.pushed.find((p) => p.uri === uri && p.diagnostics.length > 0)?.diagnostics, 'pushed diagnostics');
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity]), [['atomic-acquire', 2]]);
  } finally {
    await shutDown(editor);
  }
});
