import type { RuleCases } from '../harness';
import { answerInvalidCases, answerValidCases } from './decide-redis-failure-answers';
import { io, nr, RELEASE, sentOnceMarker } from './preludes';

// redis-semaphore, its sync work and a logger: the preludes of the catch-that-logs cases below.
const MUTEX = `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
const log = { error(...args: unknown[]) {} };
async function sync(accountId: string): Promise<void> {}
`;

/** A Mutex acquire whose catch only logs, then the work, with `lead` (comment lines) above the lock. */
const loggedThenSync = (lead: string) => `${MUTEX}export async function refresh(accountId: string) {
${lead}  const mutex = new Mutex(redis, \`lock:refresh:\${accountId}\`);
  try {
    await mutex.acquire();
  } catch (err) {
    log.error(err);
  }
  await sync(accountId);
  await mutex.release().catch(() => undefined);
}
`;

/** A class running a job under a lock on `this.redis` (optional with `optional` '?'), behind `guard`. */
const jobBehind = (optional: '' | '?', guard: string) => `import Redis from 'ioredis';
export class Locker {
  constructor(private readonly redis${optional}: Redis) {}
  async run(name: string, token: string, job: () => Promise<void>) {
    ${guard}
    if (!(await this.redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX'))) return;
    try {
      await job();
    } finally {
      await this.redis.eval(${RELEASE}, 1, \`lock:\${name}\`, token);
    }
  }
}
`;

/** A node-redis acquire inside `if (client && isRedisConnected())` that returns, and `fallback` after the check. */
const connectedThen = (fallback: string) => `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
const client = createClient();
const local = new Map<string, string>();
declare function isRedisConnected(): boolean;
export async function acquireLock(key: string, seconds = 30): Promise<string | null> {
  if (client && isRedisConnected()) {
    const token = randomUUID();
    const ok = await client.set(\`lock:\${key}\`, token, { NX: true, EX: seconds });
    return ok === 'OK' ? token : null;
  }
${fallback}
}
`;

/** `withLock` over a client a getter may not give: `if (redis) { ...retry the acquire...; throw } <fallback>`. */
const clientOrFallback = (fallback: string) => `import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
declare function clientIfConfigured(): Promise<Redis | null>;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms + Math.random() * ms));
export async function withLock<T>(key: string, ttlMs: number, fn: () => Promise<T>): Promise<T> {
  const token = randomUUID();
  const redis = await clientIfConfigured();
  if (redis) {
    for (let attempt = 0; attempt < 20; attempt++) {
      if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK') {
        try {
          return await fn();
        } finally {
          await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0', 1, key, token);
        }
      }
      await pause(100);
    }
    throw new Error('lock busy: ' + key);
  }
${fallback}
}
`;

