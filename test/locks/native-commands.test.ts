// Native owner-checked commands (Valkey 9 DELIFEQ, Redis 8.4 DELEX IFEQ, SET IFEQ): the machines here
// run Redis 7 and no Valkey, so the detection and the Lua path are tested against the real Redis 7,
// and the native path by its command text and by how COMMAND INFO replies are read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks/index';
import { nativeExtendCommand, nativeReleaseCommand, nativeSupport, supportFrom } from '../../client/src/locks/native-commands';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let server: RedisProcess;
let admin: Redis;
let conn: LockConnection;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  conn = await openLockConnection({ url: server.url });
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await server?.stop();
});

test('Redis 7 has neither DELIFEQ nor DELEX: COMMAND INFO says so', async () => {
  assert.deepEqual(await admin.call('COMMAND', 'INFO', 'DELIFEQ', 'DELEX'), [null, null]);
  assert.deepEqual(await nativeSupport(admin), { extend: false });
  // A command the server has is an array entry: the reading is not vacuous.
  const known = await admin.call('COMMAND', 'INFO', 'DEL', 'GET');
  assert.deepEqual(supportFrom(known), { release: 'DELIFEQ', extend: true });
});

test('COMMAND INFO replies as Valkey 9 and Redis 8.4 give them', () => {
  const entry = ['delifeq', 3, ['write', 'fast'], 1, 1, 1];
  assert.deepEqual(supportFrom([entry, null]), { release: 'DELIFEQ', extend: true });
  assert.deepEqual(supportFrom([null, ['delex', -2, ['write'], 1, 1, 1]]), { release: 'DELEX', extend: true });
  assert.deepEqual(supportFrom([entry, ['delex']]), { release: 'DELIFEQ', extend: true }, 'Valkey first');
  assert.deepEqual(supportFrom([null, null]), { extend: false });
  assert.deepEqual(supportFrom('ERR unknown subcommand'), { extend: false });
});

test('the native command text', () => {
  assert.deepEqual(nativeReleaseCommand('DELIFEQ', 'lock:a', 'tok'), ['DELIFEQ', 'lock:a', 'tok']);
  assert.deepEqual(nativeReleaseCommand('DELEX', 'lock:a', 'tok'), ['DELEX', 'lock:a', 'IFEQ', 'tok']);
  assert.deepEqual(nativeExtendCommand('lock:a', 'tok', 30_000), ['SET', 'lock:a', 'tok', 'IFEQ', 'tok', 'PX', '30000']);
});

test('on Redis 7 release and extend take the Lua path and stay owner-checked', async () => {
  const mine = `lw1:web-1:10:${randomBytes(16).toString('hex')}`;
  await admin.set('lock:native', mine, 'PX', 30_000);
  assert.equal((await conn.release('lock:native', 'someone-else')).outcome, 'token-changed');
  assert.deepEqual(await conn.extend('lock:native', mine, 60_000), { outcome: 'extended' });
  assert.ok((await admin.pttl('lock:native')) > 30_000);
  assert.deepEqual(await conn.release('lock:native', mine), { outcome: 'released' });
  assert.equal(await admin.exists('lock:native'), 0);
});

test('a user whose ACL forbids COMMAND INFO falls back to Lua', async () => {
  await admin.call('ACL', 'SETUSER', 'nocmd', 'on', '>pw', '~lock:*', '-@all', '+type', '+get', '+eval', '+evalsha', '+del', '+pexpire', '+ping', '+info');
  const user = new Redis({ port: server.port, host: '127.0.0.1', username: 'nocmd', password: 'pw' });
  try {
    await assert.rejects(user.call('COMMAND', 'INFO', 'DEL'), /NOPERM/);
    assert.deepEqual(await nativeSupport(user), { extend: false });
  } finally {
    user.disconnect();
  }
});
