import type { RuleCases } from '../harness';
import { glide, io, nr, RELEASE } from './preludes';

export const checkAcquireResultCases: RuleCases = {
  valid: [
    { name: 'the reply tested in a .then callback', code: `${io}export function run(id: string) {
  return redis.set(\`lock:job:\${id}\`, 'x', 'PX', 1000, 'NX').then((ok) => {
    if (!ok) return;
    return work();
  });
}
` },
    { name: 'result tested', code: `${io}export async function run(key: string) {
  const ok = await redis.set(\`lock:\${key}\`, 'x', 'PX', 1000, 'NX');
  if (ok !== 'OK') return;
  await work();
}
` },
    { name: 'result returned to the caller', code: `${io}export function tryLock(key: string) {
  return redis.set(\`lock:\${key}\`, 'x', 'PX', 1000, 'NX');
}
` },
    { name: 'dedup key: SET NX EX whose result is not needed', code: `${io}export async function remember(eventId: string) {
  await redis.set(\`seen:\${eventId}\`, '1', 'EX', 3600, 'NX');
}
` },
    { name: 'redis-semaphore acquire() throws on timeout: nothing to test', code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function run(redis: Redis) {
  const mutex = new Mutex(redis, 'report', { onLockLost: () => undefined });
  await mutex.acquire();
  try { await Promise.resolve(); } finally { await mutex.release(); }
}
` },
    { name: 'tryAcquire tested', code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function run(redis: Redis) {
  const mutex = new Mutex(redis, 'report', { onLockLost: () => undefined });
  if (!(await mutex.tryAcquire())) return;
  await mutex.release();
}
` },
    { name: 'GLIDE set onlyIfDoesNotExist tested', code: `${glide}export async function run(key: string) {
  const ok = await valkey.set(\`lock:\${key}\`, 'x', { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } });
  if (ok !== 'OK') return;
  await work();
}
` },
  ],
  invalid: [
    {
      name: 'a .then callback that never looks at the reply',
      message: ['is ignored'],
      code: `${io}export function run(id: string) {
  return redis.set(\`lock:job:\${id}\`, 'x', 'PX', 1000, 'NX').then(() => work());
}
`,
      output: null,
    },
    {
      name: 'awaited and dropped',
      message: ['is ignored', 'reply is null'],
      code: `${io}export async function run(key: string) {
  await redis.set(\`lock:\${key}\`, 'x', 'PX', 1000, 'NX');
  await work();
}
`,
      output: `${io}export async function run(key: string) {
  if (!(await redis.set(\`lock:\${key}\`, 'x', 'PX', 1000, 'NX'))) {
    throw new Error('lock is held by another process');
  }
  await work();
}
`,
    },
    {
      name: 'not awaited, tested: a Promise is always truthy',
      message: ['without await'],
      code: `${io}export async function run(key: string, token: string) {
  const ok = redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok) return;
  await work();
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
      output: null,
    },
    {
      name: 'stored and never read',
      code: `${nr}export async function run(id: string) {
  const acquired = await client.set(\`lock:\${id}\`, 'x', { NX: true, PX: 5000 });
  await work();
}
`,
      output: null,
    },
    {
      name: 'redis-semaphore tryAcquire dropped',
      message: ['tryAcquire()', 'false'],
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function run(redis: Redis) {
  const mutex = new Mutex(redis, 'report', { onLockLost: () => undefined });
  await mutex.tryAcquire();
  await mutex.release();
}
`,
      output: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function run(redis: Redis) {
  const mutex = new Mutex(redis, 'report', { onLockLost: () => undefined });
  if (!(await mutex.tryAcquire())) {
    throw new Error('lock is held by another process');
  }
  await mutex.release();
}
`,
    },
      {
      name: 'GLIDE set onlyIfDoesNotExist whose reply is ignored',
      code: `${glide}export async function run(key: string) {
  await valkey.set(\`lock:\${key}\`, 'x', { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } });
  await work();
  await valkey.invokeScript(new Script(${RELEASE}), { keys: [\`lock:\${key}\`], args: ['x'] });
}
`,
    },
  ],
};
