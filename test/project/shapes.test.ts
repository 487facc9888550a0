// The shapes real projects hide their locks behind, each a small project of its own: a lock module
// used by routes, an injected NestJS service, command wrappers, CommonJS, barrels, path aliases,
// helpers calling helpers. Each lists exactly the findings it must give, by file and rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';
import { getSetMutex } from '../rules/tables/preludes';

const client = `import Redis from 'ioredis';
export const redis = new Redis();
`;

/**
 * A lock class on the project's key-value store, whose own option (`canOverride: false`) the store turns
 * into NX; `attempt` is one try of its retry loop.
 */
function storeLocking(attempt: string): Record<string, string> {
  return {
    'src/store.ts': `import { createClient } from 'redis';
export interface KeyValueStore {
  set(key: string, value: string, opts?: { canOverride?: boolean; ttlMs?: number }): Promise<void>;
  delete(key: string): Promise<void>;
}
export class RedisKeyValueStore implements KeyValueStore {
  constructor(private readonly client: ReturnType<typeof createClient>) {}
  async set(key: string, value: string, opts?: { canOverride?: boolean; ttlMs?: number }): Promise<void> {
    const options: Record<string, unknown> = {};
    if (opts?.ttlMs) options['PX'] = opts.ttlMs;
    if (opts?.canOverride === false) options['NX'] = true;
    if ((await this.client.set(key, value, options)) !== 'OK') throw new Error('key exists');
  }
  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }
}
`,
    'src/locking.ts': `import type { KeyValueStore } from './store';
export class Locking {
  constructor(private readonly store: KeyValueStore) {}
  async acquire(key: string, ttlMs: number): Promise<{ key: string }> {
    await this.store.set(key, 'held', { canOverride: false, ttlMs });
    return { key };
  }
  async release(lock: { key: string }): Promise<void> {
    await this.store.delete(lock.key);
  }
  async tryAcquire(key: string, ttlMs: number, timeoutMs: number): Promise<{ key: string }> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      try {
        ${attempt}
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    throw new Error(\`timed out locking \${key}\`);
  }
}
`,
  };
}

interface Shape {
  name: string;
  files: Record<string, string>;
  expected: string[];
}

// A NestJS-style service forwarding to the client: its expire and del are thin wrappers.
const REDIS_SERVICE = `import Redis from 'ioredis';
export class RedisService {
  private readonly client = new Redis();
  async expire(key: string, seconds: number) {
    return this.client.expire(key, seconds);
  }
  async del(key: string) {
    return this.client.del(key);
  }
}
`;

/** A class that renews `this.key` from a timer its constructor starts and deletes it in release(). */
const renewingClass = (name: string) => `import { RedisService } from '../redis/redis.service';
export class ${name} {
  private readonly timer: NodeJS.Timeout;
  constructor(private readonly redis: RedisService, private readonly key: string, private readonly ttlSeconds: number) {
    this.timer = setInterval(() => {
      void this.redis.expire(this.key, this.ttlSeconds);
    }, (ttlSeconds / 2) * 1000);
  }
  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(this.key);
  }
}
`;

/** A redlock lock extended in a timer with its answer dropped, the package listing redlock `major`. */
const redlockTimer = (major: number, expected: string[]): Shape => ({
  name: `a redlock lock extended in a timer with its result dropped, the package listing redlock ^${major}`,
  files: {
    'package.json': `{ "dependencies": { "redlock": "^${major}.0.0", "ioredis": "^5.0.0" } }`,
    'src/refresh.ts': `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
declare function work(): Promise<void>;
export async function refreshAll(resource: string) {
  const lock = await redlock.acquire([\`locks:\${resource}\`], 3000);
  const timer = setInterval(async () => {
    await lock.extend(3000);
  }, 1000);
  try {
    await work();
  } finally {
    clearInterval(timer);
    await lock.release();
  }
}
`,
  },
  expected,
});

/** A job class whose client is typed by `type` from '../lib/redis', taking its lock with ioredis-style words. */
const baseJob = (type: string) => `import type { ${type} } from '../lib/redis';
export abstract class BaseJob {
  constructor(protected readonly redis: ${type}, private readonly name: string) {}
  async run(): Promise<boolean> {
    const acquired = await this.redis.set(\`jobs:\${this.name}\`, '1', 'NX', 'EX', 300);
    if (!acquired) return false;
    await this.work();
    return true;
  }
  protected abstract work(): Promise<void>;
}
`;

