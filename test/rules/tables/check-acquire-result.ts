import type { RuleCases } from '../harness';
import { MEMORY_STAND_IN, FIRST_SEEN_VALUE, RELEASE, glide, io, nr, boundCallbackLeader } from './preludes';

/** A nightly job's lock whose not-acquired branch is `busy`: falls through to the work unless it leaves. */
const nightly = (busy: string) => `${io}import { randomUUID } from 'node:crypto';
export async function nightlySync() {
  const key = 'lock:cron:nightly';
  const token = randomUUID();
  const ok = await redis.set(key, token, 'EX', 600, 'NX');
  if (!ok) {
${busy}
  }
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`;

/** A sync whose NX reply is tested only to decide whether to release; `comment` leads the acquire. */
const syncReleasingIfAcquired = (comment: string) => `${io}export async function sync(id: string, token: string) {
${comment}  const acquired = await redis.set(\`lock:sync:\${id}\`, token, 'EX', 30, 'NX');
  try {
    await work();
  } finally {
    if (acquired === 'OK') await redis.eval(${RELEASE}, 1, \`lock:sync:\${id}\`, token);
  }
}
`;

export const checkAcquireResultCases: RuleCases = {
  valid: [
    {
      name: 'a first-writer-wins record in a function about a software release (isReleaseGroupComplete): release the noun, no lock code',
      code: `${io}export async function isReleaseGroupComplete(group: string, service: string, run: { id: string }): Promise<boolean> {
  await redis.set(\`release-group:\${group}:run:\${service}\`, JSON.stringify(run), 'EX', 86_400, 'NX');
  await redis.sadd(\`release-group:\${group}:done\`, service);
  return (await redis.scard(\`release-group:\${group}:done\`)) >= 3;
}
`,
    },
    {
      name: 'an SET NX reply tested only to decide whether to release, under a comment saying the lock is best effort and the work runs either way',
      code: syncReleasingIfAcquired('  // Best-effort lock against a burst of syncs: each path goes on to sync, twice is harmless.\n'),
    },
    {
      name: 'callback style with a bound callback: the acquire answers in the callback, which tests it',
      fileName: 'leader.js',
      code: boundCallbackLeader("    this.client.eval('if redis.call(\"get\", KEYS[1]) == ARGV[1] then return redis.call(\"del\", KEYS[1]) else return 0 end', 1, this.lockKey, this.id, function () {}.bind(this));"),
    },
    { name: 'a busy branch ending in a call named for throwing, of a class from another file (RequestErrors.throwObj)', code: `${io}declare const RequestErrors: { throwObj(body: { message: string }, status: number): void };
export async function holdBag(bag: string, token: string) {
  const held = await redis.set(\`lock:bag:\${bag}\`, token, 'PX', 30000, 'NX');
  if (!held) {
    RequestErrors.throwObj({ message: 'bag is being processed' }, 400);
  }
  await work();
}
` },
    { name: 'SET NX queued on a pipeline variable whose exec reply is read and tested', code: `${io}export async function enter(gameId: string, token: string) {
  const pipeline = redis.pipeline();
  pipeline.set(\`lock:game:\${gameId}\`, token, 'EX', 10, 'NX');
  pipeline.hgetall(\`game:\${gameId}\`);
  const results = await pipeline.exec();
  if (!results || results[0][1] !== 'OK') return null;
  await work();
  return results[1][1];
}
` },
    {
      name: 'an account lockout flag set with NX (a running lockout is not restarted) through a key function of an auth/lockout.ts module',
      fileName: 'src/auth/lockout.ts',
      code: `${io}const lockedKey = (user: string) => \`lockout:locked:\${user}\`;
export async function recordFailure(user: string, attempts: number) {
  if (attempts >= 5) await redis.set(lockedKey(user), '1', 'EX', 1800, 'NX');
}
export async function clearLockout(user: string) {
  await redis.del(lockedKey(user));
}
`,
    },
    { name: "the reply tested as 1 (the in-memory stand-in's SETNX) or 'OK' (SET NX)", code: MEMORY_STAND_IN },
    {
      name: 'a first-seen value kept by a transaction (GET, then SET NX of the time) and read back by GETDEL: no lock',
      fileName: 'presence.js',
      code: FIRST_SEEN_VALUE,
    },
    { name: "an acquire handed to an error-as-value wrapper: the pair's value tested, in either order", code: `${io}declare function to<T>(work: Promise<T>): Promise<[Error | null, T | undefined]>;
declare function settle<T>(work: Promise<T>): Promise<[T | undefined, Error | null]>;
export async function a(id: string, token: string) {
  const [err, ok] = await to(redis.set(\`lock:a:\${id}\`, token, 'PX', 5000, 'NX'));
  if (err || ok !== 'OK') return;
  await work();
}
export async function b(id: string, token: string) {
  const [reply, error] = await settle(redis.set(\`lock:b:\${id}\`, token, 'PX', 5000, 'NX'));
  if (error) throw error;
  if (!reply) return;
  await work();
}
` },
    { name: 'SETNX answers 1 (ioredis) or true (node-redis setNX): comparing with them is the test', code: `${io}export async function take(key: string) {
  if ((await redis.setnx(key, 'held')) === 1) {
    await redis.pexpire(key, 5000);
    await work();
  }
}
` },
    { name: 'a retry that takes the success reply alone, and a test that joins two failure values', code: `${io}export async function take(key: string, token: string) {
  for (let i = 0; i < 5; i++) {
    const reply = await redis.set(key, token, 'PX', 5000, 'NX');
    if (reply === 'OK' || reply !== null) return token;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  return null;
}
export async function tryLock(key: string, token: string) {
  const reply = await redis.set(key, token, 'PX', 5000, 'NX');
  if (reply === null || reply === undefined) return null;
  return token;
}
` },
    { name: 'SET NX GET answers with the previous holder: a truthy reply means busy', code: `${io}export async function run(token: string) {
  const holder = await redis.set('lock:job', token, 'EX', 30, 'NX', 'GET');
  if (holder) throw new Error('busy: held by ' + holder);
  await work();
}
` },
    {
      name: 'the reply handed on unchanged by one .then and tested by the next',
      code: `${io}export function claim(orderId: string, owner: string) {
  return redis.set(\`lock:order:\${orderId}\`, owner, 'PX', 2000, 'NX')
    .then((reply) => reply)
    .then(function (reply) {
      if (reply !== 'OK') return false;
      return work().then(() => true);
    });
}
`,
    },
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
    { name: 'redis-semaphore tryAcquire of a Mutex adopting a lock its identifier holds (acquiredExternally) is a refresh, not an acquire', code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function cooldown(redis: Redis, held: Mutex, ttlMs: number) {
  const longer = new Mutex(redis, 'report', { acquiredExternally: true, identifier: held.identifier, lockTimeout: ttlMs, refreshInterval: 0 });
  await longer.tryAcquire();
  held.stopRefresh();
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
    { name: 'a lock helper leaves as soon as it holds the lock: the work is its caller\'s', code: `${io}export async function acquireLock(key: string, token: string): Promise<void> {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (ok) return;
  await redis.publish('lock-wanted', key);
  throw new Error('busy');
}
` },
    { name: 'a retry loop ends when the acquire succeeds', code: `${io}export async function run(token: string) {
  for (let i = 0; i < 5; i++) {
    const ok = await redis.set('lock:job', token, 'PX', 1000, 'NX');
    if (ok === 'OK') break;
    await new Promise((r) => setTimeout(r, 100));
  }
}
` },
    { name: 'the acquired branch hands the lock back', code: `${io}export async function pick(ids: string[]) {
  const ok = await redis.set(\`lock:account:\${ids[0]}\`, '1', 'EX', 60, 'NX');
  if (ok) return { id: ids[0] };
  await work();
  return null;
}
` },
    {
      name: 'a not-acquired branch that calls a function of the file declared `never` (it always throws)',
      code: `${nightly("    failWith('CONFLICT', 'the nightly sync is already running');")}
function failWith(code: string, message: string, details: { retryAfter?: number } = {}): never {
  throw Object.assign(new Error(message), { code, ...details });
}
`,
    },
    {
      name: 'a not-acquired branch that calls a function whose body opens with a throw (no return type written)',
      code: nightly("    conflict('the nightly sync is already running');").replace('export async function nightlySync', `function conflict(message: string) {
  throw new Error(message);
}
export async function nightlySync`),
    },
    { name: 'a not-acquired branch that leaves on every path (an if/else of return and throw)', code: nightly(`    if (await redis.exists(key)) return;
    else throw new Error('lock lost between SET and EXISTS');`) },
    { name: 'a not-acquired branch that tries once more and leaves if that fails too', code: nightly(`    const again = await redis.set(key, token, 'EX', 600, 'NX');
    if (!again) return;`) },
    { name: 'a stampede guard that waits for the value another process fills and computes it anyway when none came: a fallback on purpose', code: `${io}declare function sleep(ms: number): Promise<void>;
export async function report(id: string, token: string) {
  const ok = await redis.set(\`lock:report:\${id}\`, token, 'EX', 30, 'NX');
  if (!ok) {
    await sleep(200);
    const cached = await redis.get(\`report:\${id}\`);
    if (cached) return cached;
  }
  const fresh = String(Date.now());
  await redis.set(\`report:\${id}\`, fresh, 'EX', 300);
  if (ok) await redis.eval(${RELEASE}, 1, \`lock:report:\${id}\`, token);
  return fresh;
}
` },
    { name: 'a not-acquired branch that logs, and the work only under a test that the lock is held', code: `${io}export async function report(token: string) {
  const ok = await redis.set('lock:report', token, 'EX', 60, 'NX');
  if (!ok) {
    console.info('report already running');
  }
  if (ok) {
    await work();
    await redis.eval(${RELEASE}, 1, 'lock:report', token);
  }
}
` },
  ],
  invalid: [
    {
      name: 'a busy answer that falls back to an in-process lock and marks the lock taken: every other replica runs the job',
      message: ['does not stop'],
      code: `${io}const local = new Map<string, number>();
export async function runExclusive(key: string, ttlMs: number, job: () => Promise<void>): Promise<boolean> {
  let acquired = await redis.set(\`lock:\${key}\`, '1', 'PX', ttlMs, 'NX');
  if (!acquired) {
    if (Date.now() < (local.get(key) ?? 0)) return false;
    local.set(key, Date.now() + ttlMs);
    acquired = 'OK';
  }
  await job();
  return true;
}
`,
    },
    {
      name: 'SET NX queued on a pipeline whose exec reply is thrown away',
      message: ['is ignored'],
      code: `${io}export async function enter(gameId: string, token: string) {
  const pipeline = redis.pipeline();
  pipeline.set(\`lock:game:\${gameId}\`, token, 'EX', 10, 'NX');
  pipeline.hgetall(\`game:\${gameId}\`);
  await pipeline.exec();
  await work();
}
`,
      output: null,
    },
    {
      name: 'a not-acquired branch that calls a function of the file that returns (it only builds the error)',
      message: ['does not stop'],
      code: `${nightly("    conflictError('the nightly sync is already running');")}
function conflictError(message: string): Error {
  return new Error(message);
}
`,
    },
    { name: 'a not-acquired branch that only logs, then the work', message: ['does not stop', '`!ok`'], code: nightly("    console.warn('nightly sync is already running');") },
    { name: 'a not-acquired branch that leaves only when a GET still finds a holder: a lapsed key lets it go on without the lock', message: ['does not stop'], code: nightly(`    const holder = await redis.get(key);
    if (holder) return;
    console.warn('the holder is gone, going on');`) },
    {
      name: 'an SET NX reply tested only to decide whether to release, after the work ran',
      message: ['tested only to decide whether to release'],
      code: syncReleasingIfAcquired(''),
    },
    {
      name: "an acquire handed to an error-as-value wrapper whose error is tested, never its value",
      message: ['stored in acquired but never tested'],
      code: `${io}declare function tryCatch<T>(work: Promise<T>): Promise<[Error | null, T | null]>;
export async function sync(id: string, token: string) {
  const [setError, acquired] = await tryCatch(redis.set(\`lock:sync:\${id}\`, token, 'EX', 30, 'NX'));
  if (setError) return;
  await work();
}
`,
    },
    {
      // TypeScript rejects these comparisons; JavaScript (where they are found) does not.
      name: 'SET NX compared with true: SET answers OK or null, so the test never passes (node-redis, JavaScript)',
      message: ['never true'],
      output: null,
      fileName: 'reserve.js',
      code: `const { createClient } = require('redis');
const client = createClient();
async function reserve(sku, work) {
  for (let i = 0; i < 5; i++) {
    const result = await client.set(\`lock:sku:\${sku}\`, 'held', { NX: true, PX: 3000 });
    if (result === true) {
      await work();
      return true;
    }
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  return false;
}
module.exports = { reserve };
`,
    },
    {
      name: 'ioredis SET NX compared with 1 (the answer of SETNX, not of SET)',
      message: ['never 1'],
      output: null,
      fileName: 'ship.js',
      code: `const Redis = require('ioredis');
const redis = new Redis();
async function ship(id, token, work) {
  if ((await redis.set(\`lock:ship:\${id}\`, token, 'PX', 5000, 'NX')) == 1) await work();
}
module.exports = { ship };
`,
    },
    {
      name: 'a test of the NX reply that passes on success and on the failure reply alike',
      count: 2,
      message: ['passes either way', 'passes either way'],
      output: null,
      code: `${io}export async function take(key: string, token: string) {
  for (let i = 0; i < 5; i++) {
    const reply = await redis.set(key, token, 'PX', 5000, 'NX');
    if (reply === 'OK' || reply === null) return token;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  throw new Error('busy');
}
export async function tryLock(key: string, token: string) {
  const reply = await redis.set(key, token, 'PX', 5000, 'NX');
  return !reply || reply === 'OK' ? token : null;
}
`,
    },
    {
      name: 'the test the wrong way round: the acquired path throws, the work runs when another process holds the lock',
      count: 2,
      message: ['wrong way round', 'NOT acquired'],
      output: null,
      code: `${io}export async function a(token: string) {
  const ok = await redis.set('lock:a', token, 'EX', 30, 'NX');
  if (ok) throw new Error('busy');
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, 'lock:a', token); }
}
export async function b(token: string) {
  if ((await redis.set('lock:b', token, 'EX', 30, 'NX')) === 'OK') {
    console.warn('busy');
    return;
  }
  await work();
  await redis.eval(${RELEASE}, 1, 'lock:b', token);
}
`,
    },
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
      name: 'the reply handed on unchanged to a .then that never looks at it',
      message: ['is ignored'],
      code: `${io}export function claim(orderId: string, owner: string) {
  return redis.set(\`lock:order:\${orderId}\`, owner, 'PX', 2000, 'NX')
    .then((reply) => { return reply; })
    .then(() => work());
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
