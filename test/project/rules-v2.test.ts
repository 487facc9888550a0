// The issue-12 rules through project helpers in another file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const LOCK_MODULE = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function acquireLock(key: string): Promise<boolean> {
  return (await redis.set(key, randomUUID(), 'PX', 10000, 'NX')) === 'OK';
}
`;

test('decide-redis-failure: a catch around a helper acquire that grants the lock anyway', () => {
  const findings = analyzeProject({
    'src/lock.ts': LOCK_MODULE,
    'src/report.ts': `import { acquireLock } from './lock';
export async function mayRun(): Promise<boolean> {
  try {
    return await acquireLock('lock:report');
  } catch {
    return true;
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/report.ts: decide-redis-failure'], findings.map((f) => f.message).join('\n'));
});

test('backoff-between-retries: a busy spin around a helper acquire (naming the spin; bounded-acquire-retry adds the missing limit)', () => {
  const findings = analyzeProject({
    'src/lock.ts': LOCK_MODULE,
    'src/spin.ts': `import { acquireLock } from './lock';
export async function waitForLock(): Promise<void> {
  while (!(await acquireLock('lock:spin'))) {
    // retry at once
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/spin.ts: backoff-between-retries', 'src/spin.ts: bounded-acquire-retry'], findings.map((f) => f.message).join('\n'));
});

test('check-acquire-result: a loop whose condition tests the helper result its body stores is a test of it', () => {
  const spin = `import { acquireLock } from './lock';
export async function untilFree(): Promise<void> {
  let held = false;
  while (!held) held = await acquireLock('lock:spin');
}
export async function untilFreeInBlock(): Promise<void> {
  let held = false;
  for (let round = 0; !held; round++) {
    held = await acquireLock('lock:spin2');
  }
}
export async function storedNotTested(): Promise<void> {
  let held = false;
  for (let round = 0; round < 3; round++) {
    held = await acquireLock('lock:spin3');
  }
}
`;
  const findings = analyzeProject({ 'src/lock.ts': LOCK_MODULE, 'src/spin.ts': spin });
  const lineOf = (offset: number) => spin.slice(0, offset).split('\n').length;
  const results = findings.filter((f) => f.rule === 'check-acquire-result').map((f) => lineOf(f.span.start));
  assert.deepEqual(results, [15], findings.map((f) => `${lineOf(f.span.start)}: ${f.rule}: ${f.message}`).join('\n'));
});

test('stop-on-lock-lost: a watchdog that renews through a helper and only logs the failure', () => {
  const findings = analyzeProject({
    'src/lock.ts': `import Redis from 'ioredis';
const redis = new Redis();
const EXTEND = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end';
export async function renewLock(key: string, token: string, ttlMs: number) {
  return redis.eval(EXTEND, 1, key, token, ttlMs);
}
`,
    'src/job.ts': `import { renewLock } from './lock';
export function keepAlive(key: string, token: string) {
  return setInterval(() => {
    renewLock(key, token, 30000).catch((err) => console.error('renewal failed', err));
  }, 10000);
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/job.ts: stop-on-lock-lost'], findings.map((f) => f.message).join('\n'));
});

test('exclusive-acquire: a SET without NX through a command wrapper, its reply taken as the lock', () => {
  const findings = analyzeProject({
    'src/redis.service.ts': `import Redis from 'ioredis';
export class RedisService {
  private readonly client = new Redis();
  set(key: string, value: string, mode: 'PX', ttl: number) {
    return this.client.set(key, value, mode, ttl);
  }
}
`,
    'src/job.ts': `import { RedisService } from './redis.service';
export class Job {
  constructor(private readonly redis: RedisService) {}
  async tryLock(id: string): Promise<boolean> {
    return (await this.redis.set(\`lock:job:\${id}\`, crypto.randomUUID(), 'PX', 10000)) === 'OK';
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/job.ts: exclusive-acquire'], findings.map((f) => f.message).join('\n'));
});

test('rollback-partial-acquire: a loop of helper acquires that gives up without releasing', () => {
  const findings = analyzeProject({
    'src/lock.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function acquireLock(key: string): Promise<boolean> {
  return (await redis.set(key, randomUUID(), 'PX', 10000, 'NX')) === 'OK';
}
`,
    'src/reserve.ts': `import { acquireLock } from './lock';
export async function reserveAll(skus: string[]): Promise<boolean> {
  for (const sku of skus) {
    if (!(await acquireLock(\`lock:stock:\${sku}\`))) return false;
  }
  return true;
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/reserve.ts: rollback-partial-acquire'], findings.map((f) => f.message).join('\n'));
});