const shapes: Shape[] = [
  {
    name: "another file's sleep handed an abort signal as well may reject between the acquire and the try: a path that skips the release",
    files: {
      'src/utils/time.ts': `export function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    signal?.addEventListener('abort', () => reject(new Error('aborted')));
    setTimeout(resolve, ms);
  });
}
`,
      'src/jobs/settle.ts': `import Redis from 'ioredis';
import { sleep } from '../utils/time';
const redis = new Redis();
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
declare function work(): Promise<void>;
export async function settle(id: string, token: string, signal: AbortSignal) {
  const key = \`lock:settle:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  await sleep(5, signal);
  try {
    await work();
  } finally {
    await redis.eval(RELEASE, 1, key, token);
  }
}
`,
    },
    expected: ['src/jobs/settle.ts: release-on-all-paths'],
  },
  {
    name: "an injected lock service whose acquire method sets without NX: reported in it once, and an acquire to the job that calls it",
    files: {
      'src/locks/mutex.service.ts': `import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
@Injectable()
export class MutexService {
  constructor(private readonly client: Redis) {}
  async acquire(name: string, owner: string, ttlMs: number) {
    return (await this.client.set(name, owner, 'PX', ttlMs)) === 'OK';
  }
  async release(name: string) {
    await this.client.del(name);
  }
}
`,
      'src/jobs/payout.job.ts': `import { Injectable } from '@nestjs/common';
import { MutexService } from '../locks/mutex.service';
declare function pay(batch: string): Promise<void>;
@Injectable()
export class PayoutJob {
  constructor(private readonly mutex: MutexService) {}
  async run(batch: string) {
    if (!(await this.mutex.acquire(\`payout:\${batch}\`, 'payout-worker', 30000))) return;
    await pay(batch);
    await this.mutex.release(\`payout:\${batch}\`);
  }
}
`,
    },
    expected: [
      'src/jobs/payout.job.ts: release-on-all-paths',
      'src/jobs/payout.job.ts: unique-token',
      'src/locks/mutex.service.ts: exclusive-acquire',
      'src/locks/mutex.service.ts: owner-checked-release',
    ],
  },
  {
    name: 'a lock helper taken by GET then SET without NX through a cache module: reported in it once, and an acquire to its callers',
    files: {
      'src/lib/cache.ts': `import Redis from 'ioredis';
const redis = new Redis();
export async function readCache(key: string): Promise<string | null> {
  const raw = await redis.get(key);
  return raw ? JSON.parse(raw) : null;
}
export async function writeCache(key: string, value: unknown, ttlSeconds = 300): Promise<void> {
  await redis.set(key, JSON.stringify(value), 'EX', ttlSeconds);
}
export async function dropCache(key: string): Promise<void> {
  await redis.del(key);
}
`,
      'src/jobs/lock.ts': `import { readCache, writeCache } from '../lib/cache';
import { randomUUID } from 'node:crypto';
export async function takeJobLock(job: string): Promise<boolean> {
  if (await readCache(\`job-lock:\${job}\`)) return false;
  await writeCache(\`job-lock:\${job}\`, randomUUID(), 120);
  return true;
}
`,
      'src/jobs/rates.ts': `import { takeJobLock } from './lock';
import { dropCache } from '../lib/cache';
declare function fetchRates(): Promise<void>;
export async function refreshRates() {
  await takeJobLock('rates');
  await fetchRates();
  await dropCache('job-lock:rates');
}
export async function refreshRatesGuarded() {
  if (!(await takeJobLock('rates-guarded'))) return;
  try {
    await fetchRates();
  } finally {
    await dropCache('job-lock:rates-guarded');
  }
}
`,
    },
    expected: [
      'src/jobs/lock.ts: exclusive-acquire',
      'src/jobs/rates.ts: check-acquire-result',
      'src/jobs/rates.ts: owner-checked-release',
      'src/jobs/rates.ts: owner-checked-release',
      'src/jobs/rates.ts: release-on-all-paths',
    ],
  },
  {
    name: 'a per-lock class renewing from its constructor and releasing through a NestJS redis wrapper',
    files: { 'src/redis/redis.service.ts': REDIS_SERVICE, 'src/lock/lock.ts': renewingClass('Lock') },
    expected: ['src/lock/lock.ts: owner-checked-extend', 'src/lock/lock.ts: owner-checked-release', 'src/lock/lock.ts: stop-on-lock-lost'],
  },
  {
    name: "a cache class's release() and constructor timer are no lock's: only a class named like a lock makes them one",
    files: { 'src/redis/redis.service.ts': REDIS_SERVICE, 'src/lock/lock.ts': renewingClass('CachedEntry') },
    expected: [],
  },
  {
    name: 'a lock module used by a route: the ignored result, the missing finally, the bare DEL once in the module',
    files: {
      'src/redis.ts': client,
      'src/utils/redisLock.ts': `import { redis } from '../redis';
import { randomUUID } from 'node:crypto';
export async function acquireLock(key: string, ttlMs = 5000) {
  return redis.set(key, randomUUID(), 'PX', ttlMs, 'NX');
}
export async function releaseLock(key: string) {
  await redis.del(key);
}
`,
      'src/routes/orders.ts': `import { acquireLock, releaseLock } from '../utils/redisLock';
export async function pay(orderId: string, charge: () => Promise<void>) {
  const key = \`lock:order:\${orderId}\`;
  await acquireLock(key);
  await charge();
  await releaseLock(key);
}
`,
    },
    expected: ['src/routes/orders.ts: check-acquire-result', 'src/routes/orders.ts: release-on-all-paths', 'src/utils/redisLock.ts: owner-checked-release'],
  },
  {
    name: 'a correct caller of the same module gives nothing at the call site',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': `import { redis } from './redis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function acquireLock(key: string, ttlMs: number): Promise<string | null> {
  const token = randomUUID();
  const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
  return ok === 'OK' ? token : null;
}
export async function releaseLock(key: string, token: string) {
  await redis.eval(RELEASE, 1, key, token);
}
`,
      'src/jobs/report.ts': `import { acquireLock, releaseLock } from '../lock';
export async function nightly(run: () => Promise<void>) {
  const token = await acquireLock('lock:nightly', 60_000);
  if (!token) return;
  try {
    await run();
  } finally {
    await releaseLock('lock:nightly', token);
  }
}
`,
    },
    expected: [],
  },
  {
    name: 'an injected NestJS service (constructor parameter property) whose acquire is not checked',
    files: {
      'src/lock/redis-lock.service.ts': `import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
@Injectable()
export class RedisLockService {
  constructor(private readonly redis: Redis) {}
  async acquire(key: string, ttl = 10000): Promise<boolean> {
    const result = await this.redis.set(\`lock:\${key}\`, randomUUID(), 'PX', ttl, 'NX');
    return result === 'OK';
  }
  async release(key: string): Promise<void> {
    await this.redis.del(\`lock:\${key}\`);
  }
}
`,
      'src/orders/orders.service.ts': `import { Injectable } from '@nestjs/common';
import { RedisLockService } from '../lock/redis-lock.service';
@Injectable()
export class OrdersService {
  constructor(private readonly lockService: RedisLockService) {}
  async ship(id: string) {
    await this.lockService.acquire(\`order:\${id}\`);
    try {
      await this.send(id);
    } finally {
      await this.lockService.release(\`order:\${id}\`);
    }
  }
  private async send(id: string) {}
}
`,
    },
    expected: ['src/lock/redis-lock.service.ts: owner-checked-release', 'src/orders/orders.service.ts: check-acquire-result'],
  },
  {
    name: 'a redisService wrapper: setnx + expire through it is not atomic, delete through it deletes anyone',
    files: {
      'src/redis/redis.service.ts': `import Redis from 'ioredis';
export class RedisService {
  private client = new Redis();
  async setnx(key: string, value: string) {
    return this.client.setnx(key, value);
  }
  async expire(key: string, seconds: number) {
    return this.client.expire(key, seconds);
  }
  async delete(key: string) {
    return this.client.del(key);
  }
}
`,
      'src/cron/cleanup.ts': `import { RedisService } from '../redis/redis.service';
export class Cleanup {
  constructor(private readonly redisService: RedisService) {}
  async run(work: () => Promise<void>) {
    const lockKey = 'lock:cleanup';
    const ok = await this.redisService.setnx(lockKey, String(Date.now()));
    if (!ok) return;
    await this.redisService.expire(lockKey, 60);
    try {
      await work();
    } finally {
      await this.redisService.delete(lockKey);
    }
  }
}
`,
    },
    expected: ['src/cron/cleanup.ts: atomic-acquire', 'src/cron/cleanup.ts: owner-checked-release', 'src/cron/cleanup.ts: unique-token'],
  },
  {
    name: 'a CommonJS helper through module.exports and a destructured require',
    files: {
      'lib/lock.js': `const redis = require('./redis');
async function acquireLock(key, ttl) {
  return redis.set(key, 'locked', 'NX', 'EX', ttl);
}
async function releaseLock(key) {
  return redis.del(key);
}
module.exports = { acquireLock, releaseLock };
`,
      'lib/redis.js': `const Redis = require('ioredis');
module.exports = new Redis();
`,
      'lib/worker.js': `const { acquireLock, releaseLock } = require('./lock');
async function handle(job) {
  if (!(await acquireLock('lock:job:' + job.id, 30))) return;
  await job.run();
  await releaseLock('lock:job:' + job.id);
}
module.exports = { handle };
`,
    },
    expected: ['lib/lock.js: owner-checked-release', 'lib/lock.js: unique-token', 'lib/worker.js: release-on-all-paths'],
  },
  {
    name: 'a barrel re-export and a tsconfig paths alias',
    files: {
      'tsconfig.json': `{
  // comments are allowed here
  "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"], }, },
}`,
      'src/redis.ts': client,
      'src/shared/locks/mutex.ts': `import { redis } from '../../redis';
import { randomUUID } from 'node:crypto';
export async function tryLock(name: string): Promise<boolean> {
  return (await redis.set(\`mutex:\${name}\`, randomUUID(), 'NX', 'PX', 30000)) === 'OK';
}
`,
      'src/shared/locks/index.ts': `export * from './mutex';
`,
      'src/shared/index.ts': `export { tryLock as takeLock } from './locks';
`,
      'src/billing/invoices.ts': `import { takeLock } from '@app/shared';
export async function issue(id: string) {
  takeLock(\`invoice:\${id}\`);
  await send(id);
}
async function send(id: string) {}
`,
    },
    expected: ['src/billing/invoices.ts: check-acquire-result'],
  },
  {
    name: 'a solution-style tsconfig: the paths alias is in a config it references',
    files: {
      'tsconfig.json': `{ "files": [], "references": [{ "path": "./tsconfig.app.json" }, { "path": "./tests" }] }`,
      'tsconfig.app.json': `{ "compilerOptions": { "paths": { "@lib/*": ["./src/lib/*"] } }, "include": ["src"] }`,
      'tests/tsconfig.json': `{ "compilerOptions": { "paths": { "@lib/*": ["../fixtures/*"] } } }`,
      'src/redis.ts': client,
      'src/lib/lock.ts': `import { redis } from '../redis';
import { randomUUID } from 'node:crypto';
export async function tryLock(name: string): Promise<boolean> {
  return (await redis.set(\`lock:\${name}\`, randomUUID(), 'NX', 'PX', 30000)) === 'OK';
}
`,
      'src/billing/invoices.ts': `import { tryLock } from '@lib/lock';
export async function issue(id: string, send: () => Promise<void>) {
  await tryLock(\`invoice:\${id}\`);
  await send();
}
`,
    },
    expected: ['src/billing/invoices.ts: check-acquire-result'],
  },
  {
    // The barrel is indexed once by name: a name is looked for in each star module that exports it, in order.
    name: 'a barrel of barrels, where the first module naming the export cannot resolve it',
    files: {
      'src/redis.ts': client,
      'src/locks/vendor.ts': `export { tryLock } from 'some-package';
export const vendorName = 'x';
`,
      'src/locks/own/mutex.ts': `import { redis } from '../../redis';
import { randomUUID } from 'node:crypto';
export async function tryLock(name: string): Promise<boolean> {
  return (await redis.set(\`mutex:\${name}\`, randomUUID(), 'NX', 'PX', 30000)) === 'OK';
}
`,
      'src/locks/own/index.ts': `export * from './mutex';
`,
      'src/locks/index.ts': `export * from './vendor';
export * from './own';
`,
      'src/billing/invoices.ts': `import { tryLock } from '../locks';
export async function issue(id: string) {
  tryLock(\`invoice:\${id}\`);
  await send(id);
}
async function send(id: string) {}
`,
    },
    expected: ['src/billing/invoices.ts: check-acquire-result'],
  },
  {
    // Keys built from an options object: the argument as written is the key at each call site.
    name: 'static lock helpers taking an options object, handing back a redis-semaphore Mutex',
    files: {
      'src/infra/locks.ts': `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const client = new Redis();
export default class Locks {
  static async lock(options: { name: string; scope: string; timeoutMs?: number }): Promise<Mutex> {
    const { name } = options;
    const mutex = new Mutex(client, options.scope + ':' + name, { lockTimeout: options.timeoutMs ?? 5000 });
    await mutex.acquire();
    return mutex;
  }
  static async unlock(mutex: Mutex): Promise<void> {
    await mutex.release();
  }
}
`,
      'src/billing/refresh.ts': `import Locks from '../infra/locks';
import type { Mutex } from 'redis-semaphore';
export async function refresh(accountId: string, sync: () => Promise<void>) {
  let mutex: Mutex | null = null;
  try {
    mutex = await Locks.lock({ name: accountId, scope: 'billing.refresh' });
  } catch (err) {
    console.error(err);
  }
  await sync();
  if (mutex) await Locks.unlock(mutex);
}
export async function settle(accountId: string, sync: () => Promise<void>) {
  const mutex = await Locks.lock({ name: accountId, scope: 'billing.settle' });
  try {
    await sync();
  } finally {
    await Locks.unlock(mutex);
  }
}
`,
    },
    expected: ['src/billing/refresh.ts: decide-redis-failure', 'src/billing/refresh.ts: release-on-all-paths', 'src/infra/locks.ts: handle-lock-lost'],
  },
  {
    name: 'a helper that calls a helper gets its meaning',
    files: {
      'src/redis.ts': client,
      'src/lock/core.ts': `import { redis } from '../redis';
import { randomUUID } from 'node:crypto';
export async function acquire(key: string, ttl: number): Promise<boolean> {
  return (await redis.set(key, randomUUID(), 'PX', ttl, 'NX')) !== null;
}
`,
      'src/lock/orders.ts': `import { acquire } from './core';
export function lockOrder(orderId: string) {
  return acquire(\`lock:order:\${orderId}\`, 10000);
}
`,
      'src/api/checkout.ts': `import { lockOrder } from '../lock/orders';
export async function checkout(orderId: string) {
  const locked = lockOrder(orderId);
  if (!locked) throw new Error('busy');
}
`,
    },
    expected: ['src/api/checkout.ts: check-acquire-result'],
  },
  {
    name: 'a withLock-like helper hands its routine a signal the routine ignores',
    files: {
      'src/locking.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()], { retryCount: 3 });
export function withResourceLock<T>(resource: string, routine: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return redlock.using([resource], 10_000, routine);
}
`,
      'src/sync.ts': `import { withResourceLock } from './locking';
export async function syncAll(pages: string[], push: (p: string) => Promise<void>) {
  await withResourceLock('lock:sync', async (signal) => {
    for (const page of pages) await push(page);
  });
}
`,
    },
    expected: ['src/sync.ts: respect-abort-signal'],
  },
  {
    name: 'a constant passed as the helper\'s token parameter',
    files: {
      'src/redis.ts': client,
      'src/locks.ts': `import { redis } from './redis';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function acquireLock(key: string, owner: string, ttlMs: number) {
  return (await redis.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK';
}
export async function releaseLock(key: string, owner: string) {
  return redis.eval(RELEASE, 1, key, owner);
}
`,
      'src/worker.ts': `import { acquireLock, releaseLock } from './locks';
export async function tick(work: () => Promise<void>) {
  if (!(await acquireLock('lock:tick', 'worker', 5000))) return;
  try {
    await work();
  } finally {
    await releaseLock('lock:tick', 'worker');
  }
}
`,
    },
    expected: ['src/worker.ts: unique-token'],
  },
  {
    name: 'an injected lock service that serializes the value it is given before the NX SET: a caller passing a constant value is reported',
    files: {
      'src/redis/lock.service.ts': `import Redis from 'ioredis';
export class LockService {
  constructor(private readonly redis: Redis) {}
  private encode(value: unknown): string {
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  async acquire(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const encoded = this.encode(value);
    return (await this.redis.set(key, encoded, 'PX', ttlMs, 'NX')) === 'OK';
  }
  async release(key: string, value: unknown): Promise<boolean> {
    const script = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
    return (await this.redis.eval(script, 1, key, this.encode(value))) === 1;
  }
}
`,
      'src/routes/refresh.ts': `import { randomUUID } from 'node:crypto';
import { LockService } from '../redis/lock.service';
export class RouteRefresher {
  constructor(private readonly locks: LockService) {}
  async refresh(reload: () => Promise<void>) {
    if (!(await this.locks.acquire('lock:routes', 'busy', 30000))) return;
    try {
      await reload();
    } finally {
      await this.locks.release('lock:routes', 'busy');
    }
  }
  async refreshOwned(reload: () => Promise<void>) {
    const owner = randomUUID();
    if (!(await this.locks.acquire('lock:routes:owned', owner, 30000))) return;
    try {
      await reload();
    } finally {
      await this.locks.release('lock:routes:owned', owner);
    }
  }
}
`,
    },
    expected: ['src/routes/refresh.ts: unique-token'],
  },
  {
    name: 'a self-contained runner taking the owner token as a parameter: the caller that passes a pid is reported, the one that passes a fresh UUID is not',
    files: {
      'src/redis.ts': client,
      'src/run-exclusive.ts': `import { redis } from './redis';
const COMPARE_AND_DELETE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function runExclusive<T>(resource: string, holder: string, job: () => Promise<T>): Promise<T | null> {
  if ((await redis.set(resource, holder, 'PX', 20_000, 'NX')) !== 'OK') return null;
  try {
    return await job();
  } finally {
    await redis.eval(COMPARE_AND_DELETE, 1, resource, holder);
  }
}
`,
      'src/reports.ts': `import { randomUUID } from 'node:crypto';
import { runExclusive } from './run-exclusive';
export function monthly(build: () => Promise<string>) {
  return runExclusive('lock:report:monthly', \`reports-\${process.pid}\`, build);
}
export function weekly(build: () => Promise<string>) {
  return runExclusive('lock:report:weekly', randomUUID(), build);
}
export function daily(holder: string, build: () => Promise<string>) {
  return runExclusive('lock:report:daily', holder, build);
}
`,
    },
    expected: ['src/reports.ts: unique-token'],
  },
  {
    name: 'a class exported as a class expression (named, and unnamed) polls its own callback-style acquire at a fixed interval',
    files: {
      'lib/poller.js': `const crypto = require('node:crypto');
module.exports = class Poller {
  constructor(rclient, interval) {
    this.rclient = rclient;
    this.interval = interval || 50;
  }
  _tryLock(key, callback) {
    const value = crypto.randomUUID();
    this.rclient.set(key, value, 'EX', 30, 'NX', (err, reply) => {
      if (err) return callback(err);
      callback(null, reply === 'OK', value);
    });
  }
  getLock(key, callback) {
    const started = Date.now();
    const wait = this.interval;
    const attempt = () => {
      if (Date.now() - started > 10000) return callback(new Error('timeout'));
      this._tryLock(key, (error, gotLock, value) => {
        if (error) return callback(error);
        if (gotLock) callback(null, value);
        else setTimeout(attempt, wait);
      });
    };
    attempt();
  }
};
`,
      'lib/gate.js': `const crypto = require('node:crypto');
exports.Gate = class {
  constructor(rclient) {
    this.rclient = rclient;
  }
  _acquire(key, callback) {
    const value = crypto.randomUUID();
    this.rclient.set(key, value, 'PX', 5000, 'NX', (err, reply) => {
      if (err) return callback(err);
      callback(null, reply === 'OK', value);
    });
  }
  waitFor(key, callback) {
    const attempt = () => {
      this._acquire(key, (err, entered, value) => {
        if (err) return callback(err);
        if (entered) callback(null, value);
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  }
};
`,
    },
    expected: ['lib/gate.js: backoff-between-retries', 'lib/gate.js: bounded-acquire-retry', 'lib/poller.js: backoff-between-retries'],
  },
  {
    name: 'a node-style acquire helper that answers through its callback: a caller that calls itself again at once and forever, and one that waits a random time and counts down',
    files: {
      'lib/redis.js': `const Redis = require('ioredis');
module.exports = new Redis();
`,
      'lib/gate.js': `const redis = require('./redis');
function tryEnter(room, guest, cb) {
  redis.set('lock:room:' + room, guest, 'PX', 5000, 'NX', function (err, reply) {
    if (err) return cb(err);
    cb(null, reply === 'OK');
  });
}
module.exports = { tryEnter };
`,
      'lib/queue.js': `const { tryEnter } = require('./gate');
function waitTurn(room, guest, done) {
  tryEnter(room, guest, function (err, entered) {
    if (err) return done(err);
    if (!entered) return waitTurn(room, guest, done);
    done(null);
  });
}
function waitTurnPolitely(room, guest, triesLeft, done) {
  tryEnter(room, guest, function (err, entered) {
    if (err) return done(err);
    if (entered) return done(null);
    if (triesLeft <= 0) return done(new Error('room busy'));
    setTimeout(function () { waitTurnPolitely(room, guest, triesLeft - 1, done); }, 30 + Math.random() * 60);
  });
}
module.exports = { waitTurn, waitTurnPolitely };
`,
    },
    expected: ['lib/queue.js: backoff-between-retries', 'lib/queue.js: bounded-acquire-retry'],
  },
  {
    name: 'a node-style acquire helper whose answer is true when busy: the caller that calls itself again while busy retries forever, the one that goes round again after its turn does not retry',
    files: {
      'lib/redis.js': `const Redis = require('ioredis');
module.exports = new Redis();
`,
      'lib/gate.js': `const redis = require('./redis');
function occupied(room, guest, cb) {
  redis.set('lock:room:' + room, guest, 'PX', 5000, 'NX', function (err, reply) {
    if (err) return cb(err);
    cb(null, reply !== 'OK');
  });
}
module.exports = { occupied };
`,
      'lib/queue.js': `const { occupied } = require('./gate');
function waitTurn(room, guest, done) {
  occupied(room, guest, function (err, taken) {
    if (err) return done(err);
    if (taken) return waitTurn(room, guest, done);
    done(null);
  });
}
module.exports = { waitTurn };
`,
      'lib/rounds.js': `const { occupied } = require('./gate');
function rounds(room, guest, done) {
  occupied(room, guest, function (err, taken) {
    if (err || taken) return done(err);
    done(null);
    rounds(room, guest, done);
  });
}
module.exports = { rounds };
`,
    },
    expected: ['lib/queue.js: backoff-between-retries', 'lib/queue.js: bounded-acquire-retry'],
  },
  {
    name: 'a constructor function with prototype methods: a retry method calling the node-style acquire method through a saved `this`, forever and at once; a polite one counts down',
    files: {
      'lib/gate.js': `const Redis = require('ioredis');
function Gate(client) { this.client = client || new Redis(); }
Gate.prototype.occupied = function (room, guest, cb) {
  this.client.set('lock:room:' + room, guest, 'PX', 5000, 'NX', function (err, reply) {
    if (err) return cb(err);
    cb(null, reply !== 'OK');
  });
};
Gate.prototype.waitTurn = function (room, guest, done) {
  var self = this;
  self.occupied(room, guest, function (err, taken) {
    if (err) return done(err);
    if (taken) return self.waitTurn(room, guest, done);
    done(null);
  });
};
module.exports = Gate;
`,
      'lib/polite.js': `const Gate = require('./gate');
Gate.prototype.waitTurnPolitely = function (room, guest, triesLeft, done) {
  var that = this;
  that.occupied(room, guest, function (err, taken) {
    if (err) return done(err);
    if (!taken) return done(null);
    if (triesLeft <= 0) return done(new Error('room busy'));
    setTimeout(function () { that.waitTurnPolitely(room, guest, triesLeft - 1, done); }, 30 + Math.random() * 60);
  });
};
module.exports = Gate;
`,
    },
    expected: ['lib/gate.js: backoff-between-retries', 'lib/gate.js: bounded-acquire-retry'],
  },
  {
    name: 'a quorum acquire fanned out with Promise.all over the instances and retried after a fixed sleep; the same retried with jitter',
    files: {
      'src/quorum.ts': `import Redis from 'ioredis';
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export class Quorum {
  constructor(private readonly nodes: Redis[], private readonly gapMs = 150) {}
  private async lockOn(node: Redis, name: string, owner: string, ttl: number): Promise<boolean> {
    return (await node.set(name, owner, 'PX', ttl, 'NX')) === 'OK';
  }
  private async lockAll(name: string, owner: string, ttl: number): Promise<number> {
    const votes = await Promise.all(this.nodes.map((node) => this.lockOn(node, name, owner, ttl)));
    return votes.filter(Boolean).length;
  }
  async unlockAll(name: string, owner: string): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.eval(UNLOCK, 1, name, owner)));
  }
  async lock(name: string, owner: string, ttl: number): Promise<boolean> {
    for (let round = 0; round < 5; round++) {
      if ((await this.lockAll(name, owner, ttl)) > this.nodes.length / 2) return true;
      await this.unlockAll(name, owner);
      await pause(this.gapMs);
    }
    return false;
  }
  async lockPolitely(name: string, owner: string, ttl: number): Promise<boolean> {
    for (let round = 0; round < 5; round++) {
      if ((await this.lockAll(name, owner, ttl)) > this.nodes.length / 2) return true;
      await this.unlockAll(name, owner);
      await pause(this.gapMs / 2 + Math.random() * this.gapMs);
    }
    return false;
  }
}
`,
    },
    expected: ['src/quorum.ts: backoff-between-retries'],
  },
  {
    name: "a lock service class whose caller passes the user's id as the owner token and releases in a finally the failed acquire reaches",
    files: {
      'src/redis.ts': client,
      'src/lock.service.ts': `import { redis } from './redis';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class LockService {
  async acquire(key: string, owner: string) {
    return (await redis.set(key, owner, 'PX', 5000, 'NX')) === 'OK';
  }
  async release(key: string, owner: string) {
    return redis.eval(RELEASE, 1, key, owner);
  }
}
`,
      'src/coupons.ts': `import { LockService } from './lock.service';
export class Coupons {
  constructor(private readonly locks: LockService) {}
  async issue(dto: { code: string; userId: string }, work: () => Promise<void>) {
    try {
      if (!(await this.locks.acquire('lock:coupon:' + dto.code, dto.userId))) throw new Error('busy');
      await work();
    } finally {
      await this.locks.release('lock:coupon:' + dto.code, dto.userId);
    }
  }
}
`,
    },
    expected: ['src/coupons.ts: release-only-acquired'],
  },
  {
    name: 'an unbounded retry loop around a helper, and a release function handed back',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': `import { redis } from './redis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function lock(key: string) {
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', 10000, 'NX')) !== 'OK') return null;
  return async () => {
    await redis.eval(RELEASE, 1, key, token);
  };
}
`,
      'src/job.ts': `import { lock } from './lock';
export async function run(step: () => Promise<void>) {
  let release = await lock('lock:job');
  while (!release) {
    await new Promise((r) => setTimeout(r, 100));
    release = await lock('lock:job');
  }
  await step();
  await release();
}
`,
    },
    expected: ['src/job.ts: backoff-between-retries', 'src/job.ts: bounded-acquire-retry', 'src/job.ts: release-on-all-paths'],
  },
  {
    name: 'redlock\'s Lock handed back by a service method, released outside finally',
    files: {
      'src/locks.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
export class ReportLocks {
  lockReport(id: string) {
    return redlock.acquire([\`locks:report:\${id}\`], 30_000);
  }
}
`,
      'src/reports.ts': `import { ReportLocks } from './locks';
export async function render(locks: ReportLocks, id: string, draw: () => Promise<void>) {
  const lock = await locks.lockReport(id);
  await draw();
  await lock.release();
}
`,
    },
    expected: ['src/reports.ts: release-on-all-paths'],
  },
  {
    name: 'a claim() that answers a comparison of the reply, ignored by its caller',
    files: {
      'src/elector.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class Elector {
  private readonly id = randomUUID();
  constructor(private readonly redis: Redis) {}
  async claim(): Promise<boolean> {
    const ok = (await this.redis.set('lock:leader', this.id, 'PX', 10000, 'NX')) === 'OK';
    return ok;
  }
}
`,
      'src/main.ts': `import { Elector } from './elector';
export async function tick(elector: Elector, work: () => Promise<void>) {
  await elector.claim();
  await work();
}
`,
    },
    expected: ['src/main.ts: check-acquire-result'],
  },
  {
    name: 'an ownership taken through a service, kept on success and released only in the catch when adopting fails',
    files: {
      'src/ownership.ts': `import Redis from 'ioredis';
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export class Ownership {
  constructor(private readonly redis: Redis) {}
  async acquire(id: string, token: string): Promise<boolean> {
    return (await this.redis.set(\`lock:game:\${id}\`, token, 'PX', 60000, 'NX')) === 'OK';
  }
  async release(id: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, \`lock:game:\${id}\`, token);
  }
}
`,
      'src/recovery.ts': `import { randomUUID } from 'node:crypto';
import { Ownership } from './ownership';
export async function recover(ids: string[], ownership: Ownership, load: (id: string) => Promise<void>) {
  for (const id of ids) {
    const token = randomUUID();
    const acquired = await ownership.acquire(id, token);
    if (acquired) {
      try {
        await load(id);
      } catch (err) {
        console.error(err);
        await ownership.release(id, token);
      }
    }
  }
}
`,
    },
    expected: [],
  },
  redlockTimer(4, ['src/refresh.ts: stop-on-lock-lost']),
  redlockTimer(5, ['src/refresh.ts: stop-on-lock-lost', 'src/refresh.ts: use-extended-lock']),
  {
    name: "node-redis (package.json: redis ^5) given ioredis-style 'NX', 'EX' words: they are dropped, so the claim is a plain SET",
    files: {
      'package.json': '{ "dependencies": { "redis": "^5.1.0", "express": "^4.0.0" } }',
      'app/package.json': '{ "dependencies": { "express": "^4.0.0" } }',
      'app/src/client.js': `const { createClient } = require('redis');
const client = createClient();
module.exports = { client };
`,
      'app/src/guard.js': `async function claimOnce(store, jobId) {
  const got = await store.set(\`job:\${jobId}:claim\`, '1', 'NX', 'EX', 30);
  return !!got;
}
async function firstTime(store, key, ttl = 0) {
  const ok = await store.set(key, '1', 'NX', ...(ttl > 0 ? ['EX', ttl] : []));
  return !!ok;
}
module.exports = { claimOnce, firstTime };
`,
    },
    expected: ['app/src/guard.js: exclusive-acquire', 'app/src/guard.js: exclusive-acquire'],
  },
  {
    name: 'a method taking a mutex with SET ... GET is a test-and-set, not a SET that always says OK: its caller returning on the busy reply leaves nothing held (only the bare DEL is reported)',
    files: { 'src/thumbnails.ts': getSetMutex },
    expected: ['src/thumbnails.ts: owner-checked-release'],
  },
  {
    name: "a lock class on the project's key-value store, whose own option (canOverride: false) the store turns into NX: no SET without NX is claimed; its delete is a bare DEL, its retry a fixed wait",
    files: storeLocking('await this.acquire(key, ttlMs);\n        return { key };'),
    expected: ['src/locking.ts: backoff-between-retries', 'src/locking.ts: owner-checked-release'],
  },
  {
    name: "a lock class on the project's key-value store, whose own option (canOverride: false) the store turns into NX: no SET without NX is claimed; its delete is a bare DEL, its retry a fixed wait (handing the acquire's answer back from the loop)",
    files: storeLocking('return await this.acquire(key, ttlMs);'),
    expected: ['src/locking.ts: backoff-between-retries', 'src/locking.ts: owner-checked-release'],
  },
  {
    name: 'a handed-back release function (null when busy) tested only in the finally that calls it (its failure only logged), whether stored in a let inside the try or a const before it; one tested before the work is fine',
    files: {
      'src/locks.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const RELEASE = \`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0\`;
export type ReleaseFn = () => Promise<void>;
export async function acquireLock(key: string, ttlSeconds = 10): Promise<ReleaseFn | null> {
  const token = randomUUID();
  const ok = await redis.set(key, token, 'EX', ttlSeconds, 'NX');
  if (!ok) return null;
  return async () => {
    await redis.eval(RELEASE, 1, key, token);
  };
}
`,
      'src/invoices.ts': `import { acquireLock, type ReleaseFn } from './locks';
declare const db: { nextNumber(id: string): Promise<number>; insert(id: string, n: number): Promise<void> };
export async function issueInvoice(accountId: string): Promise<void> {
  let release: ReleaseFn | null = null;
  try {
    release = await acquireLock(\`invoice:number:\${accountId}\`, 10);
    const next = await db.nextNumber(accountId);
    await db.insert(accountId, next);
  } catch (err) {
    console.error('could not issue the invoice', err);
  } finally {
    if (release) {
      try {
        await release();
      } catch (releaseError) {
        console.warn('could not release the invoice lock', releaseError);
      }
    }
  }
}
`,
      'src/invoices3.ts': `import { acquireLock, type ReleaseFn } from './locks';
declare const db: { nextNumber(id: string): Promise<number>; insert(id: string, n: number): Promise<void> };
export async function issueInvoice3(accountId: string): Promise<void> {
  const release = await acquireLock(\`invoice:number:\${accountId}\`, 10);
  try {
    const next = await db.nextNumber(accountId);
    await db.insert(accountId, next);
  } catch (err) {
    console.error('could not issue the invoice', err);
  } finally {
    if (release) {
      try {
        await release();
      } catch (releaseError) {
        console.warn('could not release the invoice lock', releaseError);
      }
    }
  }
}
`,
      'src/correct.ts': `import { acquireLock } from './locks';
declare const db: { nextNumber(id: string): Promise<number>; insert(id: string, n: number): Promise<void> };
export async function issueChecked(accountId: string): Promise<void> {
  const release = await acquireLock(\`invoice:number:\${accountId}\`, 10);
  if (!release) return;
  try {
    await db.insert(accountId, await db.nextNumber(accountId));
  } finally {
    try {
      await release();
    } catch (releaseError) {
      console.warn('could not release the invoice lock', releaseError);
    }
  }
}
`,
    },
    expected: ['src/invoices.ts: check-acquire-result', 'src/invoices3.ts: check-acquire-result'],
  },
  {
    name: "node-redis 4 and a queue library in package.json: a lock class handed its client drops ioredis-style 'NX', 'PX' words (the queue's own ioredis is not the project's client)",
    files: {
      'package.json': '{ "dependencies": { "redis": "^4.6.13", "bull": "^4.12.0" } }',
      'src/slot-lock.js': `const { randomUUID } = require('crypto');
class SlotLock {
  constructor(client) {
    this.client = client;
  }
  async hold(slotId, ttlMs = 10000) {
    const token = randomUUID();
    const ok = await this.client.set(\`slot:\${slotId}:lock\`, token, 'NX', 'PX', ttlMs);
    return ok === 'OK' ? token : null;
  }
}
module.exports = SlotLock;
`,
    },
    expected: ['src/slot-lock.js: exclusive-acquire'],
  },
  {
    name: "node-redis 5 in package.json, but the job's client is typed by the project's wrapper whose set takes rest arguments and reads 'NX' from them: the words reach Redis",
    files: {
      'package.json': '{ "dependencies": { "redis": "^5.1.0" } }',
      'src/lib/redis.ts': `import { createClient } from 'redis';
export interface WrappedRedis {
  set(key: string, value: string, ...args: (string | number)[]): Promise<string | null>;
}
export function wrap(client: ReturnType<typeof createClient>): WrappedRedis {
  return {
    async set(key: string, value: string, ...args: (string | number)[]) {
      const options: Record<string, unknown> = {};
      for (let i = 0; i < args.length; i++) {
        const word = String(args[i]).toUpperCase();
        if (word === 'NX') options.NX = true;
        else if (word === 'EX') options.EX = Number(args[++i]);
      }
      return client.set(key, value, options);
    },
  };
}
`,
      'src/jobs/base-job.ts': baseJob('WrappedRedis'),
    },
    expected: [],
  },
  {
    name: "node-redis 5 in package.json and the job's client typed by the project's alias of node-redis' own client: the 'NX', 'EX' words are dropped",
    files: {
      'package.json': '{ "dependencies": { "redis": "^5.1.0" } }',
      'src/lib/redis.ts': `import { createClient } from 'redis';
export type AppRedis = ReturnType<typeof createClient>;
export const redis: AppRedis = createClient({ url: process.env.REDIS_URL });
`,
      'src/jobs/base-job.ts': baseJob('AppRedis'),
    },
    expected: ['src/jobs/base-job.ts: exclusive-acquire'],
  },
  {
    name: "node-redis 5 in package.json, but the class's client is typed by an interface of the file whose set takes rest arguments: node-redis could not be handed in as one",
    files: {
      'package.json': '{ "dependencies": { "redis": "^5.1.0" } }',
      'src/socket/blocks.ts': `export interface BlockStore {
  set(key: string, value: string, ...args: (string | number)[]): Promise<string | null>;
  ttl(key: string): Promise<number>;
}
export class Blocks {
  constructor(private readonly redis: BlockStore) {}
  async holdSocket(id: string, owner: string): Promise<boolean> {
    return (await this.redis.set(\`socket-lock:\${id}\`, owner, 'NX', 'EX', 60)) === 'OK';
  }
}
`,
    },
    expected: [],
  },
  {
    name: "both clients in package.json: a lock module using the node-redis client its config module creates drops ioredis-style 'NX', 'PX' words; one using the ioredis client does not",
    files: {
      'package.json': '{ "dependencies": { "redis": "^5.10.0", "ioredis": "^5.8.0", "bullmq": "^5.0.0" } }',
      'src/config/redis.js': `import { createClient } from 'redis';
const redis = createClient({ url: process.env.REDIS_URL });
await redis.connect();
export default redis;
`,
      'src/config/queue-redis.js': `import IORedis from 'ioredis';
export default new IORedis(process.env.REDIS_URL);
`,
      'src/utils/lock.js': `import crypto from 'crypto';
import redis from '../config/redis.js';
export async function takeLock(key, ttlMs = 8000) {
  const token = crypto.randomUUID();
  const ok = await redis.set(key, token, 'NX', 'PX', ttlMs);
  return ok === 'OK' ? token : null;
}
`,
      'src/utils/queue-lock.js': `import crypto from 'crypto';
import redis from '../config/queue-redis.js';
export async function takeQueueLock(key, ttlMs = 8000) {
  const token = crypto.randomUUID();
  const ok = await redis.set(key, token, 'NX', 'PX', ttlMs);
  return ok === 'OK' ? token : null;
}
`,
    },
    expected: ['src/utils/lock.js: exclusive-acquire'],
  },
  {
    name: 'an acquire helper taking its key in an options object, whose caller deletes that key in a finally on every path',
    files: {
      'src/lock.ts': `import Redis from 'ioredis';
interface TakeOptions { redis: Redis; lockKey: string; ttl?: number; onBusy: () => void }
export async function takeRoundLock({ redis, lockKey, ttl = 5, onBusy }: TakeOptions): Promise<boolean> {
  const ok = await redis.set(lockKey, 'busy', 'EX', ttl, 'NX');
  if (!ok) {
    onBusy();
    return false;
  }
  return true;
}
`,
      'src/rounds.ts': `import Redis from 'ioredis';
import { takeRoundLock } from './lock';
export async function startRound(redis: Redis, room: string, play: () => Promise<void>) {
  const lockKey = \`lock:round:\${room}\`;
  try {
    const taken = await takeRoundLock({ redis, lockKey, onBusy: () => console.log('busy') });
    if (!taken) return;
    await play();
  } finally {
    await redis.del(lockKey);
  }
}
`,
    },
    // The helper's 'busy' is the value an owner check at the DEL would compare: every process stores it.
    expected: ['src/rounds.ts: owner-checked-release', 'src/rounds.ts: release-only-acquired', 'src/rounds.ts: unique-token'],
  },
  {
    name: 'an injected lock provider whose acquire a private method wraps, retried in a wait loop with no limit',
    files: {
      'src/lock.provider.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export class LockProvider {
  private readonly id = randomUUID();
  constructor(private readonly redis: Redis) {}
  async lock(key: string, ttl: number): Promise<boolean> {
    return (await this.redis.set(key, this.id, 'EX', ttl, 'NX')) === 'OK';
  }
  async unlock(key: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, key, this.id);
  }
}
`,
      'src/usage.ts': `import { LockProvider } from './lock.provider';
export class Usage {
  constructor(private readonly locks: LockProvider) {}
  async close(id: string, run: () => Promise<void>) {
    await this.waitForLock(id);
    try {
      await run();
    } finally {
      await this.locks.unlock(\`usage-\${id}\`);
    }
  }
  private async waitForLock(id: string) {
    while (!(await this.takeLock(id))) {
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 200));
    }
  }
  private async takeLock(id: string): Promise<boolean> {
    return this.locks.lock(\`usage-\${id}\`, 60);
  }
}
`,
    },
    expected: ['src/lock.provider.ts: unique-token', 'src/usage.ts: bounded-acquire-retry'],
  },
  {
    name: 'a lock helper that stores a constant, released by its caller with a bare DEL',
    files: {
      'src/redis.ts': client,
      'src/utils/acquireLock.js': `import { redis } from '../redis';
export const acquireLock = async (lockKey, seconds) => {
  try {
    return (await redis.set(lockKey, '1', 'PX', seconds * 1000, 'NX')) === 'OK';
  } catch {
    return false;
  }
};
`,
      'src/feed.js': `import { acquireLock } from './utils/acquireLock';
import { redis } from './redis';
export async function rebuild(id, build) {
  const lockKey = \`lock:feed:\${id}\`;
  if (!(await acquireLock(lockKey, 30))) return;
  try {
    await build();
  } finally {
    await redis.del(lockKey);
  }
}
`,
    },
    expected: ['src/feed.js: owner-checked-release', 'src/feed.js: unique-token'],
  },
  {
    name: 'the same helper released by its caller with a compare-and-delete of a token of its own is not told',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': `import { redis } from './redis';
import { randomUUID } from 'node:crypto';
export async function acquireLock(lockKey: string): Promise<string | null> {
  const token = randomUUID();
  return (await redis.set(lockKey, token, 'PX', 30000, 'NX')) === 'OK' ? token : null;
}
`,
      'src/feed.ts': `import { acquireLock } from './lock';
import { redis } from './redis';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function rebuild(id: string, build: () => Promise<void>) {
  const lockKey = \`lock:feed:\${id}\`;
  const token = await acquireLock(lockKey);
  if (!token) return;
  try {
    await build();
  } finally {
    await redis.eval(RELEASE, 1, lockKey, token);
  }
}
`,
    },
    expected: [],
  },
  {
    name: 'a same-file helper handed JSON of the time the lock was taken, released by key with a bare DEL',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': `import { redis } from './redis';
async function applyLock(key: string, payload: string): Promise<boolean> {
  return (await redis.set(key, payload, 'EX', 3, 'NX')) === 'OK';
}
export async function acquireLock(name: string): Promise<boolean> {
  const payload = JSON.stringify({ lockedSince: new Date().toISOString() });
  return applyLock(\`lock:\${name}\`, payload);
}
export async function releaseLock(name: string) {
  await redis.del(\`lock:\${name}\`, \`lock-meta:\${name}\`);
}
`,
    },
    expected: ['src/lock.ts: owner-checked-release', 'src/lock.ts: unique-token'],
  },
  {
    name: 'a lock module whose withLock calls its own acquire and release helpers: the constant token reported once, at the acquire',
    files: {
      'src/redis.ts': client,
      'src/locks.ts': `import { redis } from './redis';
export async function acquireLock(key: string, ttl = 3000) {
  return (await redis.set(\`lock:\${key}\`, '1', 'PX', ttl, 'NX')) === 'OK';
}
export async function releaseLock(key: string) {
  await redis.del(\`lock:\${key}\`);
}
export async function withLock<T>(key: string, ttl: number, fn: () => Promise<T>) {
  if (!(await acquireLock(key, ttl))) return false;
  try { return await fn(); } finally { await releaseLock(key); }
}
`,
      'src/payout.ts': `import { withLock } from './locks';
export async function payout() {
  await withLock('payout-cycle', 20000, async () => {});
}
`,
    },
    expected: ['src/locks.ts: owner-checked-release', 'src/locks.ts: unique-token'],
  },
  {
    name: 'a lock module handing back { status, unlock }: a route that unlocks on an early return, then does work its catch never unlocks after',
    files: {
      'src/redis.ts': client,
      'src/utils/submitLock.ts': `import { redis } from '../redis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function acquireLock(key: string) {
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', 20000, 'NX')) !== 'OK') return { status: false as const };
  return { status: true as const, unlock: () => void redis.eval(RELEASE, 1, key, token) };
}
`,
      'src/routes/vote.ts': `import { acquireLock } from '../utils/submitLock';
declare function save(id: string): Promise<void>;
export async function vote(id: string, tooLong: boolean): Promise<number> {
  try {
    const lock = await acquireLock(\`vote:\${id}\`);
    if (!lock.status) return 429;
    if (tooLong) {
      lock.unlock();
      return 400;
    }
    await save(id);
    lock.unlock();
    return 200;
  } catch {
    return 500;
  }
}
`,
      'src/routes/rate.ts': `import { acquireLock } from '../utils/submitLock';
declare function save(id: string): Promise<void>;
export async function rate(id: string, tooLong: boolean): Promise<number> {
  const lock = await acquireLock(\`rate:\${id}\`);
  if (!lock.status) return 429;
  if (tooLong) {
    lock.unlock();
    return 400;
  }
  try {
    await save(id);
    return 200;
  } finally {
    lock.unlock();
  }
}
`,
    },
    expected: ['src/routes/vote.ts: release-on-all-paths'],
  },
  {
    name: "CommonJS over the project's own raw-command function: a GET-compare-DEL release, and a shell runCommand that is no Redis",
    files: {
      'src/redisConn.js': `'use strict';
const net = require('net');
const socket = net.createConnection({ port: 6379 });
async function redisCommand(...args) {
  return send(socket, args);
}
function send(sock, args) { return new Promise((resolve) => sock.write(args.join(' '), resolve)); }
module.exports = { redisCommand };
`,
      'src/utils/lock.js': `'use strict';
const { randomUUID } = require('crypto');
const { redisCommand } = require('../redisConn');
async function lockStock(sku) {
  const token = randomUUID();
  const reply = await redisCommand('SET', 'lock:stock:' + sku, token, 'NX', 'PX', 10000);
  return reply === 'OK' ? token : null;
}
async function unlockStock(sku, token) {
  if ((await redisCommand('GET', 'lock:stock:' + sku)) === token) {
    await redisCommand('DEL', 'lock:stock:' + sku);
  }
}
module.exports = { lockStock, unlockStock };
`,
      'src/tasks.js': `'use strict';
const { execFile } = require('child_process');
function runCommand(name, ...args) { return new Promise((resolve) => execFile(name, args, resolve)); }
async function releaseBuildLock(dir) {
  await runCommand('del', 'lock:' + dir);
}
module.exports = { releaseBuildLock };
`,
    },
    expected: ['src/utils/lock.js: owner-checked-release'],
  },
];

for (const shape of shapes) {
  test(`project shape: ${shape.name}`, () => {
    const findings = analyzeProject(shape.files);
    assert.deepEqual(findingList(findings), [...shape.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}

test('a helper building its key from an options object: the call site message spells the key from the literal it passes', () => {
  const findings = analyzeProject({
    'src/semaphore.ts': `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const client = new Redis();
export class Semaphore {
  static async lock(data: { key: string; namespace: string; lockTimeout?: number }): Promise<Mutex> {
    const { key } = data;
    const mutex = new Mutex(client, data.namespace + '-' + key, { lockTimeout: data.lockTimeout ?? 5000, refreshInterval: 0 });
    await mutex.acquire();
    return mutex;
  }
}
`,
    'src/billing.ts': `import { Semaphore } from './semaphore';
declare function refresh(id: string): Promise<void>;
export async function refreshBilling(projectId: string) {
  const mutex = await Semaphore.lock({ key: projectId, namespace: 'billing.refresh' });
  await refresh(projectId);
  await mutex.release();
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/billing.ts: release-on-all-paths'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /\(billing\.refresh-\*\)/);
});

test('a helper that locks only when given its key argument: a call leaving that argument out takes no lock', () => {
  const lock = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function lockRun(id: string, key?: string): Promise<boolean> {
  if (!key) return true;
  return (await redis.set(\`lock:run:\${key}\`, randomUUID(), 'PX', 5000, 'NX')) === 'OK';
}
export async function lockDefault(id: string, key = 'lock:run:default'): Promise<boolean> {
  return (await redis.set(key, randomUUID(), 'PX', 5000, 'NX')) === 'OK';
}
`;
  const job = `import { lockDefault, lockRun } from './lock';
declare function work(id: string): Promise<void>;
export async function unkeyed(id: string) {
  await lockRun(id);
  await work(id);
}
export async function keyed(id: string) {
  await lockRun(id, \`job:\${id}\`);
  await work(id);
}
export async function defaulted(id: string) {
  await lockDefault(id);
  await work(id);
}
`;
  const findings = analyzeProject({ 'src/lock.ts': lock, 'src/job.ts': job });
  assert.deepEqual(findingList(findings), ['src/job.ts: check-acquire-result', 'src/job.ts: check-acquire-result'], findings.map((f) => f.message).join('\n'));
  const lines = findings.map((f) => job.slice(0, f.span.start).split('\n').length).sort((a, b) => a - b);
  assert.deepEqual(lines, [8, 12], 'the keyed call and the defaulted one');
});

test('helpers imported inside a function (await import of a literal path): the awaited work before the try skips the release', () => {
  const findings = analyzeProject({
    'src/utils/lock.ts': `import Redis from 'ioredis';
const redis = new Redis();
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function acquireRunLock(userId: number, runId: string): Promise<boolean> {
  return (await redis.set(\`lock:run:\${userId}\`, runId, 'EX', 180, 'NX')) === 'OK';
}
export async function releaseRunLock(userId: number, runId: string): Promise<void> {
  await redis.eval(RELEASE, 1, \`lock:run:\${userId}\`, runId);
}
`,
    'src/bot/commands.ts': `declare function loadUser(id: number): Promise<{ name: string } | null>;
declare function runAll(user: { name: string }): Promise<void>;
export async function runCommand(userId: number, runId: string) {
  const { acquireRunLock, releaseRunLock } = await import('../utils/lock');
  if (!(await acquireRunLock(userId, runId))) return;
  const user = await loadUser(userId);
  if (!user) {
    await releaseRunLock(userId, runId);
    return;
  }
  try {
    await runAll(user);
  } finally {
    await releaseRunLock(userId, runId);
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/bot/commands.ts: release-on-all-paths'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /loadUser/);
});

test('an acquire helper that waits for a release and calls itself again when busy answers only once it holds the lock: its caller has nothing to test, its unbounded retry is the finding', () => {
  const service = (busy: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class LockService {
  constructor(private readonly redis: Redis, private readonly released: (channel: string) => Promise<void>) {}
  async acquireLock(resource: string, ttl: number): Promise<string | null> {
    const token = randomUUID();
    if ((await this.redis.set(resource, token, 'PX', ttl, 'NX')) === 'OK') return token;
    ${busy}
  }
  async releaseLock(resource: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, resource, token);
  }
}
`;
  const caller = `import { LockService } from './lock.service';
declare function decrease(id: string): Promise<void>;
export class Stock {
  constructor(private readonly locks: LockService) {}
  async take(id: string) {
    const token = await this.locks.acquireLock(\`lock:stock:\${id}\`, 5000);
    try {
      await decrease(id);
    } finally {
      if (token) await this.locks.releaseLock(\`lock:stock:\${id}\`, token);
    }
  }
}
`;
  const waits = analyzeProject({ 'src/lock.service.ts': service('return this.released(`released:${resource}`).then(() => this.acquireLock(resource, ttl));'), 'src/stock.ts': caller });
  // Nothing for the caller to test; the helper's own retry has no bound (no release message comes when the holder dies).
  assert.deepEqual(findingList(waits), ['src/lock.service.ts: bounded-acquire-retry'], waits.map((f) => f.message).join('\n'));
  const answersBusy = analyzeProject({ 'src/lock.service.ts': service('return null;'), 'src/stock.ts': caller });
  assert.deepEqual(findingList(answersBusy), ['src/stock.ts: check-acquire-result'], answersBusy.map((f) => f.message).join('\n'));
});

test('an acquire helper that throws when busy and hands back its token only once acquired leaves its caller nothing to test', () => {
  const service = (busy: string) => `import Redis from 'ioredis';
const client = new Redis();
class RunBusy extends Error {}
export class Reminder {
  private static readonly RUN_KEY = 'lock:reminder:run';
  private static token(): string {
    return \`\${process.pid}:\${Math.random().toString(36).slice(2)}\`;
  }
  static async acquireRun(): Promise<string> {
    const token = this.token();
    const reply = await client.set(this.RUN_KEY, token, 'EX', 1800, 'NX');
    if (reply !== 'OK') {
      ${busy}
    }
    return token;
  }
  static async releaseRun(token: string): Promise<void> {
    await client.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, this.RUN_KEY, token);
  }
  static async run(work: () => Promise<void>): Promise<void> {
    const token = await this.acquireRun();
    try {
      await work();
    } finally {
      await this.releaseRun(token);
    }
  }
}
`;
  const throws = analyzeProject({ 'src/reminder.ts': service('throw new RunBusy();') });
  assert.deepEqual(findingList(throws), [], throws.map((f) => f.message).join('\n'));
  const logsAndGoesOn = analyzeProject({ 'src/reminder.ts': service("console.warn('busy');") });
  assert.deepEqual(findingList(logsAndGoesOn), ['src/reminder.ts: check-acquire-result'], logsAndGoesOn.map((f) => f.message).join('\n'));
});

test('a constant marker through a store wrapper\'s setNX is a dedup claim, not a lock token; a lock key through it is one', () => {
  const store = `import { createClient } from 'redis';
class Store {
  private client = createClient();
  async setNX(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    try {
      const result = await this.client.set(key, value, { NX: true, EX: ttlSeconds });
      return result === 'OK';
    } catch (error) {
      console.error('SETNX failed', error);
      throw error;
    }
  }
  async del(key: string): Promise<void> {
    try {
      await this.client.del(key);
    } catch (error) {
      console.error('DEL failed', error);
      throw error;
    }
  }
}
export const store = new Store();
`;
  const dedup = `import { store } from './store';
export class Seen {
  private static keyOf(inbox: number, id: string) {
    return \`processed:\${inbox}:\${id}\`;
  }
  static async firstTime(msg: { inbox: number; id: string }): Promise<boolean> {
    const key = this.keyOf(msg.inbox, msg.id);
    return store.setNX(key, '1', 3600);
  }
  static async forget(inbox: number, id: string): Promise<void> {
    await store.del(this.keyOf(inbox, id));
  }
}
`;
  const marker = analyzeProject({ 'src/store.ts': store, 'src/seen.ts': dedup });
  assert.deepEqual(findingList(marker).filter((f) => f.endsWith('unique-token')), [], marker.map((f) => f.message).join('\n'));
  const job = `import { store } from './store';
declare function sync(id: string): Promise<void>;
export async function syncOnce(id: string) {
  if (!(await store.setNX(\`lock:sync:\${id}\`, 'worker', 30))) return;
  try {
    await sync(id);
  } finally {
    await store.del(\`lock:sync:\${id}\`);
  }
}
`;
  const lock = analyzeProject({ 'src/store.ts': store, 'src/job.ts': job });
  assert.ok(findingList(lock).includes('src/job.ts: unique-token'), lock.map((f) => `${f.rule}: ${f.message}`).join('\n'));
});

test('a watchdog renewing through a helper of its file that throws a false answer inside its timer stops nothing', () => {
  const worker = (onLost: string) => `const Redis = require('ioredis');
const { randomUUID } = require('node:crypto');
const redis = new Redis();
async function canStart(id, token) {
  return redis.set(\`workers:\${id}\`, token, 'NX', 'EX', 20);
}
async function renewLock(id, token) {
  return redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("expire", KEYS[1], 20) else return 0 end', 1, \`workers:\${id}\`, token);
}
async function releaseLock(id, token) {
  return redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, \`workers:\${id}\`, token);
}
module.exports.start = async (id, work) => {
  const token = randomUUID();
  if (!(await canStart(id, token))) return;
  const controller = new AbortController();
  const renew = setInterval(async () => {
    const renewed = await renewLock(id, token);
    if (!renewed) {
      ${onLost}
    }
  }, 5000);
  try {
    await work(controller.signal);
  } finally {
    clearInterval(renew);
    await releaseLock(id, token);
  }
};
`;
  const throws = analyzeProject({ 'src/worker.js': worker("throw new Error('lost the lock');") });
  assert.deepEqual(findingList(throws), ['src/worker.js: stop-on-lock-lost'], throws.map((f) => f.message).join('\n'));
  const aborts = analyzeProject({ 'src/worker.js': worker("controller.abort(new Error('lost the lock'));") });
  assert.deepEqual(findingList(aborts), [], aborts.map((f) => f.message).join('\n'));
});

test('a catch that releases again after the try released and went on to awaited work deletes whoever holds the lock by then', () => {
  const lock = `import Redis from 'ioredis';
const redis = new Redis();
export async function takeLock(id: string, token: string): Promise<boolean> {
  return (await redis.set(\`lock:mailbox:\${id}\`, token, 'EX', 20, 'NX')) === 'OK';
}
export async function releaseLock(id: string): Promise<void> {
  await redis.del(\`lock:mailbox:\${id}\`);
}
`;
  const worker = (afterRelease: string) => `import { randomUUID } from 'node:crypto';
import { takeLock, releaseLock } from './lock';
declare function fetchMail(id: string): Promise<number>;
declare function requeue(id: string): Promise<void>;
export async function drain(id: string) {
  if (!(await takeLock(id, randomUUID()))) return;
  try {
    const pending = await fetchMail(id);
    await releaseLock(id);
    ${afterRelease}
  } catch (err) {
    await releaseLock(id);
    throw err;
  }
}
`;
  const rethrown = analyzeProject({ 'src/lock.ts': lock, 'src/worker.ts': worker('if (pending > 0) await requeue(id);') });
  assert.deepEqual(findingList(rethrown), ['src/lock.ts: owner-checked-release', 'src/worker.ts: owner-checked-release'], rethrown.map((f) => f.message).join('\n'));
  assert.match(rethrown.find((f) => f.file === 'src/worker.ts')!.message, /a second time/);
  const nothingAfter = analyzeProject({ 'src/lock.ts': lock, 'src/worker.ts': worker('console.log(pending);') });
  assert.deepEqual(findingList(nothingAfter), ['src/lock.ts: owner-checked-release'], nothingAfter.map((f) => f.message).join('\n'));
});

test('a catch around a try whose finally released the lock releases it again when the work throws', () => {
  const manager = (inner: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class Locks {
  constructor(private readonly redis: Redis) {}
  async takeLock(key: string): Promise<boolean> {
    return (await this.redis.set(\`lock:\${key}\`, randomUUID(), 'EX', 30, 'NX')) === 'OK';
  }
  async releaseLock(key: string): Promise<void> {
    await this.redis.del(\`lock:\${key}\`);
  }
  async withLock<T>(key: string, operation: () => Promise<T>): Promise<T | null> {
    try {
      if (!(await this.takeLock(key))) return null;
      ${inner}
    } catch (error) {
      await this.releaseLock(key);
      throw error;
    }
  }
}
`;
  const nested = analyzeProject({ 'src/locks.ts': manager('try {\n        return await operation();\n      } finally {\n        await this.releaseLock(key);\n      }') });
  assert.deepEqual(findingList(nested), ['src/locks.ts: owner-checked-release', 'src/locks.ts: owner-checked-release'], nested.map((f) => f.message).join('\n'));
  assert.ok(nested.some((f) => /a second time/.test(f.message)), nested.map((f) => f.message).join('\n'));
  const once = analyzeProject({ 'src/locks.ts': manager('const result = await operation();\n      return result;') });
  assert.ok(!once.some((f) => /a second time/.test(f.message)), once.map((f) => f.message).join('\n'));
});

test('a Lua acquire that SETs only when EXISTS answers 0 is an acquire helper: a constant token passed to it is reported at the call', () => {
  const lock = `import Redis from 'ioredis';
const redis = new Redis();
const TAKE = \`if redis.call("EXISTS", KEYS[1]) == 0 then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0\`;
export const acquireLock = async (key: string, value: string, ttl: number): Promise<boolean> => (await redis.eval(TAKE, 1, key, value, ttl)) === 1;
`;
  const unlock = `import Redis from 'ioredis';
const redis = new Redis();
const DROP = 'if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end';
export const releaseLock = async (key: string, value: string) => {
  await redis.eval(DROP, 1, key, value);
};
`;
  const feed = (token: string) => `import { acquireLock } from './lock';
import { releaseLock } from './unlock';
declare function build(user: string): Promise<void>;
export async function buildFeed(user: string) {
  const key = \`feed:\${user}:lock\`;
  if (!(await acquireLock(key, ${token}, 300000))) return;
  try {
    await build(user);
  } finally {
    await releaseLock(key, ${token});
  }
}
`;
  const constant = analyzeProject({ 'src/lock.ts': lock, 'src/unlock.ts': unlock, 'src/feed.ts': feed('"1"') });
  assert.deepEqual(findingList(constant), ['src/feed.ts: unique-token'], constant.map((f) => f.message).join('\n'));
  const fresh = analyzeProject({ 'src/lock.ts': lock, 'src/unlock.ts': unlock, 'src/feed.ts': `import { randomUUID } from 'node:crypto';\n${feed('token').replace('  const key', '  const token = randomUUID();\n  const key')}` });
  assert.deepEqual(findingList(fresh), [], fresh.map((f) => f.message).join('\n'));
});

test('a release in a branch of its own inside the try, then awaited cleanup, is not released again by the catch written for the main line', () => {
  const lock = `import Redis from 'ioredis';
const redis = new Redis();
export async function releaseLock(id: string): Promise<void> {
  await redis.del(\`lock:worker:\${id}\`);
}
`;
  const monitor = `import { releaseLock } from './lock';
declare function readInfo(id: string): Promise<string>;
declare function forget(id: string): Promise<void>;
export async function sweep(ids: string[]) {
  for (const id of ids) {
    try {
      const info = JSON.parse(await readInfo(id));
      if (!info.ok) {
        await releaseLock(id);
        await forget(id);
        continue;
      }
    } catch (e) {
      await releaseLock(id);
    }
  }
}
`;
  const findings = analyzeProject({ 'src/lock.ts': lock, 'src/monitor.ts': monitor });
  assert.ok(!findings.some((f) => /a second time/.test(f.message)), findings.map((f) => f.message).join('\n'));
});

test('an acquire helper that reads the key back after the write and throws unless it holds its id leaves its caller nothing to test', () => {
  const admin = (check: string) => `import Redis from 'ioredis';
const redis = new Redis();
export class Airdrop {
  private async acquireCalculationLock(): Promise<string> {
    const id = Math.random().toString(36).slice(2) + crypto.randomUUID();
    await redis.set('lock:airdrop:calculation', id, 'EX', 300, 'NX');
    ${check}
    return id;
  }
  private async releaseCalculationLock(id: string): Promise<void> {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, 'lock:airdrop:calculation', id);
  }
  async calculate(work: () => Promise<void>): Promise<void> {
    const id = await this.acquireCalculationLock();
    try {
      await work();
    } finally {
      await this.releaseCalculationLock(id);
    }
  }
}
`;
  const verified = analyzeProject({ 'src/airdrop.ts': admin("if ((await redis.get('lock:airdrop:calculation')) !== id) throw new Error('calculation in progress');") });
  assert.ok(!verified.some((f) => f.rule === 'check-acquire-result' && /this\.acquireCalculationLock/.test(f.message)), verified.map((f) => `${f.rule}: ${f.message}`).join('\n'));
  const unverified = analyzeProject({ 'src/airdrop.ts': admin('') });
  assert.ok(unverified.some((f) => f.rule === 'check-acquire-result'), unverified.map((f) => `${f.rule}: ${f.message}`).join('\n'));
});

test('a poll loop whose try takes the lock and breaks out: the code after the try in the loop runs only when the acquire threw', () => {
  const mutex = `import { createClient } from 'redis';
export const client = createClient();
export class Busy extends Error {}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function takeLock(key: string, owner: string, ttlSeconds: number, waitMs: number): Promise<void> {
  const started = Date.now();
  while (!(await client.set(key, owner, { NX: true, EX: ttlSeconds }))) {
    if (Date.now() - started > waitMs) throw new Busy();
    await pause(50 + Math.random() * 100);
  }
}
export async function dropLock(key: string, owner: string): Promise<void> {
  await client.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', { keys: [key], arguments: [owner] });
}
`;
  const coalesce = (afterTake: string) => `import { randomUUID } from 'node:crypto';
import { takeLock, dropLock, Busy } from './mutex';
declare function audit(key: string): Promise<void>;
export async function coalesced<T>(key: string, peek: () => Promise<T | null>, build: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  const giveUpAt = Date.now() + 30_000;
  let held = false;
  for (;;) {
    try {
      await takeLock(key, owner, 30, 0);
      ${afterTake}
      held = true;
      break;
    } catch (err) {
      if (!(err instanceof Busy)) break;
    }
    const ready = await peek();
    if (ready !== null) return ready;
    if (Date.now() >= giveUpAt) break;
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
  }
  try {
    return await build();
  } finally {
    if (held) await dropLock(key, owner);
  }
}
`;
  const breaksOut = analyzeProject({ 'src/mutex.ts': mutex, 'src/coalesce.ts': coalesce('') });
  assert.deepEqual(findingList(breaksOut), [], breaksOut.map((f) => f.message).join('\n'));
  // Work after the acquire in the try can throw into the catch while the lock is held: the poll then runs holding it.
  const workFirst = analyzeProject({ 'src/mutex.ts': mutex, 'src/coalesce.ts': coalesce('await audit(key);') });
  assert.deepEqual(findingList(workFirst), ['src/coalesce.ts: release-on-all-paths'], workFirst.map((f) => f.message).join('\n'));
});

test('a store\'s conditional write (Lua SETNX then EXPIRE, or the value held) takes a lock only where its caller\'s key names one', () => {
  const store = `import { createClient } from 'redis';
type Client = ReturnType<typeof createClient>;
export class KeyStore {
  constructor(private readonly client: Client, private readonly namespace: string) {}
  private full(key: string): string {
    return \`\${this.namespace}:\${key}\`;
  }
  async remove(key: string): Promise<number> {
    const fullKey = this.full(key);
    return this.client.del(fullKey);
  }
  async putIfAbsentOrRead(key: string, value: string, ttlSeconds?: number): Promise<string> {
    const fullKey = this.full(key);
    const script = \`
local put = redis.call('setnx', KEYS[1], ARGV[1])
if put == 1 then
  if ARGV[2] ~= '' then redis.call('expire', KEYS[1], ARGV[2]) end
  return ARGV[1]
end
return redis.call('get', KEYS[1])\`;
    const reply = await this.client.eval(script, { keys: [fullKey], arguments: [value, ttlSeconds?.toString() ?? ''] });
    return reply as string;
  }
}
`;
  const provision = `import { randomUUID } from 'node:crypto';
import { KeyStore } from '../lib/store';
declare function insertRow(id: string): Promise<void>;
export class Provisioner {
  constructor(private readonly store: KeyStore) {}
  async ensure(tenant: string): Promise<void> {
    const lockKey = \`lock:provision:\${tenant}\`;
    const mine = randomUUID();
    const holder = await this.store.putIfAbsentOrRead(lockKey, mine, 30);
    const won = holder === mine;
    if (won) {
      try {
        await insertRow(tenant);
      } finally {
        await this.store.remove(lockKey);
      }
    }
  }
}
`;
  const profiles = `import { KeyStore } from '../lib/store';
declare function load(id: string): Promise<string>;
export class Profiles {
  constructor(private readonly store: KeyStore) {}
  private readonly unlocked = true;
  async warm(id: string): Promise<void> {
    const json = await load(id);
    await this.store.putIfAbsentOrRead(\`profile:\${id}\`, json, 300);
  }
  async get(id: string): Promise<string> {
    const cached = await this.store.putIfAbsentOrRead(\`profile:\${id}\`, await load(id), 300);
    return cached;
  }
  async invalidate(id: string): Promise<void> {
    await this.store.remove(\`profile:\${id}\`);
  }
  async refresh(id: string): Promise<void> {
    const json = await load(id);
    await this.store.putIfAbsentOrRead(\`profile:\${id}\`, json, 300);
    await load(id);
    await this.store.remove(\`profile:\${id}\`);
  }
}
`;
  const found = analyzeProject({ 'src/lib/store.ts': store, 'src/app/provision.ts': provision, 'src/app/profile.ts': profiles });
  assert.deepEqual(findingList(found), ['src/app/provision.ts: owner-checked-release'], found.map((f) => f.message).join('\n'));
});

test('a routine handed on through a forwarding arrow or as a member of an options object is the caller\'s routine under the lock', () => {
  const locks = `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()], { retryCount: 5, retryDelay: 200, retryJitter: 100 });
interface Guarded<T> { resource: string; task: (signal: AbortSignal) => Promise<T> }
export const underLock = async <T>({ resource, task: work }: Guarded<T>): Promise<T> => {
  return redlock.using([resource], 10_000, async (signal) => work(signal));
};
export const lockInvoice = async <T>(invoiceId: string, task: (signal: AbortSignal) => Promise<T>) => {
  return redlock.using([\`locks:invoice:\${invoiceId}\`], 10_000, async (signal) => {
    return task(signal);
  });
};
export const lockOrder = async <T>(orderId: string, task: (signal: AbortSignal) => Promise<T>) => {
  return underLock({ resource: \`locks:order:\${orderId}\`, task });
};
`;
  const jobs = `import { lockInvoice, lockOrder } from './locks';
declare function chargeCard(id: string, signal?: AbortSignal): Promise<void>;
declare function shipParcel(id: string): Promise<void>;
export async function bill(invoiceId: string) {
  return lockInvoice(invoiceId, async () => {
    await chargeCard(invoiceId);
  });
}
export async function ship(orderId: string) {
  return lockOrder(orderId, async () => {
    await shipParcel(orderId);
  });
}
export async function billCarefully(invoiceId: string) {
  return lockInvoice(invoiceId, async (signal) => {
    await chargeCard(invoiceId, signal);
  });
}
`;
  const found = analyzeProject({ 'src/locks.ts': locks, 'src/jobs.ts': jobs });
  const lineOf = (offset: number) => jobs.slice(0, offset).split('\n').length;
  assert.deepEqual(found.map((f) => `${f.file}:${lineOf(f.span.start)} ${f.rule}`), ['src/jobs.ts:5 respect-abort-signal', 'src/jobs.ts:10 respect-abort-signal'], found.map((f) => f.message).join('\n'));
});

test('a factory that returns its own functions by name, or a tracing wrapper of them, stands for a lock object', () => {
  const locks = (returned: string) => `import Redlock from 'redlock';
import Redis from 'ioredis';
import { traced } from './tracing';
const redlock = new Redlock([new Redis()], { retryCount: 5, retryDelay: 200, retryJitter: 100 });
const underLock = async <T>({ path, work }: { path: string; work: (signal: AbortSignal) => Promise<T> }): Promise<T> =>
  redlock.using([path], 10_000, async (signal) => work(signal));
export const Locks = () => {
  const lockInvoice = async <T>(invoiceId: string, work: (signal: AbortSignal) => Promise<T>) => {
    const path = \`locks:invoice:\${invoiceId}\`;
    return underLock({ path, work });
  };
  async function lockOrder<T>(orderId: string, work: (signal: AbortSignal) => Promise<T>) {
    return underLock({ path: \`locks:order:\${orderId}\`, work });
  }
  const label = (id: string) => \`invoice \${id}\`;
  return ${returned};
};
`;
  // The wrapper maps over the functions it is given: what it returns is not read, its argument is.
  const tracing = `export const traced = <F extends Record<string, (...args: any[]) => any>>({ fns }: { namespace: string; fns: F }): F =>
  Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, (...args: any[]) => fn(...args)])) as F;
`;
  const jobs = `import { Locks } from './locks';
declare function chargeCard(id: string, signal?: AbortSignal): Promise<void>;
export async function bill(invoiceId: string) {
  return Locks().lockInvoice(invoiceId, async () => {
    await chargeCard(invoiceId);
  });
}
export async function ship(orderId: string) {
  const locks = Locks();
  return locks.lockOrder(orderId, async () => chargeCard(orderId));
}
export async function billCarefully(invoiceId: string) {
  return Locks().lockInvoice(invoiceId, async (signal) => chargeCard(invoiceId, signal));
}
`;
  for (const returned of ['{ lockInvoice, lockOrder, label }', "traced({ namespace: 'locks', fns: { lockInvoice, lockOrder } })", 'Object.freeze({ lockInvoice, lockOrder: lockOrder })']) {
    const found = analyzeProject({ 'src/locks.ts': locks(returned), 'src/tracing.ts': tracing, 'src/jobs.ts': jobs });
    const lineOf = (offset: number) => jobs.slice(0, offset).split('\n').length;
    assert.deepEqual(found.map((f) => `${f.file}:${lineOf(f.span.start)} ${f.rule}`), ['src/jobs.ts:4 respect-abort-signal', 'src/jobs.ts:10 respect-abort-signal'], returned);
  }
  // The trap: the same factory shape whose functions lock a row in a database, not Redis.
  const rows = `import { traced } from './tracing';
declare const db: { query(sql: string, args: unknown[]): Promise<void> };
export const Locks = () => {
  const lockInvoice = async <T>(invoiceId: string, work: () => Promise<T>) => {
    await db.query('UPDATE invoices SET locked = true WHERE id = $1', [invoiceId]);
    return work();
  };
  const lockOrder = lockInvoice;
  return traced({ namespace: 'rows', fns: { lockInvoice, lockOrder } });
};
`;
  assert.deepEqual(findingList(analyzeProject({ 'src/locks.ts': rows, 'src/tracing.ts': tracing, 'src/jobs.ts': jobs })), []);
});

test('a quorum acquire through a method per node, run by Promise.all in a retry loop: the loop retries it, and returning the token is no partial failure', () => {
  const lock = (wait: string) => `import Redis from 'ioredis';
import { randomUUID } from 'crypto';
export class QuorumLock {
  private readonly nodes: Redis[] = [new Redis(6379), new Redis(6380), new Redis(6381)];
  private async takeOn(node: Redis, key: string, token: string, ttl: number): Promise<boolean> {
    return (await node.set(key, token, 'PX', ttl, 'NX')) === 'OK';
  }
  private async dropAll(key: string, token: string): Promise<void> {
    await Promise.allSettled(this.nodes.map((n) => n.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, key, token)));
  }
  async acquire(key: string, ttl: number): Promise<string> {
    const token = randomUUID();
    for (let attempt = 0; attempt < 3; attempt++) {
      const won = await Promise.all(this.nodes.map((node) => this.takeOn(node, key, token, ttl)));
      if (won.filter(Boolean).length >= 2) return token;
      await this.dropAll(key, token);
      await new Promise((resolve) => setTimeout(resolve, ${wait}));
    }
    throw new Error('busy');
  }
}
`;
  const fixed = analyzeProject({ 'src/quorum-lock.ts': lock('250') });
  assert.deepEqual(findingList(fixed), ['src/quorum-lock.ts: backoff-between-retries'], fixed.map((f) => f.message).join('\n'));
  assert.deepEqual(findingList(analyzeProject({ 'src/quorum-lock.ts': lock('125 + Math.random() * 250') })), []);
});

test('a multi-key helper that takes a lock per element and hands back the locks it took: its callers test it and release it on every path', () => {
  const service = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export interface Held { key: string; token: string }
export class SeatLocks {
  constructor(private readonly redis: Redis) {}
  async lockSeats(seatIds: string[], ttlMs = 15_000): Promise<Held[] | null> {
    const taken: Held[] = [];
    for (const seatId of [...seatIds].sort()) {
      const key = \`lock:seat:\${seatId}\`;
      const token = randomUUID();
      if ((await this.redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
        await this.unlockSeats(taken);
        return null;
      }
      taken.push({ key, token });
    }
    return taken;
  }
  async unlockSeats(held: Held[]): Promise<void> {
    for (const lock of held) await this.redis.eval(RELEASE, 1, lock.key, lock.token);
  }
}
`;
  const booking = (body: string) => `import { SeatLocks } from './seat-locks';
export class Booking {
  constructor(private readonly seats: SeatLocks, private readonly db: { hold(ids: string[]): Promise<void>; log(ids: string[]): Promise<void> }) {}
  async book(seatIds: string[]) {
${body}
  }
}
`;
  const run = (body: string) => findingList(analyzeProject({ 'src/seat-locks.ts': service, 'src/booking.ts': booking(body) }));
  // Tested, then released in a finally: nothing, and nothing in the helper, whose release undoes a partial acquire.
  const safe = `    const seats = await this.seats.lockSeats(seatIds);
    if (!seats) throw new Error('seats are being booked');
    try {
      await this.db.hold(seatIds);
    } finally {
      await this.seats.unlockSeats(seats);
    }`;
  assert.deepEqual(run(safe), []);
  // Awaited work between the test and the try skips the release when it throws.
  assert.deepEqual(run(safe.replace('    try {', '    await this.db.log(seatIds);\n    try {')), ['src/booking.ts: release-on-all-paths']);
  // Never tested (only asserted non-null and handed to the release), and released on the happy path alone.
  const untested = `    const seats = await this.seats.lockSeats(seatIds);
    await this.db.hold(seatIds);
    await this.seats.unlockSeats(seats!);`;
  assert.deepEqual(run(untested), ['src/booking.ts: check-acquire-result', 'src/booking.ts: release-on-all-paths']);
});

test('a multi-key helper over Promise.all of the elements, released by the same keys: the keys are the array the caller passes', () => {
  const locks = `import Redis from 'ioredis';
const redis = new Redis();
export async function lockAll(ids: string[], owner: string): Promise<boolean> {
  const replies = await Promise.all(ids.map((id) => redis.set('lock:item:' + id, owner, 'EX', 30, 'NX')));
  return replies.every((r) => r === 'OK');
}
export async function unlockAll(ids: string[]): Promise<void> {
  await Promise.all(ids.map((id) => redis.del('lock:item:' + id)));
}
`;
  const caller = (body: string) => `import { lockAll, unlockAll } from './locks';
import { randomUUID } from 'node:crypto';
export async function move(ids: string[], work: () => Promise<void>) {
${body}
}
`;
  const run = (body: string) => findingList(analyzeProject({ 'src/locks.ts': locks, 'src/move.ts': caller(body) }));
  // The bare DEL by key is reported once, in the helper.
  assert.deepEqual(run(`  if (!(await lockAll(ids, randomUUID()))) return;
  try {
    await work();
  } finally {
    await unlockAll(ids);
  }`), ['src/locks.ts: owner-checked-release']);
  assert.deepEqual(run(`  await lockAll(ids, randomUUID());
  await work();
  await unlockAll(ids);`), ['src/locks.ts: owner-checked-release', 'src/move.ts: check-acquire-result', 'src/move.ts: release-on-all-paths']);
});

test('a release through a helper that builds the key from its argument, before an early return, leaves nothing held on that path', () => {
  const locks = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
const mine = new Map<string, string>();
export async function lockReport(userId: string): Promise<boolean> {
  const token = randomUUID();
  if ((await redis.set(\`report:lock:\${userId}\`, token, 'EX', 120, 'NX')) !== 'OK') return false;
  mine.set(userId, token);
  return true;
}
export async function unlockReport(userId: string): Promise<void> {
  await redis.eval(RELEASE, 1, \`report:lock:\${userId}\`, mine.get(userId) ?? '');
}
`;
  const report = (early: string) => `import { lockReport, unlockReport } from './locks';
declare function build(userId: string): Promise<void>;
export async function run(userId: string, quota: number) {
  if (!(await lockReport(userId))) return;
  if (quota === 0) {
${early}
    return;
  }
  try {
    await build(userId);
  } finally {
    await unlockReport(userId);
  }
}
`;
  assert.deepEqual(findingList(analyzeProject({ 'src/locks.ts': locks, 'src/report.ts': report('    await unlockReport(userId);') })), []);
  assert.deepEqual(findingList(analyzeProject({ 'src/locks.ts': locks, 'src/report.ts': report('    console.log("no quota");') })), ['src/report.ts: release-on-all-paths']);
});

test('a cron lock helper whose caller goes on when its GET of the lock key finds no holder runs the job without the lock', () => {
  const locks = `import Redis from 'ioredis';
const redis = new Redis();
export const PREFIX = 'cron-lock:';
export async function takeCronLock(job: string): Promise<boolean> {
  return (await redis.set(\`\${PREFIX}\${job}\`, \`\${process.pid}:\${Date.now()}\`, 'EX', 600, 'NX')) === 'OK';
}
`;
  const runner = (busy: string) => `import Redis from 'ioredis';
import { PREFIX, takeCronLock } from './cron-lock';
const redis = new Redis();
declare function runAll(job: string): Promise<void>;
export async function runJob(job: string) {
  const locked = await takeCronLock(job);
  if (!locked) {
${busy}
  }
  await runAll(job);
}
`;
  const run = (busy: string) => findingList(analyzeProject({ 'src/cron-lock.ts': locks, 'src/runner.ts': runner(busy) }));
  assert.deepEqual(run(`    if (await redis.get(\`\${PREFIX}\${job}\`)) return;`), ['src/runner.ts: check-acquire-result']);
  assert.deepEqual(run('    return;'), []);
});

test('an acquire helper handing back the lock as data ({ key, token }) released by a helper reading its fields: a job that releases it in its finally is no acquire to the status poll that starts it', () => {
  const locks = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export interface Held { key: string; token: string }
export async function takeJobLock(id: string, ttl: number): Promise<Held | null> {
  const token = randomUUID();
  const key = \`jobs:lock:\${id}\`;
  if ((await redis.set(key, token, 'EX', ttl, 'NX')) !== 'OK') return null;
  return { key, token };
}
export async function dropJobLock(lock: Held): Promise<void> {
  await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, lock.key, lock.token);
}
`;
  const jobs = (process: string) => `import { dropJobLock, takeJobLock } from './locks';
declare function load(id: string): Promise<{ done: boolean }>;
declare function render(id: string): Promise<void>;
export async function processJob(id: string): Promise<void> {
${process}
}
export async function status(id: string) {
  const job = await load(id);
  if (!job.done) void processJob(id);
  return job;
}
export async function awaitDone(id: string, pollMs: number) {
  for (let i = 0; i < 20; i++) {
    const job = await status(id);
    if (job.done) return job;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return undefined;
}
`;
  const run = (process: string) => findingList(analyzeProject({ 'src/locks.ts': locks, 'src/jobs.ts': jobs(process) }));
  assert.deepEqual(run(`  const lock = await takeJobLock(id, 60);
  if (!lock) return;
  try {
    await render(id);
  } finally {
    await dropJobLock(lock);
  }`), []);
  assert.deepEqual(run(`  const lock = await takeJobLock(id, 60);
  await render(id);
  await dropJobLock(lock!);`), ['src/jobs.ts: check-acquire-result', 'src/jobs.ts: release-on-all-paths']);
});

test('a function that keeps its own per-user claim for the TTL and hands nothing back is no acquire to the loop that calls it; one named as lock code stays one', () => {
  const locks = `import Redis from 'ioredis';
const redis = new Redis();
export class Locks {
  async acquireLock(key: string, ttl: number): Promise<boolean> {
    return (await redis.set(\`lock:\${key}\`, \`\${process.pid}:\${Date.now()}\`, 'EX', ttl, 'NX')) === 'OK';
  }
  async releaseLock(key: string): Promise<void> {
    await redis.del(\`lock:\${key}\`);
  }
}
`;
  const scheduler = (name: string) => `import { Locks } from './locks';
declare function send(id: string): Promise<void>;
export class Greetings {
  constructor(private readonly locks: Locks) {}
  async run(ids: string[]) {
    for (const id of ids) {
      await this.${name}(id);
    }
  }
  private async ${name}(id: string): Promise<void> {
    // Kept on purpose until its TTL: one greeting per user per run.
    if (!(await this.locks.acquireLock(\`greet-\${id}\`, 300))) return;
    await send(id);
  }
}
`;
  const run = (name: string) => findingList(analyzeProject({ 'src/locks.ts': locks, 'src/greetings.ts': scheduler(name) }));
  // The lock module's own findings (a pid token, a bare DEL) are the same either way.
  const own = ['src/locks.ts: owner-checked-release', 'src/locks.ts: unique-token'];
  assert.deepEqual(run('greetOnce'), own);
  assert.deepEqual(run('acquireGreetLock'), ['src/greetings.ts: rollback-partial-acquire', ...own]);
});

test('a lock handed to a finishing step that a confirmation handler also runs on the same key: the early return awaiting the confirmation keeps it on purpose, an exception before the step does not', () => {
  const bot = (confirm: string) => `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
const redis = new Redis();
declare const accounts: { find(id: string): Promise<{ needsCode: boolean } | null> };
declare function say(id: string, text: string): Promise<void>;
async function completeTransfer(id: string, lockKey: string, token: string) {
  await say(id, 'sending');
  try {
    await say(id, 'sent');
  } finally {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, lockKey, token);
  }
}
export async function onTransfer(id: string) {
  const lockKey = \`lock:transfer:\${id}\`;
  const token = randomUUID();
  if (!(await redis.set(lockKey, token, 'EX', 60, 'NX'))) return say(id, 'busy');
  const account = await accounts.find(id);
  if (account?.needsCode) {
    await redis.set(\`pending:transfer:\${id}\`, token, 'EX', 60);
    return say(id, 'send your code');
  }
  await completeTransfer(id, lockKey, token);
}
${confirm}`;
  const confirmed = analyzeProject({ 'src/bot.ts': bot(`export async function onCode(id: string) {
  const token = await redis.get(\`pending:transfer:\${id}\`);
  if (token) await completeTransfer(id, \`lock:transfer:\${id}\`, token);
}
`) });
  assert.deepEqual(findingList(confirmed), ['src/bot.ts: release-on-all-paths'], confirmed.map((f) => f.message).join('\n'));
  assert.match(confirmed[0].message, /an exception from `await accounts\.find\(id\)`/);
  // Without a second caller of the step, the early return is the path that skips the release.
  const alone = analyzeProject({ 'src/bot.ts': bot('') });
  assert.deepEqual(findingList(alone), ['src/bot.ts: release-on-all-paths'], alone.map((f) => f.message).join('\n'));
  assert.match(alone[0].message, /the early `return say\(id, 'send your code'\);`/);
});

test('a lock helper retrying by calling itself: the recursive call is no owner check of the constant token, the helper\'s own release is', () => {
  const helper = (release: string) => `import Redis from 'ioredis';
const redis = new Redis();
export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const lockKey = \`lock:\${key}\`;
  if (await redis.set(lockKey, '1', 'EX', 10, 'NX')) {
    try {
      return await fn();
    } finally {
      ${release}
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 50));
  return withLock(key, fn);
}
`;
  const token = (findings: ReturnType<typeof analyzeProject>) => findings.find((f) => f.rule === 'unique-token')?.message ?? '';
  const bare = analyzeProject({ 'src/lock.ts': helper('await redis.del(lockKey);') });
  assert.match(token(bare), /released or extended without an owner check/, bare.map((f) => f.message).join('\n'));
  const compared = analyzeProject({ 'src/lock.ts': helper(`await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, lockKey, '1');`) });
  assert.match(token(compared), /The owner check compares this value/, compared.map((f) => f.message).join('\n'));
});

test('an acquire through a helper in one case of a switch, released in a second switch on the same value: other cases never run on its path', () => {
  const job = `import Redis from 'ioredis';
const redis = new Redis();
async function acquireLock(name: string, ttl: number, token = 'x') {
  return (await redis.set(\`lock:\${name}\`, token, 'EX', ttl, 'NX')) === 'OK';
}
async function releaseLock(name: string) {
  await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, \`lock:\${name}\`, 'x');
}
declare function archive(kind: string): Promise<void>;
export async function runArchive(kind: string, batch: string) {
  let lock = false;
  switch (kind) {
    case 'events':
      if (await acquireLock('archive-events', 3600)) {
        lock = true;
        try {
          await archive('events');
        } catch (error) {
          console.error(error);
        }
      }
      break;
    case 'orders':
      if (await acquireLock(\`archive-orders-\${batch}\`, 3600)) {
        lock = true;
        try {
          await archive('orders');
        } catch (error) {
          console.error(error);
        }
      }
      break;
  }
  if (lock) {
    switch (kind) {
      case 'events':
        await releaseLock('archive-events');
        break;
      case 'orders':
        await releaseLock(\`archive-orders-\${batch}\`);
        break;
    }
  }
}
`;
  const findings = analyzeProject({ 'src/job.ts': job });
  // The helpers' constant token is unique-token's finding; no path skips a release.
  assert.deepEqual(findingList(findings).filter((f) => f.endsWith('release-on-all-paths')), [], findings.map((f) => f.message).join('\n'));
  assert.ok(findingList(findings).includes('src/job.ts: unique-token'));
});

test('a throttle lock released only when a second lock is busy (so the job can come back) is kept on success by design: no path skips its release', () => {
  const job = `import Redis from 'ioredis';
const redis = new Redis();
async function acquireLock(name: string, seconds: number) {
  return (await redis.set(\`lock:\${name}\`, 'x', 'EX', seconds, 'NX')) === 'OK';
}
async function releaseLock(name: string) {
  await redis.del(\`lock:\${name}\`);
}
declare function refresh(contract: string): Promise<void>;
declare function requeue(contract: string, delayMs: number): Promise<void>;
export async function process(contract: string) {
  if (await acquireLock(\`metadata:\${contract}\`, 300)) {
    if (await acquireLock('metadata-slot', 1)) {
      try {
        await refresh(contract);
      } catch (error) {
        await requeue(contract, 60_000);
      }
    } else {
      await releaseLock(\`metadata:\${contract}\`);
      await requeue(contract, 1000);
    }
  }
}
`;
  const findings = analyzeProject({ 'src/job.ts': job });
  assert.deepEqual(findingList(findings).filter((f) => f.endsWith('release-on-all-paths')), [], findings.map((f) => f.message).join('\n'));
  assert.ok(findingList(findings).includes('src/job.ts: owner-checked-release'));
});

test('a wait loop on a helper\'s boolean compared with !== true retries the acquire with no bound', () => {
  const wallets = `import Redis from 'ioredis';
const redis = new Redis();
async function setLock(key: string): Promise<boolean> {
  return (await redis.set(key, '1', 'PX', 30000, 'NX')) === 'OK';
}
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function selectWallet(wallet: string) {
  while ((await setLock(\`lock:wallet:\${wallet}\`)) !== true) {
    await delay(200 + Math.random() * 100);
  }
  return wallet;
}
`;
  const findings = analyzeProject({ 'src/wallets.ts': wallets });
  assert.deepEqual(findingList(findings), ['src/wallets.ts: bounded-acquire-retry'], findings.map((f) => f.message).join('\n'));
});

/** A service holding a Redlock by its type (any field name) whose method runs `attempt` (the routine `fn` goes to redlock.using in it), and a caller whose routine ignores the signal. */
function namespaceLocks(attempt: string, declarations = ''): Record<string, string> {
  return {
    'src/namespace-locks.ts': `import Redlock from 'redlock';
${declarations}export class NamespaceLocks {
  constructor(private readonly adapter: Redlock) {}
  withNamespace<R>(namespace: string, fn: () => Promise<R>): Promise<R> {
    return ${attempt};
  }
}
`,
    'src/publish.ts': `import { NamespaceLocks } from './namespace-locks';
declare function compose(ns: string): Promise<void>;
declare function deploy(ns: string): Promise<void>;
export async function publishAll(locks: NamespaceLocks, ns: string) {
  await locks.withNamespace(ns, async () => {
    await compose(ns);
    await deploy(ns);
  });
}
`,
  };
}

const USING = 'this.adapter.using([`ns:${namespace}`], 15000, { retryCount: 0 }, fn)';

test('a service method handing its routine to an injected Redlock (a constructor parameter typed Redlock, any name) is a locked-routine helper: its callers\' routines must take the signal', () => {
  const findings = analyzeProject(namespaceLocks(USING));
  assert.deepEqual(findingList(findings), ['src/publish.ts: respect-abort-signal'], findings.map((f) => f.message).join('\n'));
});

test('a service method running its redlock.using attempt inside a retry wrapper (retryWithBackoff(() => using(..., fn))) is a locked-routine helper all the same', () => {
  const findings = analyzeProject(namespaceLocks(`retryWithBackoff(() => ${USING}, { attempts: 20 })`, 'declare function retryWithBackoff<T>(attempt: () => Promise<T>, options: { attempts: number }): Promise<T>;\n'));
  assert.deepEqual(findingList(findings), ['src/publish.ts: respect-abort-signal'], findings.map((f) => f.message).join('\n'));
});

test('a store method writing `value ?? \'1\'`: a caller passing a random token stores it; a caller leaving it out stores the constant', () => {
  const store = `import Redis from 'ioredis';
export class RedisStore {
  private readonly client = new Redis();
  async setLockKey(lockKey: string, expire?: number, value?: string) {
    return this.client.set(lockKey, value ?? '1', 'EX', expire ?? 30, 'NX');
  }
  async del(key: string) {
    return this.client.del(key);
  }
  async eval(script: string, keys: number, ...args: string[]) {
    return this.client.eval(script, keys, ...args);
  }
}
`;
  const RELEASE = `'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end'`;
  const games = `import { randomUUID } from 'node:crypto';
import { RedisStore } from './store';
export class GameLocks {
  constructor(private readonly store: RedisStore) {}
  async acquire(gameId: string) {
    const token = randomUUID();
    const acquired = await this.store.setLockKey(\`lock:game:\${gameId}\`, 10, token);
    return { acquired: acquired === 'OK', token };
  }
  async release(gameId: string, token: string) {
    return this.store.eval(${RELEASE}, 1, \`lock:game:\${gameId}\`, token);
  }
}
`;
  const cleanup = `import { RedisStore } from './store';
declare function sweep(): Promise<void>;
export async function cleanupOnce(store: RedisStore) {
  if ((await store.setLockKey('lock:cleanup', 60)) !== 'OK') return;
  try {
    await sweep();
  } finally {
    await store.del('lock:cleanup');
  }
}
`;
  const findings = analyzeProject({ 'src/store.ts': store, 'src/games.ts': games, 'src/cleanup.ts': cleanup });
  const tokens = findings.filter((f) => f.rule === 'unique-token').map((f) => f.file);
  assert.deepEqual(tokens, ['src/cleanup.ts'], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

test('a refresh helper writing back the value its GET read is no acquire: its caller ignoring the answer is not reported', () => {
  const locks = `import Redis from 'ioredis';
const redis = new Redis();
export async function refreshLock(lockToken: string): Promise<boolean> {
  const raw = await redis.get(\`lock:token:\${lockToken}\`);
  if (!raw) return false;
  await redis.set(\`lock:token:\${lockToken}\`, raw, 'EX', 60);
  return true;
}
`;
  const controller = `import { refreshLock } from './locks';
declare function reply(status: number): Promise<void>;
export async function onRefresh(token: string) {
  await refreshLock(token);
  await reply(200);
}
`;
  const findings = analyzeProject({ 'src/locks.ts': locks, 'src/controller.ts': controller });
  assert.deepEqual(findingList(findings), [], findings.map((f) => f.message).join('\n'));
});
