// Sentinel with one master: the master is found through the sentinel by name, listed and released like a
// single server; a wrong master name is explained.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import Redis from 'ioredis';
import { openLockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { startSentinel, type SentinelProcess } from '../helpers/redis-sentinel';

let master: RedisProcess;
let sentinel: SentinelProcess;

before(async () => {
  master = await startRedis();
  sentinel = await startSentinel(master.port, 'locks-primary');
});

after(async () => {
  await sentinel?.stop();
  await master?.stop();
});

test('the master is found by name through the sentinel; listing and guarded release work', async () => {
  const admin = new Redis(master.port, '127.0.0.1');
  await admin.set('lock:via-sentinel', 'lw1:db-1:5:ffeeddccbbaa99887766554433221100', 'PX', 30_000);
  const conn = await openLockConnection({ sentinel: { sentinels: [`127.0.0.1:${sentinel.port}`], name: 'locks-primary' } });
  try {
    assert.equal(conn.target, `sentinel locks-primary via 127.0.0.1:${sentinel.port}`);
    const result = await conn.list();
    assert.deepEqual(result.rows.map((r) => [r.key, r.holder.label]), [['lock:via-sentinel', 'db-1 pid 5']]);
    const cli = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['dist/cli.js', 'locks', '--sentinel', `127.0.0.1:${sentinel.port}`, '--name', 'locks-primary'], (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    assert.match(cli, /^lock:via-sentinel\s+string\s+[\d.]+ s\s+held\s+db-1 pid 5/m);
    assert.deepEqual(await conn.release('lock:via-sentinel', 'lw1:db-1:5:ffeeddccbbaa99887766554433221100'), { outcome: 'released' });
    assert.equal(await admin.exists('lock:via-sentinel'), 0);
  } finally {
    await conn.close();
    admin.disconnect();
  }
});

test('a master name the sentinel does not know is explained', async () => {
  await assert.rejects(
    openLockConnection({ sentinel: { sentinels: [`127.0.0.1:${sentinel.port}`], name: 'no-such-master' }, connectTimeoutMs: 1000 }),
    (err: Error & { kind?: string }) => {
      assert.equal(err.kind, 'sentinel', err.message);
      assert.match(err.message, /no-such-master/);
      return true;
    },
  );
});
