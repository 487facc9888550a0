// A real 3-master Redis Cluster: the listing covers every master exactly once (no duplicates), fences in
// the lock's slot (inside the per-slot listing script) and in another slot are both found (and read only
// where they exist), guarded release
// routes by slot, and a stopped master makes the result partial with that node's error instead of
// silently missing its keys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import Redis, { Cluster } from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks/index';
import { startCluster, type RedisCluster } from '../helpers/redis-cluster';

let cluster: RedisCluster;
let admin: Cluster;
let conn: LockConnection;
const KEYS = Array.from({ length: 30 }, (_, i) => `lock:job-${i}`);

before(async () => {
  cluster = await startCluster();
  admin = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
  for (const key of KEYS) await admin.set(key, `owner-${key}`, 'PX', 60_000);
  await admin.set('lock:{order}', 'lw1:api-1:9:00112233445566778899aabbccddeeff', 'PX', 60_000);
  await admin.set('lock:{order}:fence', '41');
  await admin.set('lock:payments', 'p', 'PX', 60_000);
  await admin.set('fence:payments', '8'); // generic fence name: usually in another slot than its lock
  // A Redisson lock (a hash) and its fenced-lock counter, which Redisson keeps in the lock's slot.
  await admin.hset('lock:billing', '4b0f7e8e-3c1a-4d2b-9f6e-5a7c8d9e0f1a:7', '1');
  await admin.set('redisson_lock_token:{lock:billing}', '5');
  conn = await openLockConnection({ cluster: [cluster.seeds[0]!] });
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await cluster?.stop();
});

test('every master is scanned once: all keys listed, no duplicates, rows carry their node', async () => {
  const result = await conn.list({ count: 7 });
  assert.deepEqual(result.errors, []);
  assert.equal(result.partial, false);
  const keys = result.rows.map((r) => r.key);
  assert.equal(new Set(keys).size, keys.length, 'no duplicates');
  assert.deepEqual(keys.sort(), [...KEYS, 'lock:billing', 'lock:payments', 'lock:{order}'].sort());
  assert.deepEqual(new Set(result.rows.map((r) => r.node)), new Set(cluster.seeds), 'keys came from all three masters');
  const byKey = new Map(result.rows.map((r) => [r.key, r]));
  assert.deepEqual(byKey.get('lock:{order}')?.fence, { key: 'lock:{order}:fence', value: '41' });
  assert.deepEqual(byKey.get('lock:payments')?.fence, { key: 'fence:payments', value: '8' });
  assert.deepEqual(byKey.get('lock:billing')?.fence, { key: 'redisson_lock_token:{lock:billing}', value: '5' });
  assert.equal(byKey.get('lock:{order}')?.holder.label, 'api-1 pid 9');
});

test('fence keys are read only where they exist, on whichever master holds them; the lock\'s own-slot fence is not listed as a lock', async () => {
  const nodes = cluster.nodes.map((n) => new Redis(n.port, '127.0.0.1'));
  try {
    await Promise.all(nodes.map((n) => n.config('RESETSTAT')));
    const result = await conn.list();
    const gets = await Promise.all(nodes.map(async (n) => Number(/^cmdstat_get:calls=(\d+)/m.exec(await n.info('commandstats'))?.[1] ?? 0)));
    assert.equal(gets.reduce((a, b) => a + b, 0), 3, `GETs per master: ${gets.join(', ')}`);
    // One read-only script per slot of a batch: never one whose keys span slots (CROSSSLOT), which would fall back key by key.
    // By text or, once the master has it, by SHA1.
    const scripts = await Promise.all(nodes.map(async (n) => [...(await n.info('commandstats')).matchAll(/^cmdstat_eval(?:sha)?_ro:calls=(\d+),.*?rejected_calls=(\d+),failed_calls=(\d+)/gm)]));
    assert.ok(scripts.every((m) => m.length && m.reduce((n, x) => n + Number(x[1]), 0) > 0 && m.every((x) => x[2] === '0' && x[3] === '0')), scripts.map((m) => m.map((x) => x[0]).join(',')).join('; '));
    assert.ok(!result.rows.some((r) => r.key === 'lock:{order}:fence'));
    assert.equal(result.rows.filter((r) => r.fence).length, 3);
  } finally {
    nodes.forEach((n) => n.disconnect());
  }
});

test('guarded release and extend route to the key\'s master', async () => {
  assert.equal((await conn.release('lock:job-3', 'stale')).outcome, 'token-changed');
  assert.deepEqual(await conn.extend('lock:job-4', 'owner-lock:job-4', 90_000), { outcome: 'extended' });
  assert.deepEqual(await conn.release('lock:job-3', 'owner-lock:job-3'), { outcome: 'released' });
  assert.equal(await admin.exists('lock:job-3'), 0);
  assert.equal((await conn.read('lock:job-4'))?.holder.token, 'owner-lock:job-4');
});

test('a stopped master: the result is partial and names that node and its error; the others are listed', async () => {
  const victim = cluster.nodes[2]!;
  const before = await conn.list();
  const victimKeys = before.rows.filter((r) => r.node === `127.0.0.1:${victim.port}`).map((r) => r.key);
  assert.ok(victimKeys.length > 0);
  await victim.kill();

  const result = await conn.list();
  assert.equal(result.partial, true);
  assert.equal(result.errors.length, 1, JSON.stringify(result.errors));
  assert.equal(result.errors[0]!.node, `127.0.0.1:${victim.port}`);
  assert.match(result.errors[0]!.message, /refused|Not connected|Lost the connection/);
  assert.ok(result.rows.length > 0);
  assert.ok(result.rows.every((r) => !victimKeys.includes(r.key)));
  assert.equal(result.rows.length, before.rows.length - victimKeys.length);

  // The CLI says so too: rows of the live masters, the failed node on stderr, exit code 1.
  const cli = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ['dist/cli.js', 'locks', '--cluster', cluster.seeds.slice(0, 2).join(','), '--json'], (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    ),
  );
  assert.equal(cli.code, 1, cli.stderr);
  assert.equal(JSON.parse(cli.stdout).length, result.rows.length);
  assert.match(cli.stderr, new RegExp(`error on 127\\.0\\.0\\.1:${victim.port}: `));
});
