// Set-once markers with a rollback (engine/markers.ts) are not locks: no rule reports them, while the
// same key released when the work is done is a lock again and keeps every finding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeText } from '../../rules/analyze';

const prelude = `import Redis from 'ioredis';
const redis = new Redis();
declare function deliver(id: string): Promise<void>;
declare function eligible(id: string): Promise<boolean>;
declare function settle(id: string): Promise<void>;
`;

const rulesOf = (code: string) => analyzeText('case.ts', prelude + code).findings.map((f) => f.rule).sort();

test('an idempotency marker deleted only in the catch that gives up is no lock', () => {
  assert.deepEqual(rulesOf(`export async function sendReceiptOnce(orderId: string) {
  const marker = \`receipt:sent:\${orderId}\`;
  if ((await redis.set(marker, '1', 'EX', 86400, 'NX')) !== 'OK') return;
  try {
    await deliver(orderId);
  } catch (err) {
    await redis.del(marker);
    throw err;
  }
}
`), []);
});

test('a day-long claim deleted on the early "not for us" paths and kept on success is no lock', () => {
  assert.deepEqual(rulesOf(`export async function claim(signature: string) {
  const key = \`lock:claim:\${signature}\`;
  const claimed = await redis.set(key, 'seen', 'EX', 86400, 'NX');
  if (!claimed) return;
  if (!(await eligible(signature))) {
    await redis.del(key);
    return;
  }
  if (signature.length < 10) return void redis.del(key);
  await settle(signature);
}
`), []);
});

test('the same key also released when the work is done is a lock, with every finding', () => {
  assert.deepEqual(rulesOf(`export async function settleOnce(id: string) {
  const key = \`lock:settle:\${id}\`;
  const ok = await redis.set(key, 'seen', 'EX', 30, 'NX');
  if (!ok) return;
  if (!(await eligible(id))) {
    await redis.del(key);
    return;
  }
  await settle(id);
  await redis.del(key);
}
`), ['owner-checked-release', 'owner-checked-release', 'release-on-all-paths', 'unique-token']);
});

test('a rollback in a finally is a release on every path: a lock', () => {
  assert.deepEqual(rulesOf(`export async function once(id: string) {
  const key = \`job:\${id}:lock\`;
  if (!(await redis.set(key, 'x', 'EX', 60, 'NX'))) return;
  try {
    await settle(id);
  } finally {
    await redis.del(key);
  }
}
`), ['owner-checked-release', 'unique-token']);
});

test('a key handed to another function lives on there: a lock, not a marker', () => {
  assert.deepEqual(rulesOf(`export async function startPayout(userId: string) {
  const lockKey = \`lock:payout:\${userId}\`;
  if (!(await redis.set(lockKey, 'busy', 'EX', 60, 'NX'))) return 'busy';
  if (!(await eligible(userId))) {
    await redis.del(lockKey);
    return 'no';
  }
  await payout(userId, lockKey);
  return 'ok';
}
async function payout(userId: string, lockKey: string) {
  await settle(userId);
}
`), ['owner-checked-release', 'release-on-all-paths', 'unique-token']);
});

test('a test that lets the not-acquired path go on (`!ok && !held`) deletes keys it did not set: a lock', () => {
  assert.deepEqual(rulesOf(`export async function claim(id: string, agent: string) {
  const key = \`claim:conversation:\${id}\`;
  const held = (await redis.get(key)) === agent;
  const ok = await redis.set(key, agent, 'EX', 300, 'NX');
  if (!ok && !held) return false;
  if (!(await eligible(agent))) {
    await redis.del(key);
    return false;
  }
  return true;
}
`), ['owner-checked-release']);
});

test('a claim kept when the work succeeds and deleted in the else of that check is no lock', () => {
  assert.deepEqual(rulesOf(`declare function buy(id: string): Promise<{ ok: boolean }>;
export function scheduleBuys(ids: string[]) {
  for (const id of ids) {
    setTimeout(async () => {
      try {
        const claim = \`lock:autobuy:\${id}\`;
        const mine = await redis.set(claim, '1', 'EX', 86400, 'NX');
        if (!mine) return;
        if (!(await eligible(id))) { await redis.del(claim); return; }
        const result = await buy(id);
        if (result.ok) {
          await settle(id);
        } else {
          await redis.del(claim);
        }
      } catch {}
    }, 50);
  }
}
`), []);
});

test('deleted in both branches of the final check, the key is released when the work is done: a lock', () => {
  assert.deepEqual(rulesOf(`declare function buy(id: string): Promise<{ ok: boolean }>;
export async function buyOnce(id: string) {
  const claim = \`lock:buy:\${id}\`;
  if (!(await redis.set(claim, '1', 'EX', 30, 'NX'))) return;
  const result = await buy(id);
  if (result.ok) {
    await settle(id);
    await redis.del(claim);
  } else {
    await redis.del(claim);
  }
}
`), ['owner-checked-release', 'owner-checked-release', 'release-on-all-paths', 'unique-token']);
});

test('a branch on the acquire answer itself (`if (mine) del else ...`) is a release, not a rollback', () => {
  assert.deepEqual(rulesOf(`export async function tidy(id: string) {
  const key = \`lock:tidy:\${id}\`;
  const mine = await redis.set(key, '1', 'EX', 30, 'NX');
  if (!mine) return;
  await settle(id);
  if (mine) {
    await redis.del(key);
  } else {
    console.log('not ours');
  }
}
`), ['owner-checked-release', 'release-on-all-paths', 'unique-token']);
});

test('a notice marker whose answer is stored by assignment, deleted only when no channel took the notice, is no lock', () => {
  const notice = (key: string) => `declare function channels(text: string): Promise<unknown>[];
export async function noticeOutage(code: string): Promise<boolean> {
  const key = \`${key}:\${code}\`;
  let claimed = false;
  try {
    claimed = (await redis.set(key, '1', 'EX', 3600, 'NX')) === 'OK';
    if (!claimed) return false;
  } catch (err) {
    console.warn('no dedup', err);
  }
  const sends = channels(code);
  if (sends.length === 0) {
    if (claimed) await redis.del(key);
    return false;
  }
  const sent = (await Promise.allSettled(sends)).some((r) => r.status === 'fulfilled');
  if (!sent && claimed) await redis.del(key);
  return sent;
}
`;
  assert.deepEqual(rulesOf(notice('noticed:outage')), []);
  // Under a lock's key, a delete only when the work failed leaves the lock held after it succeeded.
  assert.deepEqual(rulesOf(notice('lock:outage')), ['owner-checked-release', 'owner-checked-release', 'release-on-all-paths', 'unique-token']);
});

test('a marker function named as one in a lock module (`markEventSeen` beside acquireLock) is no lock', () => {
  const module = (name: string) => analyzeText('src/lib/redis-lock.ts', `${prelude}declare function connected(): Redis | null;
export async function ${name}(eventId: string): Promise<boolean> {
  const client = connected();
  if (!client) return true;
  return (await client.set(\`events:\${eventId}\`, '1', 'EX', 86400, 'NX')) === 'OK';
}
`).findings.map((f) => f.rule);
  assert.deepEqual(module('markEventSeen'), []);
  assert.deepEqual(module('acquireEvent'), ['decide-redis-failure']);
});
