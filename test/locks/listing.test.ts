// Listing against a real single redis-server: every holder format, states, fences, dedupe, row cap,
// renewal and disappearance between refreshes, and (via MONITOR) exactly which commands are sent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { seedAllFormats, type Seeded } from './seed';

let server: RedisProcess;
let admin: Redis;
let conn: LockConnection;
let seeded: Seeded;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  seeded = await seedAllFormats(admin);
  conn = await openLockConnection({ url: server.url });
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await server?.stop();
});

test('every seeded holder format is listed, decoded, with its state and fence; nothing else is', async () => {
  const result = await conn.list();
  assert.equal(result.partial, false);
  assert.deepEqual(result.errors, []);
  const byKey = new Map(result.rows.map((r) => [r.key, r]));
  for (const lock of seeded.locks) {
    const row = byKey.get(lock.key);
    assert.ok(row, `${lock.key} listed`);
    assert.equal(row.holder.format, lock.format, `${lock.key} format`);
    assert.equal(row.holder.token, lock.token, `${lock.key} token`);
    assert.equal(row.state, lock.state, `${lock.key} state`);
    assert.equal(row.fence?.value, lock.fence, `${lock.key} fence`);
    assert.ok(row.raw.length > 0);
  }
  assert.equal(result.rows.length, seeded.locks.length, 'no extra rows (fence keys are folded into their lock)');
  for (const key of seeded.unrelated) assert.ok(!byKey.has(key), `${key} not listed`);

  const lw = byKey.get('lock:orders')!;
  assert.equal(lw.holder.label, 'web-1 pid 4242');
  assert.deepEqual(lw.fence, { key: '{lock:orders}:fence', value: '17' });
  assert.equal(byKey.get('lock:legacy')!.pttl, -1);
  assert.match(byKey.get('lock:redisson')!.holder.label, /thread 42, entered 2×/);
  assert.match(byKey.get('lock:redisson-rw')!.holder.label, /write lock/);
  assert.match(byKey.get('lock:import')!.holder.label, /owner importer host worker-3 pid 77/);
  assert.equal(JSON.parse(byKey.get('semaphore:pool')!.raw)[byKey.get('semaphore:pool')!.holder.token!] > 0, true);
});

test('overlapping patterns list each key once; the row cap flags a partial result with the scanned count', async () => {
  const both = await conn.list({ patterns: ['lock:*', 'lock:o*', 'lock:orders'] });
  const keys = both.rows.map((r) => r.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.ok(both.scanned > keys.length, 'duplicates were seen by SCAN and removed');

  const capped = await conn.list({ rowCap: 3, count: 2, pauseMs: 1 });
  assert.equal(capped.partial, true);
  assert.equal(capped.rows.length, 3);
  assert.ok(capped.scanned >= 3);
  assert.deepEqual(capped.errors, []);
});

test('renewed when the TTL went up since the previous refresh; gone when the key disappeared', async () => {
  await admin.set('lock:watchdog', 'lw1:api-2:7:0123456789abcdef0123456789abcdef', 'PX', 10_000);
  await admin.set('lock:short-lived', 'x', 'PX', 60_000);
  const first = await conn.list({ patterns: ['lock:watchdog', 'lock:short-lived'] });
  assert.equal(first.rows.find((r) => r.key === 'lock:watchdog')?.state, 'held');

  await admin.pexpire('lock:watchdog', 20_000); // what a watchdog does
  await admin.del('lock:short-lived');
  const second = await conn.list({ patterns: ['lock:watchdog', 'lock:short-lived'], previous: first.rows });
  assert.equal(second.rows.find((r) => r.key === 'lock:watchdog')?.state, 'renewed');
  assert.equal(second.rows.find((r) => r.key === 'lock:short-lived')?.state, 'gone');

  // Once said, "gone" is not repeated; a TTL far below the longest seen is "expiring".
  await admin.pexpire('lock:watchdog', 3_000);
  const third = await conn.list({ patterns: ['lock:watchdog', 'lock:short-lived'], previous: second.rows });
  assert.equal(third.rows.find((r) => r.key === 'lock:short-lived'), undefined);
  assert.equal(third.rows.find((r) => r.key === 'lock:watchdog')?.state, 'expiring');
});

test('a refresh decodes each holder as a fresh listing does: a changed value gets its new holder, an unchanged one keeps its own', async () => {
  const patterns = ['lock:refresh-*'];
  await admin.set('lock:refresh-same', 'lw1:api-3:11:00112233445566778899aabbccddeeff', 'PX', 60_000);
  await admin.set('lock:refresh-new-owner', 'lw1:api-4:12:00112233445566778899aabbccddeeff', 'PX', 60_000);
  await admin.set('lock:refresh-cut', 'short', 'PX', 60_000);
  try {
    const first = await conn.list({ patterns });
    await admin.set('lock:refresh-new-owner', 'lw1:api-5:13:ffeeddccbbaa99887766554433221100', 'PX', 60_000);
    await admin.set('lock:refresh-cut', 'x'.repeat(5000), 'PX', 60_000); // longer than the bounded read
    const refresh = await conn.list({ patterns, previous: first.rows });
    const fresh = await conn.list({ patterns });
    assert.deepEqual(refresh.rows.map((r) => [r.key, r.holder, r.raw]), fresh.rows.map((r) => [r.key, r.holder, r.raw]));
    assert.equal(refresh.rows.find((r) => r.key === 'lock:refresh-new-owner')?.holder.label, 'api-5 pid 13');
    assert.equal(refresh.rows.find((r) => r.key === 'lock:refresh-same')?.holder.label, 'api-3 pid 11');
    assert.equal(refresh.rows.find((r) => r.key === 'lock:refresh-cut')?.holder.token, undefined, 'a cut value is no token');
  } finally {
    await admin.del('lock:refresh-same', 'lock:refresh-new-owner', 'lock:refresh-cut');
  }
});

test('read() re-reads one lock with its fence, and says undefined once it is gone', async () => {
  const row = await conn.read('lock:orders');
  assert.equal(row?.holder.format, 'lockwise');
  assert.equal(row?.fence?.value, '17');
  assert.equal(await conn.read('lock:never-existed'), undefined);
});

test('MONITOR sees only SCAN, read-only scripts (EVAL_RO, EVALSHA_RO) and the bounded reads in them (+INFO, PING) from a listing: never KEYS, HGETALL, GET of a value or a plain EVAL, never a write', async () => {
  const monitor = await admin.monitor();
  const seen: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => seen.push(String(args[0]).toLowerCase()));
  try {
    const fresh = await openLockConnection({ url: server.url });
    try {
      await fresh.list();
      await fresh.read('lock:redisson');
    } finally {
      await fresh.close();
    }
    await admin.set('lock:monitor-end', '1');
    await waitFor(() => seen.includes('set'), 'MONITOR to catch up');
  } finally {
    monitor.disconnect();
  }
  const fromLockwise = seen.slice(0, seen.lastIndexOf('set'));
  assert.ok(fromLockwise.includes('scan'));
  assert.ok(!fromLockwise.includes('keys'));
  assert.ok(fromLockwise.includes('eval_ro'));
  const allowed = new Set(['client', 'ping', 'info', 'scan', 'eval_ro', 'evalsha_ro', 'type', 'exists', 'pttl', 'get', 'strlen', 'getrange', 'hlen', 'hrandfield', 'hget', 'zcard', 'zrange']);
  assert.deepEqual([...new Set(fromLockwise.filter((c) => !allowed.has(c)))], []);
});
