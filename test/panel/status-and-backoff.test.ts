// The status bar text (connection state at a glance, problems first) and the reconnect backoff.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type ListResult } from '../../client/src/locks';
import { backoffDelay, BACKOFF_BASE_MS, BACKOFF_MAX_MS } from '../../client/src/panel/backoff';
import type { ConnectionView } from '../../client/src/panel/panel-state';
import { statusText } from '../../client/src/panel/status-text';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let redis: RedisProcess;
let result: ListResult;

before(async () => {
  redis = await startRedis();
  const client = new Redis(redis.port, '127.0.0.1');
  await client.set('lock:a', 'a-1', 'PX', 60_000);
  await client.set('lock:b', 'b-1');
  client.disconnect();
  const core = await openLockConnection({ url: redis.url });
  result = await core.list();
  await core.close();
});

after(async () => {
  await redis?.stop();
});

const conn = (label: string, status: ConnectionView['status'], withRows: boolean): ConnectionView => ({
  target: { id: label, label, kind: 'url' },
  status,
  listing: withRows ? { result, readAt: Date.now() } : undefined,
  writable: true,
});

test('status bar: hidden when not browsing; lock count and locks without expiry; disconnection wins', () => {
  assert.equal(statusText([conn('a', { phase: 'connected' }, true)], false), undefined);
  const ok = statusText([conn('a', { phase: 'connected' }, true)], true)!;
  assert.equal(ok.text, '$(lock) Redis: 2 locks $(warning) 1 without expiry');
  assert.equal(ok.severity, 'warning');
  const down = statusText([conn('a', { phase: 'connected' }, true), conn('b', { phase: 'reconnecting', error: 'Connection refused.' }, false)], true)!;
  assert.equal(down.text, '$(debug-disconnect) Redis: 1 of 2 disconnected');
  assert.match(down.tooltip, /b: reconnecting \(Connection refused\.\)/);
  assert.equal(statusText([conn('a', { phase: 'connecting' }, false)], true)!.text, '$(loading~spin) Redis: connecting');
  const refused = statusText([conn('a', { phase: 'auth-failed', error: 'Authentication failed for user "default".' }, false)], true)!;
  assert.deepEqual([refused.text, refused.severity], ['$(debug-disconnect) Redis: disconnected', 'warning']);
  const odd = statusText([conn('a', { phase: 'reconnecting', error: 'ERR \x1b[2Jbad' }, false)], true)!;
  assert.match(odd.tooltip, /a: reconnecting \(ERR \\x1b\[2Jbad\)/);
});

test('backoff grows from 1 s, is capped at 30 s, and is jittered downwards by at most a quarter', () => {
  assert.equal(backoffDelay(1, 0.999999), BACKOFF_BASE_MS);
  assert.equal(backoffDelay(1, 0), 0.75 * BACKOFF_BASE_MS);
  assert.equal(backoffDelay(3, 0.999999), 4 * BACKOFF_BASE_MS);
  assert.equal(backoffDelay(50, 0.999999), BACKOFF_MAX_MS);
  for (let attempt = 1; attempt < 12; attempt++) {
    assert.ok(backoffDelay(attempt + 1, 0.5) >= backoffDelay(attempt, 0.5), `attempt ${attempt + 1} waits at least as long`);
  }
});
