// A wrapper that forwards to an acquire helper taking an optional token: the token is the argument the
// wrapper passes at the helper's token position, or the helper's own value when it passes none, never
// the wrapper's own parameter that happens to sit at that position (a retry delay, a timeout).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

/** A lock service whose acquire takes an optional value (`fallback` when left out), and a retrying wrapper calling it as `forward`. */
const locks = (fallback: string, forward: string) => `import Redis from 'ioredis';
export class Locks {
  constructor(private readonly redis: Redis) {}
  async acquireLock(key: string, timeoutMs = 10000, lockValue?: string): Promise<boolean> {
    const value = lockValue || ${fallback};
    return (await this.redis.set(\`lock:\${key}\`, value, 'PX', timeoutMs, 'NX')) === 'OK';
  }
  async acquireWithRetry(key: string, maxRetries = 5, retryDelayMs = 200, timeoutMs = 10000, value?: string): Promise<boolean> {
    for (let attempt = 1; attempt <= maxRetries; attempt++) {
      if (await ${forward}) return true;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs / 2 + Math.random() * retryDelayMs));
    }
    return false;
  }
  async releaseLock(key: string, value: string): Promise<void> {
    await this.redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, \`lock:\${key}\`, value);
  }
}
`;

const caller = (args: string) => `import { Locks } from './locks';
export class Sessions {
  constructor(private readonly locks: Locks) {}
  async build(id: string, work: () => Promise<void>) {
    if (!(await this.locks.acquireWithRetry(${args}))) return;
    try {
      await work();
    } finally {
      await this.locks.releaseLock(id, 'held');
    }
  }
}
`;

const RANDOM = '`${Date.now()}-${Math.random()}`';

test('a wrapper leaving the token out: the retry delay at that position is no token', () => {
  const found = analyzeProject({ 'src/locks.ts': locks(RANDOM, 'this.acquireLock(key, timeoutMs)'), 'src/sessions.ts': caller('`session:${id}`, 5, 200, 5000') });
  assert.deepEqual(findingList(found).filter((f) => f.endsWith('unique-token')), [], found.map((f) => f.message).join('\n'));
});

test('a wrapper leaving the token out of a helper whose own value is a constant: that constant is the token', () => {
  const found = analyzeProject({ 'src/locks.ts': locks("'locked'", 'this.acquireLock(key, timeoutMs)'), 'src/sessions.ts': caller('`session:${id}`, 5, 200, 5000') });
  assert.ok(findingList(found).includes('src/locks.ts: unique-token'), found.map((f) => `${f.file}: ${f.message}`).join('\n'));
  assert.ok(!found.some((f) => f.rule === 'unique-token' && /\b200\b/.test(f.message)), found.map((f) => f.message).join('\n'));
});

test('a wrapper passing its own token parameter on: a constant its caller passes there is the token', () => {
  const found = analyzeProject({ 'src/locks.ts': locks(RANDOM, 'this.acquireLock(key, timeoutMs, value)'), 'src/sessions.ts': caller("`session:${id}`, 5, 200, 5000, 'held'") });
  const tokens = found.filter((f) => f.rule === 'unique-token');
  assert.deepEqual(tokens.map((f) => f.file), ['src/sessions.ts'], found.map((f) => f.message).join('\n'));
  assert.match(tokens[0].message, /'held'/);
});

test('a release wrapper around a helper whose DEL compares nothing is no owner check: the weak token is named as released without one', () => {
  const found = analyzeProject({
    'src/cron-lock.ts': `import Redis from 'ioredis';
const redis = new Redis();
async function takeRedisLock(job: string): Promise<boolean> {
  return (await redis.set(\`cron:lock:\${job}\`, Date.now().toString(), 'EX', 1800, 'NX')) === 'OK';
}
async function dropRedisLock(job: string): Promise<void> {
  await redis.del(\`cron:lock:\${job}\`);
}
export async function releaseLock(job: string): Promise<void> {
  await dropRedisLock(job);
}
export async function withLock(job: string, run: () => Promise<void>) {
  if (!(await takeRedisLock(job))) return;
  try {
    await run();
  } finally {
    await releaseLock(job);
  }
}
`,
  });
  const token = found.find((f) => f.rule === 'unique-token');
  assert.ok(token, found.map((f) => f.message).join('\n'));
  assert.match(token.message, /released or extended without an owner check/);
});
