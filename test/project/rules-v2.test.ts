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

test('backoff-between-retries: a busy spin around a helper acquire (one finding, naming the spin)', () => {
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
  assert.deepEqual(findingList(findings), ['src/spin.ts: backoff-between-retries'], findings.map((f) => f.message).join('\n'));
});
