// Guarded release and extend against a real server, for every lock shape: string, python-redis-lock
// (signal list), Redisson hash (unlock message), redis-semaphore zset (one member only); token changed,
// gone, read-only refusal before anything is sent, and the audit records.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { formatAuditLine, openLockConnection, type AuditRecord, type LockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

let server: RedisProcess;
let admin: Redis;
let conn: LockConnection;
const audit: AuditRecord[] = [];

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  conn = await openLockConnection({ url: server.url });
  conn.onAudit((r) => audit.push(r));
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await server?.stop();
});

test('string lock: released only with its token; a changed token names the new holder and deletes nothing', async () => {
  const mine = `lw1:web-1:10:${randomBytes(16).toString('hex')}`;
  const theirs = `lw1:web-2:20:${randomBytes(16).toString('hex')}`;
  await admin.set('lock:a', theirs, 'PX', 30_000);

  const refused = await conn.release('lock:a', mine);
  assert.equal(refused.outcome, 'token-changed');
  assert.ok(refused.outcome === 'token-changed' && refused.currentHolder.label === 'web-2 pid 20' && refused.currentRaw === theirs);
  assert.equal(await admin.get('lock:a'), theirs);

  assert.deepEqual(await conn.release('lock:a', theirs), { outcome: 'released' });
  assert.equal(await admin.exists('lock:a'), 0);
  assert.deepEqual(await conn.release('lock:a', theirs), { outcome: 'gone' });

  const last = audit.at(-3)!;
  assert.equal(last.result, 'token-changed');
  assert.equal(last.oldHolder.label, 'web-1 pid 10');
  assert.equal(last.currentHolder?.label, 'web-2 pid 20');
  assert.match(formatAuditLine(audit.at(-2)!), /release lock:a on redis:\/\/127\.0\.0\.1:\d+\/0 \(holder web-2 pid 20, token lw1:web-2:20:[0-9a-f]{32}\): released/);
  assert.equal(audit.at(-1)!.result, 'gone');
});

test('extend sets the new TTL only while the token matches', async () => {
  await admin.set('lock:e', 'tok-1', 'PX', 5_000);
  assert.deepEqual(await conn.extend('lock:e', 'tok-1', 60_000), { outcome: 'extended' });
  assert.ok((await admin.pttl('lock:e')) > 50_000);
  const changed = await conn.extend('lock:e', 'tok-0', 1_000);
  assert.equal(changed.outcome, 'token-changed');
  assert.ok((await admin.pttl('lock:e')) > 50_000, 'TTL untouched');
  assert.deepEqual(await conn.extend('lock:nope', 'tok-1', 1_000), { outcome: 'gone' });
  assert.equal(audit.at(-3)!.ttlMs, 60_000);
  // A type the scripts do not know is refused with an explanation, not guessed at.
  await admin.rpush('lock:list', 'x');
  await assert.rejects(conn.release('lock:list', 'x'), /is a list/);
});

test('python-redis-lock: release also pushes the signal list its waiters block on', async () => {
  const token = randomBytes(18).toString('base64');
  await admin.set('lock:py', token);
  const waiter = admin.duplicate();
  try {
    const woken = waiter.blpop('lock-signal:py', 5);
    assert.deepEqual(await conn.release('lock:py', token), { outcome: 'released' });
    assert.deepEqual(await woken, ['lock-signal:py', '1']);
    assert.equal(await admin.exists('lock:py'), 0);
  } finally {
    waiter.disconnect();
  }
});

test('Redisson hash: checks the holder field, deletes, and publishes the unlock message on the right channel', async () => {
  const field = `${randomUUID()}:42`;
  const rwField = `${randomUUID()}:7:write`;
  await admin.hset('lock:rs', field, '1');
  await admin.hset('lock:rs-rw', 'mode', 'write', rwField, '1');
  const sub = admin.duplicate();
  const messages: [string, string][] = [];
  try {
    await sub.subscribe('redisson_lock__channel:{lock:rs}', 'redisson_rwlock:{lock:rs-rw}');
    sub.on('message', (channel: string, message: string) => messages.push([channel, message]));

    const wrong = await conn.release('lock:rs', `${randomUUID()}:1`);
    assert.ok(wrong.outcome === 'token-changed' && wrong.currentHolder.token === field);
    assert.equal(await admin.exists('lock:rs'), 1);

    assert.deepEqual(await conn.extend('lock:rs', field, 40_000), { outcome: 'extended' });
    assert.ok((await admin.pttl('lock:rs')) > 30_000);
    assert.deepEqual(await conn.release('lock:rs', field), { outcome: 'released' });
    assert.deepEqual(await conn.release('lock:rs-rw', rwField), { outcome: 'released' });
    await waitFor(() => messages.length === 2, 'both unlock messages');
    assert.deepEqual(messages, [
      ['redisson_lock__channel:{lock:rs}', '0'],
      // The write lock's unlock wakes readers and writers alike: Redisson's READ_UNLOCK_MESSAGE.
      ['redisson_rwlock:{lock:rs-rw}', '1'],
    ]);
  } finally {
    sub.disconnect();
  }
});

test('redis-semaphore zset: removes only the presented member; extend refreshes its score', async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  await admin.zadd('semaphore:s', 1000, a, 2000, b);
  assert.deepEqual(await conn.extend('semaphore:s', a, 30_000), { outcome: 'extended' });
  assert.ok(Number(await admin.zscore('semaphore:s', a)) > Date.now() - 60_000, 'score is now the server time');
  assert.ok((await admin.pttl('semaphore:s')) > 20_000);
  assert.deepEqual(await conn.release('semaphore:s', a), { outcome: 'released' });
  assert.deepEqual(await admin.zrange('semaphore:s', 0, '-1'), [b]);
  const again = await conn.release('semaphore:s', a);
  assert.ok(again.outcome === 'token-changed' && again.currentHolder.token === b);
});

test('a read-only connection refuses release and extend before sending anything', async () => {
  await admin.set('lock:ro', 'tok', 'PX', 30_000);
  const ro = await openLockConnection({ url: server.url, readOnly: true });
  const records: AuditRecord[] = [];
  ro.onAudit((r) => records.push(r));
  const monitor = await admin.monitor();
  const seen: string[] = [];
  monitor.on('monitor', (_t: string, args: string[]) => seen.push(String(args[0]).toLowerCase()));
  try {
    await assert.rejects(ro.release('lock:ro', 'tok'), (err: Error & { kind?: string }) => err.kind === 'read-only' && /read-only/.test(err.message));
    await assert.rejects(ro.extend('lock:ro', 'tok', 1000), (err: Error & { kind?: string }) => err.kind === 'read-only');
    await admin.set('lock:ro-marker', '1');
    await waitFor(() => seen.includes('set'), 'MONITOR to catch up');
  } finally {
    monitor.disconnect();
    await ro.close();
  }
  assert.deepEqual(seen, ['set'], 'nothing but our own marker reached the server');
  assert.equal(await admin.get('lock:ro'), 'tok');
  assert.deepEqual(records.map((r) => r.result), ['error', 'error']);
});
