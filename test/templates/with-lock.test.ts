// withLock's behaviour against a real redis-server, once with ioredis and once with node-redis.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  LockBusyError,
  LockLostError,
  LockReleaseError,
  parseLockToken,
  withLock,
} from '../../rules/templates/with-lock';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { aborted, libraries, withDeadline, type TestClient } from './clients';

for (const library of libraries) {
  describe(`withLock with ${library.name}`, () => {
    let server: RedisProcess;
    let client: TestClient; // the client withLock uses
    let other: TestClient; // plays everyone else: inspects keys, holds and steals locks
    let keys = 0;
    const freshKey = () => `lock:${library.name}:${++keys}`;

    before(async () => {
      server = await startRedis();
      client = await library.connect(server.port);
      other = await library.connect(server.port);
    });
    after(async () => {
      await client?.close();
      await other?.close();
      await server?.stop();
    });

    test('holds the lock with a decodable token while work runs, returns its value, releases', async () => {
      const key = freshKey();
      const value = await withLock(client.lock, key, { ttlMs: 5000 }, async (signal, lock) => {
        assert.equal(await other.get(key), lock.token);
        assert.equal(parseLockToken(lock.token)?.pid, process.pid);
        const pttl = await other.pttl(key);
        assert.ok(pttl > 4000 && pttl <= 5000, `PTTL ${pttl}`);
        assert.equal(lock.fence, undefined);
        assert.equal(signal.aborted, false);
        return 42;
      });
      assert.equal(value, 42);
      assert.equal(await other.get(key), null);
    });

    test('waitMs 0 tries one SET and throws LockBusyError without running work', async () => {
      const key = freshKey();
      await other.set(key, 'held-by-someone', 10_000);
      const setsBefore = await other.commandCalls('set');
      let ran = false;
      await assert.rejects(
        withLock(client.lock, key, { ttlMs: 1000 }, async () => (ran = true)),
        (err: unknown) => err instanceof LockBusyError && err.key === key,
      );
      assert.equal((await other.commandCalls('set')) - setsBefore, 1);
      assert.equal(ran, false);
      assert.equal(await other.get(key), 'held-by-someone');
    });

    test('LockBusyError comes after waitMs, not before, after several backed-off attempts', async () => {
      const key = freshKey();
      await other.set(key, 'held-by-someone', 10_000);
      const setsBefore = await other.commandCalls('set');
      const waitMs = 400;
      const started = performance.now();
      const error = await withLock(client.lock, key, { ttlMs: 1000, waitMs, retryDelayMs: 20 }, async () => 'ran')
        .then(() => assert.fail('acquired a held lock'), (err: unknown) => err);
      const elapsed = performance.now() - started;
      assert.ok(error instanceof LockBusyError, String(error));
      assert.ok(elapsed >= waitMs, `gave up after ${elapsed} ms`);
      assert.ok(error.waitedMs >= waitMs && error.waitedMs <= Math.ceil(elapsed), `waitedMs ${error.waitedMs}`);
      assert.ok(elapsed < waitMs + 300, `gave up only after ${elapsed} ms`);
      const attempts = (await other.commandCalls('set')) - setsBefore;
      // Backoff 20, 40, 80, 160 ms (each at least half that): between 3 and 12 attempts in 400 ms.
      assert.ok(attempts >= 3 && attempts <= 12, `${attempts} attempts`);
    });

    test('waits for a lock that frees up within waitMs', async () => {
      const key = freshKey();
      await other.set(key, 'held-by-someone', 300);
      const started = performance.now();
      const options = { ttlMs: 1000, waitMs: 5000, maxRetryDelayMs: 100 };
      const value = await withLock(client.lock, key, options, async (_signal, lock) => {
        assert.equal(await other.get(key), lock.token);
        return 'ran';
      });
      assert.equal(value, 'ran');
      assert.ok(performance.now() - started >= 250, 'acquired before the holder expired');
    });

    test('renews the lock while work runs past its TTL', async (t) => {
      const key = freshKey();
      const ttlMs = 300;
      const started = performance.now();
      await withLock(client.lock, key, { ttlMs }, async (signal, lock) => {
        const evalsBefore = await other.commandCalls('eval');
        await waitFor(async () => (await other.commandCalls('eval')) >= evalsBefore + 6, 'six renewals');
        t.diagnostic(`held for ${Math.round(performance.now() - started)} ms with ttlMs ${ttlMs}`);
        assert.ok(performance.now() - started > 1.5 * ttlMs);
        assert.equal(await other.get(key), lock.token);
        assert.ok((await other.pttl(key)) > 0);
        assert.equal(signal.aborted, false);
      });
      assert.equal(await other.get(key), null);
    });

    test('the key deleted from outside aborts the signal within one renewal period', async (t) => {
      const key = freshKey();
      const ttlMs = 900;
      const renewalPeriod = ttlMs / 3;
      let latency = 0;
      let renewals = 0;
      const run = withLock(client.lock, key, { ttlMs }, async (signal) => {
        const evalsBefore = await other.commandCalls('eval');
        await other.del(key);
        const deleted = performance.now();
        await withDeadline(aborted(signal), 5000, 'the signal to abort');
        latency = performance.now() - deleted;
        renewals = (await other.commandCalls('eval')) - evalsBefore;
        signal.throwIfAborted();
      });
      await assert.rejects(run, (err: unknown) => err instanceof LockLostError && err.kind === 'expired');
      t.diagnostic(`abort ${Math.round(latency)} ms after the DEL (renewal period ${renewalPeriod} ms)`);
      // The first renewal after the DEL is the one that notices; the timing allows for a busy machine.
      assert.equal(renewals, 1);
      assert.ok(latency <= renewalPeriod + 150, `aborted ${latency} ms after the DEL`);
    });

    test("release never deletes another holder's lock, and reports the loss", async () => {
      const key = freshKey();
      let signal: AbortSignal | undefined;
      const run = withLock(client.lock, key, { ttlMs: 5000 }, async (s) => {
        signal = s;
        await other.set(key, 'someone-else', 5000); // as if ours expired and someone took it
        return 'done';
      });
      const error = await run.then(() => assert.fail('resolved after losing the lock'), (err: unknown) => err);
      assert.ok(error instanceof LockLostError && error.kind === 'taken', String(error));
      assert.equal(signal?.reason, error);
      assert.equal(await other.get(key), 'someone-else');
    });

    test('a lock that expired during work is reported, not silently ignored', async () => {
      const key = freshKey();
      const run = withLock(client.lock, key, { ttlMs: 5000 }, async () => {
        await other.del(key);
        return 'done';
      });
      await assert.rejects(run, (err: unknown) => err instanceof LockLostError && err.kind === 'expired');
    });

    test('fencing: one script sets the lock and bumps {key}:fence; fences only grow', async () => {
      const key = freshKey();
      const first = await withLock(client.lock, key, { ttlMs: 1000, fencing: true }, async (_s, lock) => lock.fence);
      const second = await withLock(client.lock, key, { ttlMs: 1000, fencing: true }, async (_s, lock) => {
        assert.equal(await other.get(key), lock.token);
        return lock.fence;
      });
      assert.equal(first, 1);
      assert.equal(second, 2);
      assert.equal(await other.get(`{${key}}:fence`), '2');

      const tagged = `lock:{${library.name}}:order`;
      await withLock(client.lock, tagged, { ttlMs: 1000, fencing: true }, async () => {});
      assert.equal(await other.get(`${tagged}:fence`), '1');
      await withLock(client.lock, tagged, { ttlMs: 1000, fencing: true, fenceKey: `${key}:custom` }, async () => {});
      assert.equal(await other.get(`${key}:custom`), '1');
    });

    test('a busy fenced acquire leaves the fence counter alone', async () => {
      const key = freshKey();
      await other.set(key, 'held-by-someone', 10_000);
      await assert.rejects(withLock(client.lock, key, { ttlMs: 1000, fencing: true }, async () => {}), LockBusyError);
      assert.equal(await other.get(`{${key}}:fence`), null);
    });

    test('renew: false never renews; the signal aborts before the TTL runs out', async () => {
      const key = freshKey();
      const ttlMs = 600;
      const evalsBefore = await other.commandCalls('eval');
      let abortedAfter = 0;
      const run = withLock(client.lock, key, { ttlMs, renew: false }, async (signal) => {
        const started = performance.now();
        await withDeadline(aborted(signal), 5000, 'the signal to abort');
        abortedAfter = performance.now() - started;
        assert.equal((await other.commandCalls('eval')) - evalsBefore, 0);
        assert.ok((await other.pttl(key)) > 0, 'the lock expired before the signal aborted');
        signal.throwIfAborted();
      });
      await assert.rejects(run, (err: unknown) => err instanceof LockLostError && err.kind === 'unconfirmed');
      assert.ok(abortedAfter >= (ttlMs * 5) / 6 - 50 && abortedAfter < ttlMs, `aborted after ${abortedAfter} ms`);
    });

    test('failing renewals abort the signal before the lock may expire, and never throw', async () => {
      const own = await library.connect(server.port);
      const key = freshKey();
      const ttlMs = 600;
      let abortedAfter = 0;
      const run = withLock(own.lock, key, { ttlMs }, async (signal) => {
        const started = performance.now();
        await own.close(); // every renewal from now on fails with a client error
        await withDeadline(aborted(signal), 5000, 'the signal to abort');
        abortedAfter = performance.now() - started;
        signal.throwIfAborted();
      });
      const error = await run.then(() => assert.fail('resolved'), (err: unknown) => err);
      assert.ok(error instanceof LockLostError && error.kind === 'unconfirmed', String(error));
      assert.ok(error.cause instanceof Error, 'the last renewal error is the cause');
      assert.ok(abortedAfter < ttlMs, `aborted only after ${abortedAfter} ms`);
      assert.ok((await other.pttl(key)) > 0, 'the lock had not expired yet');
    });

    test("a release error never hides work's error, and reaches onReleaseError", async () => {
      const own = await library.connect(server.port);
      const key = freshKey();
      const workError = new Error('work failed');
      const reported: unknown[] = [];
      const run = withLock(own.lock, key, { ttlMs: 5000, onReleaseError: (e) => reported.push(e) }, async () => {
        await own.close();
        throw workError;
      });
      await assert.rejects(run, (err: unknown) => err === workError);
      assert.equal(reported.length, 1);
      assert.ok(reported[0] instanceof LockReleaseError && reported[0].cause instanceof Error, String(reported[0]));
      assert.ok((await other.pttl(key)) > 0, 'the unreleased lock keeps its TTL');
    });

    test('a release error after successful work: LockReleaseError, or the value with onReleaseError', async () => {
      const first = await library.connect(server.port);
      const closeInWork = (c: TestClient) => async () => {
        await c.close();
        return 'value';
      };
      await assert.rejects(withLock(first.lock, freshKey(), { ttlMs: 5000 }, closeInWork(first)), LockReleaseError);

      const second = await library.connect(server.port);
      const reported: unknown[] = [];
      const options = { ttlMs: 5000, onReleaseError: (e: LockReleaseError) => reported.push(e) };
      assert.equal(await withLock(second.lock, freshKey(), options, closeInWork(second)), 'value');
      assert.equal(reported.length, 1);
    });

    test('Redis restarted during work ends in LockLostError, not a hang', async (t) => {
      const own = await startRedis();
      const ownClient = await library.connect(own.port);
      try {
        let restartedAt = 0;
        const run = withLock(ownClient.lock, freshKey(), { ttlMs: 600 }, async (signal) => {
          await own.restart();
          restartedAt = performance.now();
          await aborted(signal);
          signal.throwIfAborted();
        });
        await assert.rejects(withDeadline(run, 10_000, 'withLock to settle'), LockLostError);
        t.diagnostic(`settled ${Math.round(performance.now() - restartedAt)} ms after the restart`);
      } finally {
        await ownClient.close();
        await own.stop();
      }
    });

    test('bad arguments are rejected before Redis is touched', async () => {
      const callsBefore = (await other.commandCalls('set')) + (await other.commandCalls('eval'));
      const run = (key: string, options: Parameters<typeof withLock>[2]) =>
        withLock(client.lock, key, options, async () => {});
      await assert.rejects(run('k', { ttlMs: 0 }), RangeError);
      await assert.rejects(run('k', { ttlMs: 1.5 }), RangeError);
      await assert.rejects(run('k', { ttlMs: 1000, waitMs: -1 }), RangeError);
      await assert.rejects(run('k', { ttlMs: 1000, waitMs: Number.NaN }), RangeError);
      await assert.rejects(run('', { ttlMs: 1000 }), TypeError);
      await assert.rejects(run('k', { ttlMs: 1000, fenceKey: 'f' }), TypeError);
      await assert.rejects(run('a}b', { ttlMs: 1000, fencing: true }), TypeError);
      assert.equal((await other.commandCalls('set')) + (await other.commandCalls('eval')), callsBefore);
    });
  });
}
