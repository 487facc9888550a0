// The server must survive whatever an editor (or a broken client) sends: a burst of changes, positions
// past the end, unknown URIs, a huge file, input that overflows the parser's stack, malformed
// messages. After each it still answers, and its final diagnostics belong to the final text.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { applyTextEdits } from './helpers/apply-edit';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS, NODE_REDIS_REPORTS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;
let client: LspClient;

before(async () => {
  ws = tempWorkspace('robust');
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

/** The server is up and answers a request. */
async function answers(): Promise<void> {
  assert.ok(client.alive, 'the server process exited');
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri: ws.uriOf('never-opened.ts') },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [] },
  });
  assert.deepEqual(actions, []);
}

/** Diagnostics without the document's own URI, to compare two documents' results. */
const portable = (ds: Diagnostic[]) =>
  ds.map((d) => ({ ...d, relatedInformation: d.relatedInformation?.map((r) => ({ range: r.location.range, message: r.message })) }));

/** What a fresh document with this text gets: the reference for "the diagnostics match the text". */
async function reference(name: string, text: string): Promise<Diagnostic[]> {
  const uri = ws.uriOf(name);
  client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri);
  client.close(uri);
  return diagnostics;
}

test('1,000 rapid incremental changes end with the diagnostics of the final text', async () => {
  const uri = ws.uriOf('burst.ts');
  let text = '';
  client.open(uri, text);
  const source = IOREDIS_ORDERS + NODE_REDIS_REPORTS + IOREDIS_ORDERS.replace('processOrder', 'processRefund');
  const pieces = [...source];
  assert.ok(pieces.length > 1000);
  let typed = 0;
  for (let i = 0; i < 1000; i++) {
    // Type the samples character by character; every 50th change deletes the last five characters,
    // which the next changes type again.
    const at = text.length;
    const back = i % 50 === 49;
    const change = back
      ? { range: { start: pos(text, at - 5), end: pos(text, at) }, text: '' }
      : { range: { start: pos(text, at), end: pos(text, at) }, text: pieces[typed] };
    typed += back ? -5 : 1;
    text = applyTextEdits(text, [{ range: change.range, newText: change.text }]);
    client.change(uri, [change]);
  }
  assert.equal(text, pieces.slice(0, typed).join(''));
  const final = await client.waitForDiagnostics(uri, undefined, 20_000);
  assert.ok(final.length > 0, 'the final text holds lock misuse');
  assert.deepEqual(portable(final), portable(await reference('burst-reference.ts', text)));
  await answers();
});

function pos(text: string, offset: number) {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

test('positions past the end and unknown URIs get empty answers, not errors', async () => {
  const uri = ws.uriOf('small.ts');
  client.open(uri, IOREDIS_ORDERS);
  await client.waitForDiagnostics(uri, (d) => d.length > 0);
  for (const range of [
    { start: { line: 10_000, character: 0 }, end: { line: 10_001, character: 5 } },
    { start: { line: 2, character: 10_000 }, end: { line: 1, character: 0 } },
  ]) {
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics: [] } });
    assert.ok(Array.isArray(actions));
  }
  void client.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: ws.uriOf('not-open.ts'), version: 3 },
    contentChanges: [{ text: 'x' }],
  });
  void client.connection.sendNotification('textDocument/didClose', { textDocument: { uri: 'untitled:Nope' } });
  await answers();
  client.close(uri);
});

test('a 5 MB file is not analysed but the server stays responsive', async () => {
  const uri = ws.uriOf('huge.ts');
  const line = "export const lockKey_%d = `lock:${'x'}`; // padding padding padding padding\n";
  const lines: string[] = [];
  for (let i = 0; lines.length * line.length < 5 * 1024 * 1024; i++) lines.push(line.replace('%d', String(i)));
  client.open(uri, lines.join(''));
  assert.deepEqual(await client.waitForDiagnostics(uri), []);
  assert.ok(client.logs.some((l) => l.includes('huge.ts') && l.includes('maxFileSizeKb')));
  await answers();
  client.close(uri);
});

test('input that overflows the parser stack is survived', async () => {
  const uri = ws.uriOf('deep.ts');
  const depth = 200_000;
  // Words the pre-check looks for, so that the file really is parsed.
  client.open(uri, `// lock: redis.del(key)\nexport const x = ${'('.repeat(depth)}1${')'.repeat(depth)};\n`);
  assert.deepEqual(await client.waitForDiagnostics(uri, undefined, 20_000), []);
  assert.ok(client.logs.some((l) => l.includes('deep.ts') && l.includes('failed')), client.logs.join('\n'));
  await answers();
  client.close(uri);
});

test('malformed messages get errors back and the server keeps going', async () => {
  // A request for a method nobody implements.
  await assert.rejects(client.request('lockwise/noSuchThing', {}), /Unhandled method|not found/i);
  // Known requests with nonsense params: an error or an empty answer, never a crash.
  for (const params of [null, { textDocument: 42 }, { textDocument: { uri: 7 }, range: 'x', context: {} }]) {
    const answer = await client.request<unknown>('textDocument/codeAction', params).catch((err: Error) => err);
    assert.ok(answer instanceof Error || (Array.isArray(answer) && answer.length === 0), JSON.stringify(answer));
  }
  // A frame whose body is not JSON at all.
  const body = '{"jsonrpc":"2.0","id":99,"method":';
  client.process.stdin?.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await answers();

  const uri = ws.uriOf('after.ts');
  client.open(uri, IOREDIS_ORDERS);
  assert.ok((await client.waitForDiagnostics(uri, (d) => d.length > 0)).length > 0);
});
