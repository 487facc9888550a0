// A lock manager that retries its own private acquire method: the retry is judged at the loop, through
// the method's summary, as a retry of a Redis acquire written in the loop would be.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';
import { withQuietLocker } from './quiet-locker';

const manager = (loop: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class LockManager {
  constructor(private readonly client: Redis) {}
  async waitForLock(lockKey: string, delayMs: number, timeout: number): Promise<string> {
    const token = randomUUID();
${loop}
    return token;
  }
  private async acquireLock(lockKey: string, token: string, timeout: number): Promise<boolean> {
    return (await this.client.set(lockKey, token, 'EX', timeout, 'NX')) === 'OK';
  }
}
`;

test('a while (true) around a private acquire method, left only when it succeeds, has no limit', () => {
  const findings = analyzeProject({
    'src/lock-manager.ts': manager(`    while (true) {
      if (await this.acquireLock(lockKey, token, timeout)) break;
      await new Promise((r) => setTimeout(r, delayMs + Math.random() * delayMs));
    }`),
  });
  assert.deepEqual(findingList(findings), ['src/lock-manager.ts: bounded-acquire-retry'], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

test('the same loop with a deadline is bounded', () => {
  const findings = analyzeProject({
    'src/lock-manager.ts': manager(`    const giveUpAt = Date.now() + 10 * timeout * 1000;
    while (!(await this.acquireLock(lockKey, token, timeout))) {
      if (Date.now() > giveUpAt) throw new Error('lock busy');
      await new Promise((r) => setTimeout(r, delayMs + Math.random() * delayMs));
    }`),
  });
  assert.deepEqual(findingList(findings), [], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

/** A helper module whose acquire cleans up after itself when the SET throws (it may have landed). */
const CLEANING_HELPER = `import Redis from 'ioredis';
const redis = new Redis();
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export async function acquireLock(lockKey: string, value: string, ttlSeconds: number): Promise<boolean> {
  try {
    return (await redis.set(lockKey, value, 'EX', ttlSeconds, 'NX')) === 'OK';
  } catch (error) {
    await releaseLock(lockKey, value).catch(() => {});
    throw error;
  }
}
export async function releaseLock(lockKey: string, value: string): Promise<boolean> {
  return (await redis.eval(RELEASE, 1, lockKey, value)) === 1;
}
`;

test("a helper whose catch releases what a thrown SET may have taken still hands its lock to the caller: the caller's fixed-wait retry is judged", () => {
  const findings = analyzeProject({
    'src/redis.ts': CLEANING_HELPER,
    'src/refresh.ts': `import { acquireLock, releaseLock } from './redis';
declare function sleep(ms: number): Promise<void>;
export async function withRefreshLock<T>(rowId: string, fn: () => Promise<T>): Promise<T> {
  const lockKey = \`oauth:refresh:\${rowId}\`;
  const owner = crypto.randomUUID();
  const deadline = Date.now() + 30_000;
  while (true) {
    if (await acquireLock(lockKey, owner, 30)) {
      try {
        return await fn();
      } finally {
        await releaseLock(lockKey, owner);
      }
    }
    if (Date.now() >= deadline) throw new Error('refresh lock busy');
    await sleep(100);
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/refresh.ts: backoff-between-retries'], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

test('a trigger that locks each next stage through a helper, then runs itself on the stages those started, retries nothing', () => {
  const findings = analyzeProject(withQuietLocker({
    'lib/trigger.js': `const locker = require('./locker');
async function startStage(id) {
  return { id, next: [] };
}
async function triggerNext(stage) {
  const started = [];
  for (const id of stage.next) {
    const resource = \`stage:\${id}\`;
    let lock;
    try {
      lock = await locker.lock(resource);
      started.push(await startStage(id));
    } catch (err) {
      console.error('could not start', id, err);
    } finally {
      await locker.unlock(lock, resource);
    }
  }
  for (const next of started) {
    await triggerNext(next);
  }
  return null;
}
module.exports = { triggerNext };
`,
  }));
  const retries = findings.filter((f) => f.rule === 'backoff-between-retries' || f.rule === 'bounded-acquire-retry');
  assert.deepEqual(retries.map((f) => `${f.file}: ${f.rule}`), [], retries.map((f) => f.message).join('\n'));
});
