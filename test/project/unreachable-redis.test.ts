// A caller that checks whether Redis is reachable before taking the project's lock helper, and runs the
// work unlocked when it is not: during an outage every instance takes that branch together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const locks = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export const redis = new Redis();
export async function acquireLock(key: string, ttlMs = 10000): Promise<string | null> {
  const token = randomUUID();
  return (await redis.set(\`lock:\${key}\`, token, 'PX', ttlMs, 'NX')) === 'OK' ? token : null;
}
export async function releaseLock(key: string, token: string) {
  await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, \`lock:\${key}\`, token);
}
`;

const job = (test: string, onDown: string) => `import { acquireLock, releaseLock, redis } from './locks';
declare function chargeAll(): Promise<void>;
export async function nightly() {
  if (${test}) ${onDown}
  const token = await acquireLock('nightly');
  if (!token) return;
  try {
    await chargeAll();
  } finally {
    await releaseLock('nightly', token);
  }
}
`;

test("the client's status checked before a helper's acquire: the work run when it is not 'ready' is reported at the caller", () => {
  const findings = analyzeProject({ 'src/locks.ts': locks, 'src/job.ts': job("redis.status !== 'ready'", 'return chargeAll();') });
  assert.deepEqual(findingList(findings), ['src/job.ts: decide-redis-failure'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /cannot be reached.*'nightly'.*runs `chargeAll`/s);
  assert.equal(findings[0].related[0].message, 'the acquire this path skips');
});

test('the same check that answers "not acquired" or throws grants nothing', () => {
  for (const onDown of ['return;', "throw new Error('redis is down');"]) {
    const findings = analyzeProject({ 'src/locks.ts': locks, 'src/job.ts': job("redis.status !== 'ready'", onDown) });
    assert.deepEqual(findingList(findings), [], `${onDown}: ${findings.map((f) => f.message).join('\n')}`);
  }
});

test('a conditional on the client handed to an acquire helper of the same file: its other arm answers a token the guard reads as acquired', () => {
  const findings = analyzeProject({
    'src/cron.js': `const { randomUUID } = require('node:crypto');
async function connectRedis() {
  return null;
}
async function takeLock(redis, key, seconds) {
  const token = randomUUID();
  const ok = await redis.set(key, token, 'EX', seconds, 'NX');
  return ok === 'OK' ? token : null;
}
async function nightly(run) {
  const redis = await connectRedis();
  const token = redis ? await takeLock(redis, 'lock:nightly', 3600) : 'no-redis';
  if (!token) return;
  await run();
}
module.exports = { nightly };
`,
  });
  assert.deepEqual(findingList(findings), ['src/cron.js: decide-redis-failure'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /no Redis client.*the other arm of this conditional returns `'no-redis'`/s);
});
