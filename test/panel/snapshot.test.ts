// "Copy Snapshot as Markdown" with real rows from the lock core: one GFM table per connection, every
// row (the view's filter does not apply), the TTL left at copy time, and keys that cannot break the table.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks';
import type { PanelView } from '../../client/src/panel/panel-state';
import { snapshotMarkdown } from '../../client/src/panel/snapshot-markdown';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let redis: RedisProcess;
let client: Redis;
let core: LockConnection;

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
  await client.set('lock:order:1', 'lw1:web-1:4242:0123456789abcdef0123456789abcdef', 'PX', 60_000);
  await client.set('lock:evil|key`x\nline', 'holder|with|pipes', 'PX', 60_000);
  await client.set('lock:stuck', 'cron-host-3');
  core = await openLockConnection({ url: redis.url });
});

after(async () => {
  await core?.close();
  client?.disconnect();
  await redis?.stop();
});

/** Splits a GFM row on the pipes that are not escaped. */
const cells = (line: string) => line.slice(2, -2).split(/(?<!\\)\|/).map((c) => c.trim());

test('one table with every row, the TTL left at copy time, and an explicit line for a connection without rows', async () => {
  const result = await core.list();
  const readAt = Date.now();
  const view: PanelView = {
    filter: 'lock:order:*',
    notices: [],
    heldLongMs: 600_000,
    connections: [
      { target: { id: 'a', label: 'prod-eu', kind: 'url' }, status: { phase: 'connected' }, listing: { result, readAt }, writable: false },
      { target: { id: 'b', label: 'prod-us', kind: 'url' }, status: { phase: 'reconnecting', error: 'Connection refused.' }, writable: false },
    ],
  };
  const copiedAt = readAt + 10_000;
  const md = snapshotMarkdown(view, copiedAt);
  const lines = md.split('\n');
  assert.equal(lines[0], `### Redis locks at ${new Date(copiedAt).toISOString()}`);
  assert.match(md, /\*\*prod-eu\*\* \(3 locks; \d+ keys scanned; read /);
  const rows = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| Key') && !l.startsWith('| ---'));
  assert.equal(rows.length, 3, 'the filter does not apply to the snapshot');
  for (const row of rows) assert.equal(cells(row).length, 8, row);

  const order = cells(rows.find((r) => r.includes('lock:order:1'))!);
  const pttl = result.rows.find((r) => r.key === 'lock:order:1')!.pttl;
  assert.equal(order[3], `${((pttl - 10_000) / 1000).toFixed(1)} s`);
  assert.equal(order[2], '`web-1 pid 4242` (lockwise)');
  assert.equal(order[7], '`lw1:web-1:4242:0123456789abcdef0123456789abcdef`');

  const stuck = cells(rows.find((r) => r.includes('lock:stuck'))!);
  assert.deepEqual([stuck[1], stuck[3]], ['NO EXPIRY', 'NO EXPIRY']);

  const evil = rows.find((r) => r.includes('evil'))!;
  assert.ok(!evil.includes('\n'));
  assert.ok(evil.startsWith('| ``lock:evil\\|key`x line`` |'), evil);
  assert.match(md, /\*\*prod-us\*\*: reconnecting, no listing \(Connection refused\.\)/);
});
