// Guarded release/extend of Redisson read-write locks, on the hash layouts Redisson itself writes (field
// "mode", one re-entry count per holder, a `{N}:<holder>:rwlock_timeout:<i>` key per read entry), against
// a real server: exactly the named holder is freed, "mode" and other non-holder fields are refused, the
// unlock message goes out only when the last holder leaves, and the CLI says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

let server: RedisProcess;
let admin: Redis;
let sub: Redis;
let conn: LockConnection;
const messages: [string, string][] = [];

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  sub = admin.duplicate();
  await sub.psubscribe('redisson_*');
  sub.on('pmessage', (_p: string, channel: string, message: string) => messages.push([channel, message]));
  conn = await openLockConnection({ url: server.url });
});

after(async () => {
  await conn?.close();
  sub?.disconnect();
  admin?.disconnect();
  await server?.stop();
});

const timeoutKey = (name: string, holder: string, i: number) => `{${name}}:${holder}:rwlock_timeout:${i}`;

/** What RedissonReadLock.lock() leaves for `readers` (holder -> timeout of each re-entry, in ms). */
async function readLock(name: string, readers: Record<string, number[]>, hashTtl: number): Promise<void> {
  await admin.hset(name, 'mode', 'read');
  for (const [holder, ttls] of Object.entries(readers)) {
    await admin.hset(name, holder, String(ttls.length));
    for (const [i, ttl] of ttls.entries()) await admin.set(timeoutKey(name, holder, i + 1), '1', 'PX', ttl);
  }
  await admin.pexpire(name, hashTtl);
}

