// lockwise/lockSites (for the Redis Locks view) and hovers on acquisitions: key globs, TTL, token,
// releases and findings, from files on disk (the scan) and from open documents (their live text).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hover } from 'vscode-languageserver-protocol';
import type { LockSite, LockSitesResult } from '../../server/src/protocol';
import { waitFor } from '../helpers/wait';
import { IOREDIS_SETTLE } from './helpers/lock-samples';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS, NODE_REDIS_REPORTS, PLAIN } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let app: TempWorkspace;
let reports: TempWorkspace;
let client: LspClient;

before(async () => {
  app = tempWorkspace('sites-app', { 'src/orders.ts': IOREDIS_ORDERS, 'src/settle.ts': IOREDIS_SETTLE, 'src/plain.ts': PLAIN });
  reports = tempWorkspace('sites-reports', { 'reports.ts': NODE_REDIS_REPORTS });
  client = await startServer({
    folders: [
      { uri: app.uri, name: app.name },
      { uri: reports.uri, name: reports.name },
    ],
  });
  await waitFor(() => client.progress.some((p) => p.value.kind === 'end'), 'the first scan');
});

after(async () => {
  await client?.stop();
  app?.remove();
  reports?.remove();
});

const sites = (params: object = {}) => client.request<LockSitesResult>('lockwise/lockSites', params);

function lineOf(text: string, needle: string): number {
  const line = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, needle);
  return line;
}

test('every acquisition in the workspace, with its key glob, location and findings', async () => {
  const result = await sites();
  assert.equal(result.partial, undefined);
  const byGlob = new Map(result.sites.map((s) => [s.keyGlob, s]));
  assert.deepEqual([...byGlob.keys()].sort(), ['lock:order:*', 'lock:report:*', 'lock:settle:*']);

  const order = byGlob.get('lock:order:*') as LockSite;
  assert.equal(order.uri, app.uriOf('src/orders.ts'));
  assert.equal(order.range.start.line, lineOf(IOREDIS_ORDERS, 'redis.setnx('));
  assert.equal(order.keyText, '`lock:order:${id}`');
  assert.ok(order.findings.some((f) => f.rule === 'atomic-acquire'), JSON.stringify(order.findings));

  const settle = byGlob.get('lock:settle:*') as LockSite;
  assert.deepEqual(settle.findings, []);
  assert.equal(settle.ttlText, '30000 ms');
  assert.equal(settle.tokenText, 'token');
  assert.deepEqual(settle.releases?.map((r) => r.start.line), [lineOf(IOREDIS_SETTLE, 'redis.eval(')]);
});

test('folderUri limits the answer to one workspace folder', async () => {
  const only = await sites({ folderUri: reports.uri });
  assert.deepEqual(only.sites.map((s) => [s.uri, s.keyGlob]), [[reports.uriOf('reports.ts'), 'lock:report:*']]);
  assert.deepEqual((await sites({ folderUri: 'file:///no/such/folder' })).sites, []);
});

test('an open document answers with its current text, not the file on disk', async () => {
  const uri = app.uriOf('src/settle.ts');
  const edited = IOREDIS_SETTLE.replaceAll('lock:settle:', 'lock:payout:');
  client.open(uri, edited);
  await client.waitForDiagnostics(uri);
  const globs = (await sites()).sites.filter((s) => s.uri === uri).map((s) => s.keyGlob);
  assert.deepEqual(globs, ['lock:payout:*']);
  client.close(uri);
});

async function hover(uri: string, line: number, character: number): Promise<Hover | null> {
  return client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line, character } });
}

test('hover on an acquisition shows the key glob, TTL, token and where it is released', async () => {
  const uri = app.uriOf('src/settle.ts');
  client.open(uri, IOREDIS_SETTLE);
  await client.waitForDiagnostics(uri);
  const line = lineOf(IOREDIS_SETTLE, 'redis.set(');
  const result = await hover(uri, line, IOREDIS_SETTLE.split('\n')[line].indexOf('redis.set(') + 8);
  const markdown = (result?.contents as { kind: string; value: string }).value;
  assert.equal((result?.contents as { kind: string }).kind, 'markdown');
  assert.match(markdown, /`lock:settle:\*`/);
  assert.match(markdown, /TTL: `30000 ms`/);
  assert.match(markdown, /Token: `token`/);
  assert.match(markdown, new RegExp(`Released: line ${lineOf(IOREDIS_SETTLE, 'redis.eval(') + 1}\\b`));
  assert.equal(result?.range?.start.line, line);

  assert.equal(await hover(uri, 0, 3), null, 'no hover on an import');
  assert.equal(await hover(uri, 9_999, 3), null, 'no hover past the end');
  assert.equal(await hover(app.uriOf('src/never-opened.ts'), 1, 1), null);
  client.close(uri);
});

test('hover says so when an acquire has no TTL', async () => {
  const uri = reports.uriOf('reports.ts');
  const text = NODE_REDIS_REPORTS.replace(/^.*pExpire.*\n/m, '');
  client.open(uri, text);
  await client.waitForDiagnostics(uri);
  const line = lineOf(text, 'client.set(');
  const result = await hover(uri, line, text.split('\n')[line].indexOf('client.set(') + 3);
  assert.match((result?.contents as { value: string }).value, /TTL: \*\*none\*\*/);
  client.close(uri);
});