/** An order placed under lock:stock:<sku>, taken only while Redis answered a ping; `after` follows the acquire's `if`. */
const pingedOrder = (after: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
declare function reserveStock(sku: string): Promise<void>;
export async function placeOrder(sku: string): Promise<void> {
  const token = randomUUID();
  let held = false;
  let redisReady = true;
  try {
    await redis.ping();
  } catch {
    redisReady = false;
  }
  if (redisReady) {
    held = (await redis.set(\`lock:stock:\${sku}\`, token, 'PX', 15000, 'NX')) === 'OK';
    if (!held) throw new Error('busy');
  }
${after}  try {
    await reserveStock(sku);
  } finally {
    if (held) await redis.eval(${RELEASE}, 1, \`lock:stock:\${sku}\`, token);
  }
}
`;

/** A lock class whose client may be missing, handing back a release function: `noClient` is its branch for that. */
const releaseFnWithoutClient = (noClient: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class JobLocks {
  constructor(private readonly redis?: Redis) {}
  async acquireLock(key: string, ttlSeconds = 10): Promise<(() => Promise<void>) | null> {
${noClient}
    const token = randomUUID();
    const ok = await this.redis.set(key, token, 'EX', ttlSeconds, 'NX');
    if (!ok) return null;
    return async () => {
      await this.redis?.eval(${RELEASE}, 1, key, token);
    };
  }
}
`;

/** `withRedisLock` over the client `getter` (a `getClient` of the file) hands back, running the task unlocked without one. */
const taskWithoutClient = (getter: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
let shared: Redis | null = null;
let connected = false;
${getter}
export async function withRedisLock<T>(name: string, task: () => Promise<T>): Promise<T | undefined> {
  const client = getClient();
  if (!client) return task();
  const token = randomUUID();
  if ((await client.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) !== 'OK') return undefined;
  try {
    return await task();
  } finally {
    await client.eval(${RELEASE}, 1, \`lock:\${name}\`, token);
  }
}
`;

/** A refresher whose acquire's `.catch` answers 'OK', in an `if` led by `comment`. */
const priceRefresher = (comment: string) => `import Redis from 'ioredis';
declare function fetchPrices(): Promise<void>;
export class PriceRefresher {
  constructor(private readonly guard: { redis: Redis; key: string } | undefined) {}
  async refresh(intervalMs: number): Promise<number> {
    try {
      ${comment}
      if (this.guard) {
        const acquired = await this.guard.redis
          .set(this.guard.key, '1', 'PX', intervalMs, 'NX')
          .catch((err: unknown) => {
            console.warn('lock check failed', err);
            return 'OK';
          });
        if (acquired !== 'OK') return intervalMs;
      }
      await fetchPrices();
      return intervalMs;
    } catch {
      return intervalMs;
    }
  }
}
`;

export const decideRedisFailureCases: RuleCases = {
  valid: [
    {
      name: "a `.catch` answering 'OK' inside an `if` whose leading comment says the lock fails open on Redis errors",
      code: priceRefresher('// With several instances, a SET NX lock lets one refresh per interval. Fail-open on Redis errors.'),
    },
    sentOnceMarker,
    {
      name: 'no client only when its URL is not set: a getter answering null under a test of the setting',
      code: taskWithoutClient(`function getClient(): Redis | null {
  if (!process.env.REDIS_URL) return null;
  shared ??= new Redis(process.env.REDIS_URL);
  return shared;
}`),
    },
    {
      name: 'no client only when its URL is not set: a getter answering url ? client : null',
      code: taskWithoutClient(`const getClient = () => (process.env.REDIS_URL ? (shared ??= new Redis(process.env.REDIS_URL)) : null);`),
    },
    {
      name: 'no client only when its URL is not set: a module client made under a test of the setting',
      code: taskWithoutClient('').replace('  const client = getClient();\n', '').replace(/client\b/g, 'redis').replace('let connected = false;', 'const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : null;'),
    },
    { name: 'a not-connected branch granting the lock under a comment that says so: if Redis is down, allow the operation', code: `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
const client = createClient();
let isConnected = false;
client.on('ready', () => { isConnected = true; });
export async function acquireLock(key: string) {
  if (!isConnected) {
    // Fallback: if Redis is down, allow the operation (the database update is guarded)
    return { acquired: true, token: 'none' };
  }
  const token = randomUUID();
  const ok = await client.set(key, token, { NX: true, EX: 10 });
  return { acquired: ok === 'OK', token };
}
` },
    {
      name: 'a present-client test around the acquire whose fallback says why it runs without Redis (a comment naming Redis)',
      code: clientOrFallback(`  // No Redis configured (local development): one process, so the work runs unlocked.
  return fn();`),
    },
    { name: 'a present-client test around the acquire whose fallback throws', code: clientOrFallback(`  throw new Error('Redis is required for ' + key);`) },
    {
      name: 'no Redis configured: the branch documented by a comment after it, on its line, naming Redis',
      code: `import Redis from 'ioredis';
const redisClient: Redis | null = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : null;
export async function acquireLock(name: string, seconds = 60): Promise<boolean> {
  if (!redisClient) return true; // no Redis in local development: nothing to lock against
  return (await redisClient.set(\`lock:\${name}\`, '1', 'EX', seconds, 'NX')) === 'OK';
}
`,
    },
    {
      name: 'a connected check around the acquire that returns, then "not acquired" after it',
      code: connectedThen("  console.warn('redis is not connected: not locking');\n  return null;"),
    },
    {
      name: 'a catch that grants, with the trade-off weighed in plain words ("on error, allow execution: better to have duplicates")',
      code: `import Redis from 'ioredis';
const redis = new Redis();
export async function acquireUpdateLock(userId: string, updateId: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:update:\${userId}\`, updateId, 'EX', 180, 'NX')) === 'OK';
  } catch (error) {
    console.error('Error acquiring lock:', error);
    // On error, allow execution (better to have duplicates than no execution)
    return true;
  }
}
`,
    },
    {
      name: 'a conditional on the client whose other arm answers "not acquired"',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
declare function connectRedis(): Promise<Redis | null>;
export async function nightly(run: () => Promise<void>) {
  const redis = await connectRedis();
  const token = randomUUID();
  const ok = redis ? await redis.set('lock:nightly', token, 'EX', 3600, 'NX') : null;
  if (!ok) return;
  await run();
}
`,
    },
    {
      name: 'no Redis configured: failing open said in a comment after the branch, on its line',
      code: `import Redis from 'ioredis';
declare function getRedis(): Redis | null;
export async function acquireCronLock(name: string, ttlSeconds: number): Promise<boolean> {
  const redis = getRedis();
  if (!redis) return true; // fail-open: no Redis in local development
  return (await redis.set(\`cron:\${name}\`, '1', 'EX', ttlSeconds, 'NX')) === 'OK';
}
`,
    },
    {
      name: 'Redis not reachable: the branch answers "not acquired", throws, or reconnects first',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis({ lazyConnect: true });
let redisReady = false;
redis.on('ready', () => (redisReady = true));
export async function tryLock(name: string): Promise<boolean> {
  if (!redisReady) return false;
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'PX', 10000, 'NX')) === 'OK';
}
export async function lockOrThrow(name: string): Promise<string> {
  if (redis.status !== 'ready') throw new Error('redis unavailable');
  const token = randomUUID();
  if ((await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) !== 'OK') throw new Error('busy');
  return token;
}
export async function lockAfterConnect(name: string): Promise<boolean> {
  if (redis.status !== 'ready') await redis.connect();
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'PX', 10000, 'NX')) === 'OK';
}
`,
    },
    {
      name: 'Redis not reachable, failing open marked as intended',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
let redisReady = false;
redis.on('ready', () => (redisReady = true));
export async function warmCache(name: string, fill: () => Promise<void>): Promise<void> {
  // lockwise: fail-open. A cache filled twice while Redis is down costs nothing.
  if (!redisReady) return fill();
  if ((await redis.set(\`lock:\${name}\`, randomUUID(), 'PX', 10000, 'NX')) !== 'OK') return;
  await fill();
}
`,
    },
    {
      name: 'a catch that rolls back and hands the error to next(err) (JavaScript), where the not-acquired path also calls next',
      fileName: 'wallet.js',
      code: `import Redis from 'ioredis';
const redis = new Redis();
const db = { async query(sql) {} };
export async function transfer(user, token, next) {
  try {
    const ok = await redis.set(\`lock:wallet:\${user}\`, token, 'EX', 10, 'NX');
    if (!ok) return next(new Error('busy'));
    await db.query('BEGIN');
    if (user === 'frozen') {
      await db.query('ROLLBACK');
      return next(new Error('frozen'));
    }
    await db.query('UPDATE wallets SET balance = balance - 1');
    await db.query('COMMIT');
    await redis.eval(${RELEASE}, 1, \`lock:wallet:\${user}\`, token);
  } catch (err) {
    await db.query('ROLLBACK');
    next(err);
  }
}
`,
    },
    { name: 'a catch that re-reads the record the locked work saves, to mark it failed: the read lets no second writer in', code: `${io}declare const orders: { findOne(id: string): Promise<{ paid: boolean } | null>; save(o: { paid: boolean }): Promise<void>; markFailed(id: string, why: string): Promise<void> };
export async function pay(id: string, me: string) {
  try {
    if ((await redis.set(\`lock:pay:\${id}\`, me, 'PX', 30000, 'NX')) !== 'OK') return;
    try {
      const order = await orders.findOne(id);
      if (!order) return;
      order.paid = true;
      await orders.save(order);
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:pay:\${id}\`, me);
    }
  } catch (err) {
    const order = await orders.findOne(id);
    if (order) await orders.markFailed(id, String(err));
  }
}
` },
    { name: 'a catch that schedules the withdrawal for a retry, as the locked work also does when the transfer did not confirm', code: `${io}declare const transfers: { send(id: string): Promise<boolean>; scheduleRetry(id: string): Promise<void> };
export async function withdraw(id: string, me: string) {
  try {
    if ((await redis.set(\`lock:withdraw:\${id}\`, me, 'PX', 60000, 'NX')) !== 'OK') return;
    try {
      if (!(await transfers.send(id))) await transfers.scheduleRetry(id);
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:withdraw:\${id}\`, me);
    }
  } catch (err) {
    await transfers.scheduleRetry(id);
  }
}
` },
    { name: 'callback style: the error branch hands the error on, or answers not acquired', code: `${io}export function lockJob(id: string, token: string, done: (err: Error | null, acquired?: boolean) => void) {
  redis.set(\`lock:job:\${id}\`, token, 'PX', 5000, 'NX', (err, ok) => {
    if (err) return done(err);
    done(null, ok === 'OK');
  });
}
export function lockCart(id: string, token: string, done: (err: Error | null, acquired: boolean) => void) {
  redis.set(\`lock:cart:\${id}\`, token, 'PX', 5000, 'NX', (err, ok) => {
    if (err) return done(null, false);
    done(null, ok === 'OK');
  });
}
` },
    { name: 'the catch falls back to another acquire and grants only what that one took', code: `${io}export async function acquireLock(key: string, value: string, ttlSeconds: number): Promise<boolean> {
  try {
    return (await redis.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
  } catch (error) {
    console.warn('SET NX EX failed, trying SETNX', error);
    const taken = await redis.setnx(key, value);
    if (taken === 1) {
      await redis.expire(key, ttlSeconds);
      return true;
    }
    return false;
  }
}
` },
    { name: 'the catch rethrows', code: `${io}export async function acquireLock(name: string, token: string) {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    throw new Error(\`cannot reach Redis to lock \${name}\`, { cause: err });
  }
}
` },
    { name: 'a call that only builds what the catch logs runs no work', code: `${io}const log = { error(...args: unknown[]) {} };
export async function charge(id: { toString(): string }, token: string) {
  let ok: string | null = null;
  try {
    ok = await redis.set(\`lock:charge:\${id.toString()}\`, token, 'PX', 10000, 'NX');
  } catch (err) {
    log.error(err, { id: id.toString() });
  }
  if (!ok) return false;
  await record(id.toString());
  return true;
}
async function record(id: string) {}
` },
    { name: 'redis-semaphore: after a catch that logs, an early return decides', code: `${MUTEX}export async function refresh(accountId: string) {
  const mutex = new Mutex(redis, \`lock:refresh:\${accountId}\`);
  let locked = false;
  try {
    await mutex.acquire();
    locked = true;
  } catch (err) {
    log.error(err);
  }
  if (!locked) return;
  try {
    await sync(accountId);
  } finally {
    await mutex.release();
  }
}
` },
    { name: 'the catch returns not acquired', code: `${nr}export async function acquireLock(name: string, token: string) {
  try {
    return (await client.set(\`lock:\${name}\`, token, { NX: true, PX: 10000 })) === 'OK';
  } catch {
    return false;
  }
}
` },
    { name: 'fail-open said out loud', code: `${io}export async function withOptionalLock<T>(name: string, token: string, fn: () => Promise<T>): Promise<T | undefined> {
  let ok: string | null;
  try {
    ok = await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX');
  } catch {
    // lockwise: fail-open. A duplicate thumbnail is cheaper than no thumbnails while Redis is down.
    return fn();
  }
  if (!ok) return undefined;
  try {
    return await fn();
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:\${name}\`, token);
  }
}
` },
    { name: 'fail-open said in other words: falling back to allowing the caller in', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // Fall back to allowing the run: a second run is harmless, a skipped one is not.
    return true;
  }
}
` },
    { name: 'fail-open said in other words: proceed without the lock', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // Redis unreachable: proceed without the lock, the report is rebuilt from scratch each time.
    return true;
  }
}
` },
    { name: 'fail-open said in other words: the lock fails open on purpose', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // On a Redis outage this lock fails open on purpose: the job is idempotent.
    return true;
  }
}
` },
    { name: 'fail-open said in other words: degrade gracefully', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // Degrade gracefully when Redis is down: the dedupe is an optimisation.
    return true;
  }
}
` },
    { name: 'fail-open said in the file header: when Redis is unavailable the lock degrades gracefully to an in-process set', code: `/**
 * Per-lead lock over Redis SET NX EX.
 *
 * Fallback: if Redis is unavailable, degrades gracefully to an in-memory Set (one instance only).
 */
${io}const local = new Set<string>();
export class LeadLock {
  constructor(private readonly key: string, private readonly token: string) {}
  async acquire(): Promise<boolean> {
    try {
      return (await redis.set(this.key, this.token, 'EX', 20, 'NX')) === 'OK';
    } catch {
      if (local.has(this.key)) return false;
      local.add(this.key);
      return true;
    }
  }
}
` },
    { name: 'fail-open said in other words: just proceed, degraded mode', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // If the lock cannot be taken, just proceed: degraded mode, a duplicate sync is harmless.
    return true;
  }
}
` },
    { name: 'fail-open said in other words: allow processing', code: `${io}export async function claimLock(name: string, token: string): Promise<boolean> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    // An outage must not stop the queue: allow processing, at worst a report is built twice.
    return true;
  }
}
` },
    {
      name: 'redis-semaphore: going on unlocked is written down before the lock is declared (best-effort, proceed unlocked)',
      code: loggedThenSync(`  /*
   * Serialize refreshes of one account across pods. Best-effort: if the lock cannot be taken (Redis
   * down, or the wait runs out) we proceed unlocked, no worse than without it.
   */
