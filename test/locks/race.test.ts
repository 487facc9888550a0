// The race the guarded release exists for: while one client keeps re-acquiring the key with fresh tokens,
// 10,000 guarded releases presenting tokens that were already replaced must delete nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { openLockConnection } from '../../client/src/locks/index';
import { startRedis } from '../helpers/redis-server';

const RELEASES = 10_000;
const CONCURRENCY = 50;
const token = () => `lw1:worker:1:${randomBytes(16).toString('hex')}`;

test('10,000 stale-token releases racing fresh re-acquisitions: 0 wrong deletions', async () => {
  const server = await startRedis();
  const acquirer = new Redis(server.port, '127.0.0.1');
  const conn = await openLockConnection({ url: server.url });
  try {
    const key = 'lock:contended';
    let current = token();
    await acquirer.set(key, current, 'PX', 10_000);
    /** Tokens the acquirer has already replaced: stale by the time anyone presents them. */
    const retired: string[] = [];
    let wrongDeletions = 0;
    let acquisitions = 0;
    let done = false;

    const acquire = (async () => {
      while (!done) {
        // Nobody but stale releasers touches the key: if our token is not there, a release deleted it.
        if ((await acquirer.get(key)) !== current) wrongDeletions++;
        const next = token();
        await acquirer.set(key, next, 'PX', 10_000);
        retired.push(current);
        current = next;
        acquisitions++;
      }
    })();

    const outcomes = { released: 0, 'token-changed': 0, gone: 0, extended: 0 };
    let issued = 0;
    const releaser = async () => {
      while (issued < RELEASES) {
        issued++;
        // Wait for at least one replaced token (only at the very start).
        const stale = retired.length ? retired[Math.floor(Math.random() * retired.length)]! : token();
        const result = await conn.release(key, stale);
        outcomes[result.outcome]++;
        if (result.outcome === 'released') wrongDeletions++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, releaser));
    done = true;
    await acquire;

    assert.equal(outcomes.released + outcomes['token-changed'] + outcomes.gone, RELEASES);
    assert.ok(acquisitions > 10, `the key was re-acquired while releases ran (${acquisitions} times)`);
    assert.ok(retired.length > 10);
    assert.equal(wrongDeletions, 0);
    assert.equal(outcomes.released, 0);
    assert.equal(await acquirer.get(key), current, 'the live holder still holds the lock');
  } finally {
    await conn.close();
    acquirer.disconnect();
    await server.stop();
  }
});
