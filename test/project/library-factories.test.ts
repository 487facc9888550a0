// A project function that hands back a lock-library object it makes (`createMutex(name)` returning `new
// Mutex(redis, key)`, `getRedlock()` returning `new Redlock(...)`): what its callers store is that
// library's object, and their acquire and release on it are judged as the library's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const mutexFactory = `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
export function createMutex(name: string) {
  return new Mutex(redis, \`mutex:\${name}\`, { lockTimeout: 10_000, onLockLost: (err) => { throw err; } });
}
`;

/** A caller of `createMutex` from `from`, the work between its acquire and its release written as `body`. */
const billing = (from: string, body: string) => `import { createMutex } from '${from}';
declare function invoice(id: string): Promise<void>;
export async function bill(id: string) {
  const mutex = createMutex(\`bill:\${id}\`);
${body}
}
`;

const UNGUARDED = `  await mutex.acquire();
  await invoice(id);
  await mutex.release();`;
const GUARDED = `  if (!(await mutex.tryAcquire())) return;
  try {
    await invoice(id);
  } finally {
    await mutex.release();
  }`;

test('a Mutex from a factory of another file: a release that an exception skips, and a correct caller', () => {
  const skipped = analyzeProject({ 'src/locks.ts': mutexFactory, 'src/billing.ts': billing('./locks', UNGUARDED) });
  assert.deepEqual(findingList(skipped), ['src/billing.ts: release-on-all-paths'], skipped.map((f) => f.message).join('\n'));
  const guarded = analyzeProject({ 'src/locks.ts': mutexFactory, 'src/billing.ts': billing('./locks', GUARDED) });
  assert.deepEqual(findingList(guarded), [], guarded.map((f) => f.message).join('\n'));
});

test('a tryAcquire of a Mutex from a factory whose answer is ignored', () => {
  const found = analyzeProject({ 'src/locks.ts': mutexFactory, 'src/billing.ts': billing('./locks', GUARDED.replace('if (!(await mutex.tryAcquire())) return;', 'await mutex.tryAcquire();')) });
  assert.deepEqual(findingList(found), ['src/billing.ts: check-acquire-result'], found.map((f) => f.message).join('\n'));
});

test('a factory of the same file, the object stored first and handed back', () => {
  const own = `${mutexFactory.replace('  return new Mutex(', '  const made = new Mutex(').replace(' });\n}', ' });\n  return made;\n}')}${billing('./unused', UNGUARDED).split('\n').slice(1).join('\n')}`;
  const found = analyzeProject({ 'src/billing.ts': own });
  assert.deepEqual(findingList(found), ['src/billing.ts: release-on-all-paths'], found.map((f) => f.message).join('\n'));
});

test('a Redlock from a getter of another file: its lock handle released after work that can throw', () => {
  const found = analyzeProject({
    'src/redlock.ts': `import Redis from 'ioredis';
import Redlock from 'redlock';
export function makeLocker() {
  return new Redlock([new Redis()], { retryCount: 3, retryDelay: 200, retryJitter: 100 });
}
`,
    'src/export.ts': `import { makeLocker } from './redlock';
declare function upload(day: string): Promise<void>;
export async function exportDay(day: string) {
  const locker = makeLocker();
  const lock = await locker.acquire([\`export:\${day}\`], 60_000);
  await upload(day);
  await lock.release();
}
`,
  });
  assert.deepEqual(findingList(found), ['src/export.ts: release-on-all-paths'], found.map((f) => f.message).join('\n'));
});

test('a factory of an in-process Mutex (async-mutex) makes no Redis lock', () => {
  const found = analyzeProject({
    'src/locks.ts': `import { Mutex } from 'async-mutex';
export function createMutex() {
  return new Mutex();
}
`,
    'src/billing.ts': billing('./locks', `  const release = await mutex.acquire();
  await invoice(id);
  release();`).replace('createMutex(`bill:${id}`)', 'createMutex()'),
  });
  assert.deepEqual(findingList(found), [], found.map((f) => f.message).join('\n'));
});

test("a release helper taking redlock's Lock (typed, under any name): the cron job's release through it is skipped by the work before its try", () => {
  const cron = (between: string) => `import { Lock } from 'redlock';
import redlock from './redlock';
declare function logRun(job: string): Promise<void>;
declare function sendReminders(): Promise<void>;
export async function acquireLock(job: string): Promise<Lock | null> {
  try {
    return await redlock.acquire([\`lock:cron:\${job}\`], 30000);
  } catch {
    return null;
  }
}
export async function releaseLock(held: Lock): Promise<void> {
  try {
    await held.release();
  } catch {
    // it expired
  }
}
export async function reminders() {
  const lock = await acquireLock('reminders');
  if (!lock) return;
${between}
  try {
    await sendReminders();
  } finally {
    await releaseLock(lock);
  }
}
`;
  const redlock = `import Redis from 'ioredis';
import Redlock from 'redlock';
export default new Redlock([new Redis()], { retryCount: 0 });
`;
  const skipped = analyzeProject({ 'src/redlock.ts': redlock, 'src/cron.ts': cron("  await logRun('reminders');") });
  assert.deepEqual(findingList(skipped), ['src/cron.ts: release-on-all-paths'], skipped.map((f) => f.message).join('\n'));
  const clean = analyzeProject({ 'src/redlock.ts': redlock, 'src/cron.ts': cron('') });
  assert.deepEqual(findingList(clean), [], clean.map((f) => f.message).join('\n'));
});
