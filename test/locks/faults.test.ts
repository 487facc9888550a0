// Faults against real servers: every connection failure is explained (what failed, what to check) and
// never shows the password; a server killed during a refresh gives a clear error, commands fail fast
// while it is down, and the connection recovers by itself after a restart.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import Redis from 'ioredis';
import { openLockConnection, type ConnectionStateEvent } from '../../client/src/locks/index';
import { freePort } from '../helpers/free-port';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

const password = 'pa55-Secret-Sauce';
let secured: RedisProcess;

before(async () => {
  secured = await startRedis({ args: ['--requirepass', password] });
});

after(async () => {
  await secured?.stop();
});

type Kinded = Error & { kind?: string };
const rejectsWith = async (p: Promise<unknown>, kind: string, text: RegExp) => {
  await assert.rejects(p, (err: Kinded) => {
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, text);
    assert.ok(!err.message.includes(password) && !String(err.stack).includes(password), 'no password in the error');
    return true;
  });
};

test('refused connection, unknown host, wrong password and missing password are each explained', async () => {
  const closed = await freePort();
  await rejectsWith(openLockConnection({ url: `redis://127.0.0.1:${closed}` }), 'refused', /Connection refused by 127\.0\.0\.1:\d+\. Check that Redis is running/);
  await rejectsWith(openLockConnection({ url: 'redis://no-such-host.invalid:6379' }), 'dns', /Cannot resolve the host name "no-such-host\.invalid"/);
  await rejectsWith(openLockConnection({ url: `redis://:wrong-${password}@127.0.0.1:${secured.port}` }), 'auth', /Authentication failed for user "default".*Check the user name and the password/);
  await rejectsWith(openLockConnection({ url: `redis://127.0.0.1:${secured.port}` }), 'noauth', /requires a password and none was sent/);
  await rejectsWith(openLockConnection({ url: `redis://127.0.0.1:${secured.port}/99`, password }), 'config', /database number does not exist/);
  const ok = await openLockConnection({ url: `redis://:${encodeURIComponent(password)}@127.0.0.1:${secured.port}` });
  assert.ok(!ok.target.includes(password));
  await ok.close();
});

test('a server that accepts but never answers is a timeout, reported within the timeouts', async () => {
  const sockets: Socket[] = [];
  const silent: Server = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as { port: number }).port;
  try {
    const started = Date.now();
    await rejectsWith(openLockConnection({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300, commandTimeoutMs: 300 }), 'timeout', /did not answer in time/);
    assert.ok(Date.now() - started < 3000, 'bounded by the timeouts');
  } finally {
    sockets.forEach((s) => s.destroy());
    await new Promise((r) => silent.close(r));
  }
});

test('server killed during a refresh: clear error, fast failures while down, recovery after restart', async () => {
  const server = await startRedis();
  const admin = new Redis(server.port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  admin.on('error', () => undefined);
  await admin.connect();
  const pipe = admin.pipeline();
  for (let i = 0; i < 3000; i++) pipe.set(`lock:k${i}`, `v${i}`, 'PX', 60_000);
  await pipe.exec();
  const conn = await openLockConnection({ url: server.url });
  const events: ConnectionStateEvent[] = [];
  conn.onStateChange((e) => events.push(e));
  try {
    // A slow listing (small batches, a pause between them) so the kill lands in the middle of it.
    const listing = conn.list({ count: 10, pauseMs: 2, patterns: ['lock:*'] });
    listing.catch(() => undefined); // asserted below, after the kill
    await waitFor(async () => /cmdstat_scan:calls=([1-9]\d)/.test(await admin.info('commandstats')), 'the listing to be under way');
    await server.kill();
    await rejectsWith(listing, 'disconnected', /(Lost the connection to|Not connected to) Redis at redis:\/\/127\.0\.0\.1:\d+\/0/);

    const t = Date.now();
    await assert.rejects(conn.list(), (err: Kinded) => err.kind === 'disconnected' || err.kind === 'refused');
    assert.ok(Date.now() - t < 1000, 'fails fast while disconnected');
    assert.ok(events.some((e) => e.status === 'reconnecting'), 'the state listener heard about it');

    await server.restart();
    const recovered = await waitFor(async () => conn.list(), 'the connection to recover', { timeoutMs: 15_000 });
    assert.equal(recovered.partial, false);
    assert.equal(events.at(-1)?.status, 'ready');
  } finally {
    admin.disconnect();
    await conn.close();
    await server.stop();
  }
});
