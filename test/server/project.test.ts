// The language server with the project-wide lock model: findings in files that call a helper of
// another file (open or not), related information pointing at the helper, and re-published
// diagnostics when the helper is edited, fixed or deleted: never a stale cross-file finding.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { waitFor } from '../helpers/wait';
import { startServer, type LspClient } from './helpers/lsp-client';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const HELPER = `import Redis from 'ioredis';
const redis = new Redis();
export async function acquireLock(key: string, ttl = 5000) {
  return redis.set(key, crypto.randomUUID(), 'PX', ttl, 'NX');
}
`;
// The same name, but it throws when the lock is busy: callers need not test a result.
const THROWING_HELPER = `import Redis from 'ioredis';
const redis = new Redis();
export async function acquireLock(key: string, ttl = 5000): Promise<void> {
  const ok = await redis.set(key, crypto.randomUUID(), 'PX', ttl, 'NX');
  if (!ok) throw new Error('busy');
}
`;
// No lock word and no Redis command of its own: only the import makes it lock code.
const CALLER = `import { acquireLock as take } from './helpers/redis-lock';
export async function pay(id: string) {
  await take('order:' + id);
}
`;

// A lock module whose acquire is a Lua script in a file beside it: the script decides require-ttl.
const TAKE_ALL = (ttl: string) => `for _, key in ipairs(KEYS) do
  if not redis.call('SET', key, ARGV[1], 'NX'${ttl}) then return 0 end
end
return 1
`;
const SCRIPTED_LOCKS = `import Redis from 'ioredis';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const TAKE = fs.readFileSync(path.join(__dirname, 'take-all.lua'), 'utf8');
export async function lockAll(names: string[]): Promise<string | null> {
  const token = randomUUID();
  const taken = await redis.eval(TAKE, names.length, ...names, token, 30000);
  return Number(taken) === 1 ? token : null;
}
`;

let ws: TempWorkspace;
let client: LspClient;
const rules = (uri: string) => (client.diagnostics.get(uri)?.diagnostics ?? []).map((d) => d.code);

before(async () => {
  ws = tempWorkspace('project', { 'src/helpers/redis-lock.ts': HELPER, 'src/pay.ts': CALLER, 'src/batch/locks.ts': SCRIPTED_LOCKS, 'src/batch/take-all.lua': TAKE_ALL('') });
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});
after(async () => {
  await client?.stop();
  ws?.remove();
});

test('the workspace scan finds the ignored result in a caller nobody opened, pointing at the helper', async () => {
  const uri = ws.uriOf('src/pay.ts');
  await waitFor(() => rules(uri).includes('check-acquire-result'), 'the cross-file finding from the scan');
  const related = client.diagnostics.get(uri)?.diagnostics[0].relatedInformation ?? [];
  assert.equal(related[0]?.location.uri, ws.uriOf('src/helpers/redis-lock.ts'));
  assert.equal(related[0]?.location.range.start.line, 3);
});

test('editing the open helper re-publishes the open caller; undoing the edit brings the finding back', async () => {
  const helper = ws.uriOf('src/helpers/redis-lock.ts');
  const caller = ws.uriOf('src/pay.ts');
  client.open(caller, CALLER);
  await client.waitForDiagnostics(caller, (d) => d.some((x) => x.code === 'check-acquire-result'));
  client.open(helper, HELPER);
  await client.waitForDiagnostics(helper);
  client.change(helper, [{ text: THROWING_HELPER }]);
  await waitFor(() => client.diagnostics.get(caller)?.diagnostics.length === 0, 'the caller to be clean once the helper throws');
  client.change(helper, [{ text: HELPER }]);
  await waitFor(() => rules(caller).includes('check-acquire-result'), 'the finding to come back');
  client.close(helper);
  client.close(caller);
});

test('a workspace scan during an unsaved helper edit keeps the editor\'s meaning; closing the helper unsaved brings the disk\'s back', async () => {
  const helper = ws.uriOf('src/helpers/redis-lock.ts');
  const caller = ws.uriOf('src/pay.ts');
  client.open(caller, CALLER);
  client.open(helper, HELPER);
  await client.waitForDiagnostics(caller, (d) => d.some((x) => x.code === 'check-acquire-result'));
  client.change(helper, [{ text: THROWING_HELPER }]);
  await waitFor(() => client.diagnostics.get(caller)?.diagnostics.length === 0, 'the caller to be clean once the helper throws');
  // The scan reads the helper's disk text, which still returns the result.
  await client.request('lockwise/checkWorkspace', {});
  // A hover answers from the caller's current analysis: one the scan made stale is redone (and published) first.
  await client.request('textDocument/hover', { textDocument: { uri: caller }, position: { line: 2, character: 9 } });
  assert.deepEqual(rules(caller), [], 'the scan must not hand the caller the helper as it is on disk');
  client.close(helper);
  await waitFor(() => rules(caller).includes('check-acquire-result'), 'the disk meaning once the unsaved helper is closed');
  client.close(caller);
});

test('a tsconfig.json written on disk with a `paths` alias: the caller through the alias gets the helper\'s meaning', async () => {
  const caller = ws.uriOf('src/refund.ts');
  writeFileSync(ws.file('src/refund.ts'), `import { acquireLock } from '@/helpers/redis-lock';\nexport async function refund(id: string) {\n  await acquireLock('refund:' + id);\n}\n`);
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: caller, type: 1 }] });
  await client.request('lockwise/checkWorkspace', {});
  assert.deepEqual(rules(caller), [], 'the alias leads nowhere before the tsconfig exists');
  writeFileSync(ws.file('tsconfig.json'), JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@/*': ['src/*'] } } }));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uriOf('tsconfig.json'), type: 1 }] });
  await waitFor(() => rules(caller).includes('check-acquire-result'), 'the finding once the alias resolves');
  rmSync(ws.file('tsconfig.json'));
  rmSync(ws.file('src/refund.ts'));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uriOf('tsconfig.json'), type: 3 }, { uri: caller, type: 3 }] });
  await waitFor(() => !client.diagnostics.get(caller)?.diagnostics.length, 'the removed caller to be cleared');
});

test('a Lua script rewritten or deleted on disk re-publishes the module that reads it', async () => {
  const locks = ws.uriOf('src/batch/locks.ts');
  const script = ws.uriOf('src/batch/take-all.lua');
  await waitFor(() => rules(locks).includes('require-ttl'), 'the scanned finding from the script without a TTL');
  writeFileSync(ws.file('src/batch/take-all.lua'), TAKE_ALL(", 'PX', ARGV[2]"));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: script, type: 2 }] });
  await waitFor(() => rules(locks).length === 0, 'the module to be clean once its script sets a TTL');
  writeFileSync(ws.file('src/batch/take-all.lua'), TAKE_ALL(''));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: script, type: 2 }] });
  await waitFor(() => rules(locks).includes('require-ttl'), 'the finding back with the script');
  rmSync(ws.file('src/batch/take-all.lua'));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: script, type: 3 }] });
  await waitFor(() => rules(locks).length === 0, 'no finding once the script is gone (an unknown script is not judged)');
});

test('deleting the helper file on disk clears the caller\'s cross-file finding', async () => {
  const caller = ws.uriOf('src/pay.ts');
  await waitFor(() => rules(caller).includes('check-acquire-result'), 'the scanned finding');
  rmSync(ws.file('src/helpers/redis-lock.ts'));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: ws.uriOf('src/helpers/redis-lock.ts'), type: 3 }],
  });
  await waitFor(() => (client.diagnostics.get(caller)?.diagnostics.length ?? 0) === 0, 'the caller to be clean once the helper is gone');
});