/** Waits for a marker message of our own, so every message published before it has arrived. */
async function settled(): Promise<[string, string][]> {
  const marker = `marker-${randomUUID()}`;
  await admin.publish('redisson_marker', marker);
  await waitFor(() => messages.some(([, m]) => m === marker), 'the marker message');
  const out = messages.splice(0).filter(([c]) => c !== 'redisson_marker');
  return out;
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli.js', ...args, '--url', server.url], { env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

test('releasing one reader frees only that reader: its count and timeout keys go, the expiry follows the longest remaining timeout, no message', async () => {
  const [a, b] = [`${randomUUID()}:1`, `${randomUUID()}:7`];
  await readLock('lock:rw1', { [a]: [90_000], [b]: [20_000, 40_000] }, 90_000);
  await settled();

  assert.deepEqual(await conn.release('lock:rw1', a), { outcome: 'released', remainingHolders: 1 });
  assert.deepEqual(await admin.hgetall('lock:rw1'), { mode: 'read', [b]: '2' });
  assert.equal(await admin.exists(timeoutKey('lock:rw1', a, 1)), 0);
  assert.equal(await admin.exists(timeoutKey('lock:rw1', b, 1), timeoutKey('lock:rw1', b, 2)), 2);
  const pttl = await admin.pttl('lock:rw1');
  assert.ok(pttl <= 40_000 && pttl > 30_000, `the hash expires with b's longest timeout, not a's 90 s (PTTL ${pttl})`);
  assert.deepEqual(await settled(), [], 'waiters are not woken while a reader holds the lock');

  // The last reader: the hash goes and waiters get Redisson's unlock message on the read-write channel.
  assert.deepEqual(await conn.release('lock:rw1', b), { outcome: 'released' });
  assert.equal(await admin.exists('lock:rw1', timeoutKey('lock:rw1', b, 1), timeoutKey('lock:rw1', b, 2)), 0);
  assert.deepEqual(await settled(), [['redisson_rwlock:{lock:rw1}', '0']]);
});

test('"mode" and fields that are not re-entry counts are refused; an unknown holder is "token changed" and shows the holders counted right', async () => {
  const [a, b] = [`${randomUUID()}:1`, `${randomUUID()}:2`];
  await readLock('lock:rw2', { [a]: [60_000], [b]: [60_000] }, 60_000);
  await admin.hset('lock:rw2', 'note', 'hello');
  const before = await admin.hgetall('lock:rw2');
  await assert.rejects(conn.release('lock:rw2', 'mode'), (err: Error & { kind?: string }) => err.kind === 'not-holder' && /"mode" is the read-write lock's mode field, not a holder/.test(err.message));
  await assert.rejects(conn.extend('lock:rw2', 'mode', 1_000), (err: Error & { kind?: string }) => err.kind === 'not-holder');
  await assert.rejects(conn.release('lock:rw2', 'note'), /not a re-entry count/);
  assert.deepEqual(await admin.hgetall('lock:rw2'), before, 'nothing changed');

  const other = await conn.release('lock:rw2', `${randomUUID()}:9`);
  assert.ok(other.outcome === 'token-changed');
  assert.equal(other.currentHolder.label, '2 redisson holders (read lock)');
  assert.deepEqual(await settled(), []);
});

test('the issue\'s hash (two readers, no timeout keys): releasing a:1 keeps b:1\'s lock; --token mode is refused; the CLI says who still holds it', async () => {
  await admin.hset('lock:rw', 'mode', 'read', 'a:1', '1', 'b:1', '1');
  const refused = await cli(['release', 'lock:rw', '--token', 'mode']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Refused to release lock:rw: "mode" is the read-write lock's mode field, not a holder/);
  assert.equal(await admin.hlen('lock:rw'), 3);

  const listed = await cli(['locks', '--pattern', 'lock:rw', '--json']);
  assert.equal(JSON.parse(listed.stdout)[0].holder.label, '2 redisson holders (read lock)');

  const released = await cli(['release', 'lock:rw', '--token', 'a:1']);
  assert.equal(released.code, 0, released.stderr);
  assert.equal(released.stdout.trim(), 'released lock:rw (was held by redisson holder a:1; 1 other holder still holds it)');
  assert.deepEqual(await admin.hgetall('lock:rw'), { mode: 'read', 'b:1': '1' });
  assert.deepEqual(await settled(), []);
});

test('write lock: the writer is released with Redisson\'s read-unlock message; a writer with its own read entry leaves a read lock', async () => {
  const w = randomUUID();
  await admin.hset('lock:w1', 'mode', 'write', `${w}:3:write`, '2');
  await admin.pexpire('lock:w1', 30_000);
  assert.equal((await conn.release('lock:w1', `${w}:3`)).outcome, 'token-changed', 'the thread holds no read entry');
  assert.equal(await admin.hlen('lock:w1'), 2);
  assert.deepEqual(await conn.release('lock:w1', `${w}:3:write`), { outcome: 'released' });
  assert.equal(await admin.exists('lock:w1'), 0);
  assert.deepEqual(await settled(), [['redisson_rwlock:{lock:w1}', '1']]);

  // RedissonReadLock taken by the writer's own thread inside its write lock.
  await admin.hset('lock:w2', 'mode', 'write', `${w}:3:write`, '1', `${w}:3`, '1');
  await admin.set(timeoutKey('lock:w2', `${w}:3`, 1), '1', 'PX', 30_000);
  await admin.pexpire('lock:w2', 30_000);
  assert.deepEqual(await conn.release('lock:w2', `${w}:3:write`), { outcome: 'released', remainingHolders: 1 });
  assert.deepEqual(await admin.hgetall('lock:w2'), { mode: 'read', [`${w}:3`]: '1' });
  assert.deepEqual(await settled(), [], 'still held (by the read entry): no message');
  // A writer field in a read-mode lock is not a writer at all.
  await admin.hset('lock:w2', `${w}:3:write`, '1');
  await assert.rejects(conn.release('lock:w2', `${w}:3:write`), /names a writer but the lock is in read mode/);
  await admin.hdel('lock:w2', `${w}:3:write`);
  assert.equal(await admin.hlen('lock:w2'), 2);
});

test('extend: a reader\'s own timeout keys get the new TTL, the hash keeps the longest; the writer\'s lease is the hash expiry', async () => {
  const [a, b] = [`${randomUUID()}:1`, `${randomUUID()}:2`];
  await readLock('lock:rw3', { [a]: [10_000], [b]: [50_000] }, 50_000);
  assert.deepEqual(await conn.extend('lock:rw3', a, 80_000), { outcome: 'extended', remainingHolders: 1 });
  assert.ok((await admin.pttl(timeoutKey('lock:rw3', a, 1))) > 70_000);
  const bTtl = await admin.pttl(timeoutKey('lock:rw3', b, 1));
  assert.ok(bTtl <= 50_000 && bTtl > 40_000, 'the other reader is not extended');
  assert.ok((await admin.pttl('lock:rw3')) > 70_000, 'the hash lives as long as its longest reader');
  // Extending a to less than b keeps the hash alive for b.
  assert.deepEqual(await conn.extend('lock:rw3', a, 5_000), { outcome: 'extended', remainingHolders: 1 });
  const hashTtl = await admin.pttl('lock:rw3');
  assert.ok(hashTtl > 40_000, `b still holds it for ~50 s (hash PTTL ${hashTtl})`);

  const w = `${randomUUID()}:4:write`;
  await admin.hset('lock:w3', 'mode', 'write', w, '1');
  await admin.pexpire('lock:w3', 5_000);
  assert.deepEqual(await conn.extend('lock:w3', w, 60_000), { outcome: 'extended' });
  assert.ok((await admin.pttl('lock:w3')) > 50_000);
  assert.equal((await conn.extend('lock:w3', `${randomUUID()}:4:write`, 60_000)).outcome, 'token-changed');
});
