// The helper "Convert to withLock" creates, per config "server", run against a real redis-server 7 with
// both client libraries: for "redis" it locks, renews and releases with Lua. Redis 7 has none of the
// native owner-checked commands, so for "redis-8.4" and "valkey-9" the server's own refusal shows
// which command the helper sent: DELEX or DELIFEQ to release, SET ... IFEQ to renew.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { aborted, libraries, withDeadline, type TestClient } from './clients';
import { createdHelper, removeCreatedHelpers } from './created-helper';

let redis: RedisProcess;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
  removeCreatedHelpers();
});

for (const library of libraries) {
  describe(`the created helper with ${library.name}`, () => {
    let client: TestClient;
    let other: TestClient;
    let keys = 0;
    const freshKey = () => `lock:server-${library.name}:${++keys}`;

    before(async () => {
      client = await library.connect(redis.port);
      other = await library.connect(redis.port);
    });
    after(async () => {
      await client?.close();
      await other?.close();
    });

    test('"redis": locks, renews past its TTL and releases with Lua', async () => {
      const { withLock } = await createdHelper('redis');
      const key = freshKey();
      const evalsBefore = await other.commandCalls('eval');
      const value = await withLock(client.lock, key, { ttlMs: 300 }, async (signal, lock) => {
        assert.equal(await other.get(key), lock.token);
        await waitFor(async () => (await other.commandCalls('eval')) >= evalsBefore + 3, 'three renewals');
        assert.equal(await other.get(key), lock.token, 'still ours past its TTL');
        assert.equal(signal.aborted, false);
        return 'done';
      });
      assert.equal(value, 'done');
      assert.equal(await other.get(key), null, 'released');
      assert.equal(await other.commandCalls('delifeq'), 0);
    });

    for (const [server, command] of [['redis-8.4', 'DELEX'], ['valkey-9', 'DELIFEQ']] as const) {
      test(`"${server}": acquires with SET NX PX and releases with ${command}`, async () => {
        const { withLock, LockReleaseError } = await createdHelper(server);
        const key = freshKey();
        const evalsBefore = await other.commandCalls('eval');
        const run = withLock(client.lock, key, { ttlMs: 5000, renew: false }, async (_signal, lock) => {
          assert.equal(await other.get(key), lock.token);
          return 'done';
        });
        const error = await run.then(() => assert.fail(`${command} does not exist on Redis 7`), (err: unknown) => err);
        assert.ok(error instanceof LockReleaseError, String(error));
        assert.match(String((error.cause as Error).message), new RegExp(`unknown command '${command}'`, 'i'));
        assert.equal(await other.commandCalls('eval'), evalsBefore, 'no Lua script ran');
        await other.del(key);
      });

      test(`"${server}": renews with SET ... IFEQ ... PX`, async () => {
        const { withLock, LockLostError } = await createdHelper(server);
        const key = freshKey();
        const run = withLock(client.lock, key, { ttlMs: 300 }, async (signal) => {
          await withDeadline(aborted(signal), 5000, 'the signal to abort');
          signal.throwIfAborted();
        });
        const error = await run.then(() => assert.fail('the renewals cannot succeed on Redis 7'), (err: unknown) => err);
        // No renewal succeeded: Redis 7's SET has no IFEQ, so it refused every one.
        assert.ok(error instanceof LockLostError && error.kind === 'unconfirmed', String(error));
        assert.match(String((error.cause as Error).message), /syntax error/i);
        await other.del(key);
      });
    }
  });
}
