import { test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { startRedis } from './redis-server';

test('a private redis-server starts, answers, survives a restart and stops', async () => {
  const server = await startRedis();
  const client = new Redis(server.port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    assert.equal(await client.set('k', 'v'), 'OK');
    await server.restart();
    // Nothing is persisted, so the key is gone after a restart.
    assert.equal(await client.get('k'), null);
  } finally {
    client.disconnect();
    await server.stop();
  }
});
