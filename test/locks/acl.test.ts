// The least-privilege ACL rules the README quotes, applied to a real server: browsing works, KEYS and
// writes are refused by the server (so Lockwise provably never sends KEYS), and the release rules add
// exactly what the guarded scripts need.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { BROWSE_ACL_RULES, RELEASE_ACL_RULES, openLockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { seedAllFormats, type Seeded } from './seed';

let server: RedisProcess;
let admin: Redis;
let seeded: Seeded;
const password = `pw-${randomBytes(8).toString('hex')}`;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  seeded = await seedAllFormats(admin);
  await admin.call('ACL', 'SETUSER', 'browser', 'on', `>${password}`, ...BROWSE_ACL_RULES.split(' '));
  await admin.call('ACL', 'SETUSER', 'releaser', 'on', `>${password}`, ...BROWSE_ACL_RULES.split(' '), ...RELEASE_ACL_RULES.split(' '));
});

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

test('a user with only the browse rules lists every seeded lock; KEYS, SET and EVAL are refused by the server', async () => {
  const conn = await openLockConnection({ url: server.url, username: 'browser', password });
  try {
    const result = await conn.list();
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.rows.map((r) => r.key).sort(), seeded.locks.map((l) => l.key).sort());
    assert.equal(result.rows.find((r) => r.key === 'lock:orders')?.fence?.value, '17', 'fence keys are readable');
    assert.equal(result.rows.find((r) => r.key === 'lock:redisson')?.fence?.value, '5');

    // A pattern reaching keys the ACL does not cover: those keys are reported, the rest is still listed.
    const wider = await conn.list({ patterns: ['lock:*', 'session:*'] });
    assert.equal(wider.partial, true);
    assert.equal(wider.rows.length, seeded.locks.filter((l) => l.key.startsWith('lock:')).length);
    assert.match(wider.errors[0]!.message, /user "browser" was denied by an ACL rule/);

    const lock = seeded.locks.find((l) => l.key === 'lock:orders')!;
    await assert.rejects(conn.release(lock.key, lock.token), (err: Error & { kind?: string }) => {
      assert.equal(err.kind, 'noperm');
      assert.match(err.message, /user "browser" may not run EVALSHA/);
      assert.ok(!err.message.includes(password));
      return true;
    });
    assert.equal(await admin.get(lock.key), lock.token);
  } finally {
    await conn.close();
  }

  const raw = new Redis(server.port, '127.0.0.1', { username: 'browser', password });
  try {
    await assert.rejects(raw.keys('*'), /NOPERM.*'keys'/);
    await assert.rejects(raw.set('lock:orders', 'stolen'), /NOPERM.*'set'/);
    await assert.rejects(raw.eval("return redis.call('DEL', KEYS[1])", 1, 'lock:orders'), /NOPERM/);
    // The listing's read-only scripts are allowed; a write inside one is refused all the same.
    await assert.rejects(raw.call('EVAL_RO', "return redis.call('DEL', KEYS[1])", 1, 'lock:orders'), /can't run this command|Write commands are not allowed/);
    await assert.rejects(raw.get('session:abc'), /NOPERM/, 'keys outside the lock patterns are not readable');
  } finally {
    raw.disconnect();
  }
});

test('with the release rules added, guarded release works for every lock shape', async () => {
  const conn = await openLockConnection({ url: server.url, username: 'releaser', password });
  try {
    for (const lock of seeded.locks) {
      const result = await conn.release(lock.key, lock.token);
      assert.deepEqual(result, { outcome: 'released' }, lock.key);
    }
    assert.equal((await conn.list()).rows.length, 0);
    await admin.set('lock:other', randomUUID());
    assert.equal((await conn.extend('lock:other', 'stale', 1000)).outcome, 'token-changed');
  } finally {
    await conn.close();
  }
  const raw = new Redis(server.port, '127.0.0.1', { username: 'releaser', password });
  try {
    await assert.rejects(raw.keys('*'), /NOPERM/);
    await assert.rejects(raw.set('lock:other', 'x'), /NOPERM/, 'plain writes stay refused: only the scripts write');
  } finally {
    raw.disconnect();
  }
});