`),
    },
    {
      name: "redis-semaphore: the method's doc says a failed acquire degrades to the unserialized path",
      code: `${MUTEX}export class Refresher {
  /**
   * Refreshes one account. Runs under a per-account mutex; if the lock cannot be acquired (Redis
   * unavailable) this degrades to the unserialized refresh rather than dropping it.
   */
  async refresh(accountId: string) {
    const mutex = new Mutex(redis, \`lock:refresh:\${accountId}\`);
    try {
      await mutex.acquire();
    } catch (err) {
      log.error(err);
    }
    await sync(accountId);
    await mutex.release().catch(() => undefined);
  }
}
`,
    },
    { name: 'fail-open chosen by configuration', code: `import Redis from 'ioredis';
export class Locker {
  constructor(private readonly redis: Redis, private readonly options: { failOpen: boolean }) {}
  async acquireLock(name: string, token: string) {
    try {
      return (await this.redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
    } catch (err) {
      if (this.options.failOpen) return true;
      throw err;
    }
  }
}
` },
    { name: 'the catch returns an answer that is not a grant', code: `${io}export async function lockState(name: string, token: string): Promise<'acquired' | 'busy' | 'unavailable'> {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) ? 'acquired' : 'busy';
  } catch {
    return 'unavailable';
  }
}
` },
    { name: 'a cache read that falls back to the database is not a lock', code: `${io}export async function price(id: string, load: (id: string) => Promise<string>) {
  try {
    const hit = await redis.get(\`cache:price:\${id}\`);
    if (hit) return hit;
  } catch {
    return load(id);
  }
  return load(id);
}
` },
    { name: 'a rate limiter that allows the request when Redis is down', code: `${io}export async function allow(ip: string) {
  try {
    const n = await redis.incr(\`rate:\${ip}\`);
    if (n === 1) await redis.expire(\`rate:\${ip}\`, 60);
    return n <= 100;
  } catch {
    return true;
  }
}
` },
    ...answerValidCases,
    { name: 'an acquire only while Redis answered a ping, then a test of its answer before the work', code: pingedOrder("  if (!held) throw new Error('no lock, no order');\n") },
    { name: 'no client: null handed back, as when the lock is busy', code: releaseFnWithoutClient('    if (!this.redis) return null;') },
    { name: 'no client: a no-op release function, the comment after it in the branch naming Redis', code: releaseFnWithoutClient('    if (!this.redis) {\n      return async () => {}; // No-op when Redis is unavailable: single-replica mode\n    }') },
    { name: 'no client: a no-op release function, documented as running unlocked without Redis', code: releaseFnWithoutClient('    // Without Redis (local development) every caller runs unlocked.\n    if (!this.redis) return async () => {};') },
    {
      name: "no client: a no-op release function, the file's header saying every acquire succeeds when Upstash is not configured",
      code: `/**
 * Job locks. When Upstash is not configured every acquire succeeds: a deliberate fail-open for local runs.
 */
${releaseFnWithoutClient('    if (!this.redis) return async () => {};')}`,
    },
    {
      name: 'no client: a no-op release function, its JSDoc saying callers run unlocked when Redis is not configured',
      code: releaseFnWithoutClient('    if (!this.redis) return async () => {};').replace('  async acquireLock(', `  /** Takes the lock; when Redis is not configured every caller runs unlocked. */
  async acquireLock(`),
    },
    {
      name: 'no client: a no-op release function, its JSDoc naming Redis as a requirement and saying what happens otherwise',
      code: releaseFnWithoutClient('    if (!this.redis) return async () => {};').replace('  async acquireLock(', `  /** Requires a Redis instance to be available, otherwise every caller just runs its work. */
  async acquireLock(`),
    },
  ],
  invalid: [
    {
      name: 'a redlock wrapper whose catch throws only when the caller asks for it (a parameter, false by default): by default the work runs without the lock',
      message: ['this catch lets the function go on'],
      code: `import Redis from 'ioredis';
import Redlock, { type Lock } from 'redlock';
const log = { error(...args: unknown[]) {} };
export class Guarded {
  private readonly redlock: Redlock;
  constructor(private readonly name: string, redis: Redis) {
    this.redlock = new Redlock([redis], { retryCount: 10, retryDelay: 200, retryJitter: 100 });
  }
  async run<T>(work: () => Promise<T>, failIfBusy = false): Promise<T> {
    let lock: Lock | undefined;
    try {
      lock = await this.redlock.acquire([\`lock:\${this.name}\`], 30_000);
    } catch (error) {
      log.error('could not lock', this.name, error);
      if (failIfBusy) {
        throw new Error(\`busy: \${this.name}\`);
      }
    }
    return work().finally(() => lock?.release().catch(() => undefined));
  }
}
`,
    },
    {
      name: "the same `.catch` answering 'OK' under an `if` whose comment says nothing of Redis failing",
      message: ['OK'],
      code: priceRefresher('// With several instances, a SET NX lock lets one refresh per interval.'),
    },
    {
      name: 'no client: a no-op release function handed back as if the lock were taken',
      message: ['When the Redis client is not configured'],
      code: releaseFnWithoutClient('    if (!this.redis) return async () => {};'),
    },
    {
      name: "no client: the same, under a JSDoc whose example names Redis but says nothing of running without it",
      message: ['When the Redis client is not configured'],
      code: releaseFnWithoutClient('    if (!this.redis) return async () => {};').replace('  async acquireLock(', `  /**
   * Takes the lock and hands back its release. Example:
   * \`const release = await redisLocks.acquireLock('nightly'); if (!release) return;\`
   * Null when the lock is not acquired.
   */
  async acquireLock(`),
    },
    {
      name: 'an acquire only while Redis answered a ping, then the work on both paths: with Redis down it runs unlocked',
      message: ['cannot be reached', 'runs `reserveStock`'],
      code: pingedOrder(''),
    },
    {
      name: 'a present-client test around the acquire that always leaves, then the work run with no lock after it',
      message: ['When the Redis client is not configured', 'runs `fn`'],
      code: clientOrFallback(`  const holders = new Map<string, string>();
  if (holders.has(key)) throw new Error('busy');
  holders.set(key, token);
  try {
    return await fn();
  } finally {
    holders.delete(key);
  }`),
    },
    {
      name: 'a fallback acquire in the catch whose answer is not what is returned',
      message: ['returns `true`'],
      code: `${io}export async function acquireLock(key: string, value: string): Promise<boolean> {
  try {
    return (await redis.set(key, value, 'EX', 30, 'NX')) === 'OK';
  } catch (error) {
    const taken = await redis.setnx(key, value);
    if (taken === 1) await redis.expire(key, 30);
    return true;
  }
}
`,
    },
    {
      name: 'redis-semaphore: a catch that only logs lets the function go on to the work',
      message: ['lets the function go on to run `sync`'],
      code: `${MUTEX}export async function refresh(accountId: string) {
  const mutex = new Mutex(redis, \`lock:refresh:\${accountId}\`);
  try {
    await mutex.acquire();
  } catch (err) {
    log.error(err, { account: accountId.toString() });
  }
  await sync(accountId);
  await mutex.release().catch(() => undefined);
}
`,
    },
    {
      name: 'redis-semaphore: a comment before the lock says why it exists, not that a failure may go on unlocked',
      message: ['lets the function go on to run `sync`'],
      code: loggedThenSync(`  // Serialize refreshes of one account across pods: the read and the insert must not interleave.
`),
    },
    {
      name: 'ioredis: catch returns true',
      message: ['fails with an error', 'returns `true`', 'fail-open'],
      code: `${io}export async function acquireLock(name: string, token: string) {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    console.warn('redis unavailable, continuing', err);
    return true;
  }
}
`,
      output: `${io}export async function acquireLock(name: string, token: string) {
  try {
    return (await redis.set(\`lock:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK';
  } catch (err) {
    console.warn('redis unavailable, continuing', err);
    throw err;
  }
}
`,
    },
    {
      name: 'node-redis: catch runs the critical section',
      message: ['runs `fn`'],
      output: null,
      code: `${nr}export async function withLock<T>(name: string, token: string, fn: () => Promise<T>): Promise<T | undefined> {
  let ok: string | null;
  try {
    ok = await client.set(\`lock:\${name}\`, token, { NX: true, PX: 10000 });
  } catch {
    return fn();
  }
  if (!ok) return undefined;
  try {
    return await fn();
  } finally {
    await client.eval(${RELEASE}, { keys: [\`lock:\${name}\`], arguments: [token] });
  }
}
`,
    },
    {
      name: 'callback style: the error branch of the acquire\'s callback answers acquired',
      message: ['error branch of its callback', 'done(null, true)'],
      output: null,
      code: `${io}export function lockJob(id: string, token: string, done: (err: Error | null, acquired?: boolean) => void) {
  redis.set(\`lock:job:\${id}\`, token, 'PX', 5000, 'NX', (err, ok) => {
    if (err) return done(null, true);
    done(null, ok === 'OK');
  });
}
`,
    },
    {
      name: '.catch on the acquire says OK',
      code: `${io}export async function lockCart(id: string, token: string) {
  const ok = await redis.set(\`lock:cart:\${id}\`, token, 'PX', 5000, 'NX').catch(() => 'OK');
  return ok === 'OK';
}
`,
      output: `${io}export async function lockCart(id: string, token: string) {
  const ok = await redis.set(\`lock:cart:\${id}\`, token, 'PX', 5000, 'NX').catch(() => null);
  return ok === 'OK';
}
`,
    },
    {
      name: 'redlock: catch hands back a no-op release',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()], { retryCount: 3 });
export async function lockAccount(id: string) {
  try {
    const lock = await redlock.acquire([\`lock:account:\${id}\`], 10000);
    return { release: () => lock.release() };
  } catch {
    return { release: async () => {} };
  }
}
`,
    },
    {
      name: 'no client while it is not connected: a getter answering null on a flag, not a setting',
      message: ['not configured'],
      code: taskWithoutClient(`function getClient(): Redis | null {
  if (!connected) return null;
  return shared;
}`),
    },
    {
      name: 'no client when connecting failed: a getter answering null from its catch',
      message: ['not configured'],
      code: taskWithoutClient(`function getClient(): Redis | null {
  if (!process.env.REDIS_URL) return null;
  try {
    return (shared ??= new Redis(process.env.REDIS_URL));
  } catch {
    return null;
  }
}`),
    },
    {
      name: 'no Redis configured: run the work without a lock',
      message: ['not configured'],
      code: jobBehind('?', 'if (!this.redis) return job();'),
    },
    {
      name: 'a readiness flag kept by the client events: when it is down, the branch grants',
      message: ['cannot be reached', 'returns `true`'],
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
let redisReady = false;
redis.on('ready', () => (redisReady = true));
redis.on('end', () => (redisReady = false));
export async function takeLock(name: string): Promise<boolean> {
  if (!redisReady) return true;
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'PX', 10000, 'NX')) === 'OK';
}
`,
    },
    {
      name: "ioredis status other than 'ready': run the job without the lock",
      message: ['cannot be reached', 'runs `job`'],
      code: jobBehind('', "if (this.redis.status !== 'ready') return job();"),
    },
    {
      name: 'node-redis isReady checked by an availability method: the else branch grants',
      message: ['cannot be reached', 'returns `{ acquired: true'],
      code: `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
const client = createClient();
export async function lockOrder(orderId: string) {
  if (client.isReady) {
    const token = randomUUID();
    const ok = await client.set(\`lock:order:\${orderId}\`, token, { NX: true, PX: 15000 });
    return ok === 'OK' ? { acquired: true, token } : { acquired: false };
  } else {
    return { acquired: true, token: 'local' };
  }
}
`,
    },
    {
      name: 'a flag from the client ping: when the ping fails, the branch grants',
      message: ['cannot be reached'],
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function claim(name: string): Promise<boolean> {
  const alive = await redis.ping().then(() => true, () => false);
  if (!alive) return true;
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'EX', 30, 'NX')) === 'OK';
}
`,
    },
    {
      name: 'a caught ping before the acquire: the catch grants',
      message: ['cannot be reached', 'branch returns `true`'],
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function claim(name: string): Promise<boolean> {
  try {
    await redis.ping();
  } catch {
    return true;
  }
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'EX', 30, 'NX')) === 'OK';
}
`,
    },
    {
      name: 'an availability method of the lock service: when it says no, the branch grants',
      message: ['cannot be reached'],
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class LockService {
  constructor(private readonly redis: Redis) {}
  private async isRedisAvailable(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }
  async acquire(key: string): Promise<{ release(): Promise<void> } | null> {
    if (!(await this.isRedisAvailable())) return { release: async () => {} };
    const token = randomUUID();
    if ((await this.redis.set(\`lock:\${key}\`, token, 'PX', 5000, 'NX')) !== 'OK') return null;
    return { release: async () => void (await this.redis.eval(${RELEASE}, 1, \`lock:\${key}\`, token)) };
  }
}
`,
    },
    {
      name: 'a catch that logs, then a read and throws on the data it read before the write: the function goes on to the work',
      message: ['lets the function go on to run `updateOneById`'],
      code: `${MUTEX}declare const accounts: { findOneById(id: string): Promise<{ id: string; customer?: string } | null>; updateOneById(id: string, data: object): Promise<void> };
declare function fetchPlan(customer: string): Promise<string>;
export async function refreshPlan(accountId: string): Promise<void> {
  const mutex = new Mutex(redis, \`lock:plan:\${accountId}\`, { lockTimeout: 15000, onLockLost: () => undefined });
  let held = false;
  try {
    await mutex.acquire();
    held = true;
  } catch (err) {
    log.error(err);
  }
  const account = await accounts.findOneById(accountId);
  if (!account) throw new Error('no such account');
  if (!account.customer) throw new Error('no customer');
  await accounts.updateOneById(account.id, { plan: await fetchPlan(account.customer) });
  if (held) await mutex.release();
}
`,
    },
    {
      name: 'a connected check around the acquire that returns, then an in-process Map lock after it: the fallback grants on every instance',
      message: ['cannot be reached', 'returns `token`'],
      code: connectedThen(`  if (local.has(key)) return null;
  const token = randomUUID();
  local.set(key, token);
  setTimeout(() => local.delete(key), seconds * 1000);
  return token;`),
    },
    {
      name: 'through a helper acquire: catch returns true',
      config: { helpers: { acquire: ['acquireLock'], release: ['releaseLock'], extend: [] } },
      code: `declare function acquireLock(key: string): Promise<boolean>;
export async function tryLock(key: string) {
  try {
    return await acquireLock(key);
  } catch {
    return true;
  }
}
`,
    },
    ...answerInvalidCases,
  ],
};
