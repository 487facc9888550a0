// Code that only looks like locking through project helpers: it must stay silent across files.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

// A claim written with ioredis' positional option words, the client handed in.
const GUARD = `async function claimOnce(store, jobId) {
  const got = await store.set(\`job:\${jobId}:claim\`, '1', 'NX', 'EX', 30);
  return !!got;
}
module.exports = { claimOnce };
`;

const traps: Array<{ name: string; files: Record<string, string> }> = [
  {
    name: 'a release on every early return and in the catch under `if (lockKey && lockValue)` (both set once the lock is taken): every path releases',
    files: {
      'src/lock.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const RELEASE = \`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0\`;
export async function acquireLock(key: string, opts: { ttlSeconds: number }): Promise<{ acquired: boolean; lockValue?: string }> {
  const lockValue = randomUUID();
  const ok = await redis.set(\`lock:\${key}\`, lockValue, 'EX', opts.ttlSeconds, 'NX');
  return ok === 'OK' ? { acquired: true, lockValue } : { acquired: false };
}
export async function releaseLock(key: string, lockValue: string): Promise<void> {
  await redis.eval(RELEASE, 1, \`lock:\${key}\`, lockValue);
}
`,
      'src/wallets.ts': `import { acquireLock, releaseLock } from './lock';
declare function existingWallets(userId: string): Promise<string[]>;
declare function deploy(userId: string): Promise<string>;
export async function createWallet(userId: string): Promise<string> {
  let lockKey: string | undefined;
  let lockValue: string | undefined;
  try {
    lockKey = \`wallet-creation:\${userId}\`;
    const lockResult = await acquireLock(lockKey, { ttlSeconds: 600 });
    if (!lockResult.acquired) return 'busy';
    lockValue = lockResult.lockValue;
    const existing = await existingWallets(userId);
    if (existing.length > 0) {
      await releaseLock(lockKey, lockValue!);
      return existing[0];
    }
    const address = await deploy(userId);
    await releaseLock(lockKey, lockValue!);
    return address;
  } catch (error) {
    if (lockKey && lockValue) {
      await releaseLock(lockKey, lockValue);
    }
    throw error;
  }
}
`,
    },
  },
  {
    name: "a duplicate check through the project's setnx wrapper, answering true when the key exists and true from its catch (failing closed): no lock granted",
    files: {
      'src/lib/store.ts': `import Redis from 'ioredis';
class Store {
  private readonly client = new Redis();
  async setnx(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    if (ttlSeconds) return (await this.client.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
    return (await this.client.setnx(key, value)) === 1;
  }
}
export const store = new Store();
`,
      'src/lib/dedup.ts': `import { store } from './store';
export async function isDuplicateEvent(key: string, ttlSeconds = 86400): Promise<boolean> {
  try {
    const wasSet = await store.setnx(key, '1', ttlSeconds);
    if (!wasSet) return true;
    return false;
  } catch (err) {
    console.error('dedup check failed: treating the event as a duplicate', err);
    return true;
  }
}
`,
    },
  },
  {
    name: 'a cache DEL and a lock built by two key functions of the same argument (CacheKeys.receipt(id), CacheKeys.receiptLock(id)), each behind a wrapper method and a caller: two keys, not the lock and its bare release',
    files: {
      'src/keys.ts': `export class CacheKeys {
  static receipt(orderId: string): string {
    return \`receipt:\${orderId}\`;
  }
  static receiptLock(orderId: string): string {
    return \`receipt:lock:\${orderId}\`;
  }
}
`,
      'src/redis.service.ts': `import Redis from 'ioredis';
import { CacheKeys } from './keys';
const RELEASE = \`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0\`;
export class ReceiptRedis {
  private readonly redis = new Redis();
  async dropReceiptCache(orderId: string): Promise<number> {
    return this.redis.del(CacheKeys.receipt(orderId));
  }
  async takeReceiptLock(orderId: string, token: string): Promise<boolean> {
    return (await this.redis.set(CacheKeys.receiptLock(orderId), token, 'EX', 30, 'NX')) === 'OK';
  }
  async freeReceiptLock(orderId: string, token: string): Promise<boolean> {
    return Number(await this.redis.eval(RELEASE, 1, CacheKeys.receiptLock(orderId), token)) > 0;
  }
}
`,
      'src/receipts.ts': `import { randomUUID } from 'node:crypto';
import { ReceiptRedis } from './redis.service';
declare function render(orderId: string): Promise<void>;
export class Receipts {
  constructor(private readonly redis: ReceiptRedis) {}
  async store(orderId: string): Promise<void> {
    await render(orderId);
    await this.redis.dropReceiptCache(orderId);
  }
  async lockRender(orderId: string): Promise<string | null> {
    const token = randomUUID();
    return (await this.redis.takeReceiptLock(orderId, token)) ? token : null;
  }
  async unlockRender(orderId: string, token: string): Promise<void> {
    await this.redis.freeReceiptLock(orderId, token);
  }
  async rerender(orderId: string): Promise<void> {
    const token = await this.lockRender(orderId);
    if (!token) return;
    try {
      await this.store(orderId);
    } finally {
      await this.unlockRender(orderId, token);
    }
  }
}
`,
    },
  },
  {
    name: 'a generic cache service: its del/expire/pExpire are not lock operations, nor its callers\' uses',
    files: {
      'src/cache/cache.service.ts': `import { createClient } from 'redis';
export class CacheService {
  private readonly client = createClient();
  private getKey(key: string) {
    return \`cache:\${key}\`;
  }
  async get(key: string) {
    return this.client.get(this.getKey(key));
  }
  async setNX(key: string, value: string) {
    return this.client.set(this.getKey(key), value, { NX: true });
  }
  async del(key: string) {
    return this.client.del(this.getKey(key));
  }
  async expire(key: string, seconds: number) {
    return this.client.expire(this.getKey(key), seconds);
  }
  async pExpire(key: string, ms: number) {
    return this.client.pExpire(this.getKey(key), ms);
  }
}
`,
      'src/users/profile.ts': `import { CacheService } from '../cache/cache.service';
export class Profiles {
  constructor(private readonly cache: CacheService) {}
  async warm(id: string, json: string) {
    await this.cache.setNX(\`profile:\${id}\`, json);
    await this.cache.expire(\`profile:\${id}\`, 300);
  }
  async forget(id: string) {
    await this.cache.del(\`profile:\${id}\`);
  }
}
`,
    },
  },
  {
    name: 'a per-lock class with a fresh randomUUID() per instance, constructed per acquisition',
    files: {
      'src/lock/redis-lock.ts': `import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class RedisLock {
  private readonly token = randomUUID();
  constructor(private readonly redis: Redis, private readonly key: string, private readonly ttlMs = 10000) {}
  async acquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }
  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
`,
      'src/jobs/export.ts': `import type Redis from 'ioredis';
import { RedisLock } from '../lock/redis-lock';
export async function exportAll(redis: Redis, run: () => Promise<void>) {
  const lock = new RedisLock(redis, 'lock:export');
  if (!(await lock.acquire())) return;
  try {
    await run();
  } finally {
    await lock.release();
  }
}
`,
    },
  },
  {
    name: 'a Postgres advisory-lock helper called withLock',
    files: {
      'src/db/advisory.ts': `import type { Pool } from 'pg';
export async function withLock<T>(pool: Pool, id: number, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [id]);
    return await fn();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [id]);
    client.release();
  }
}
`,
      'src/db/migrate.ts': `import type { Pool } from 'pg';
import { withLock } from './advisory';
export async function migrate(pool: Pool, steps: Array<() => Promise<void>>) {
  await withLock(pool, 42, async () => {
    for (const step of steps) await step();
  });
}
`,
    },
  },
  {
    name: "another package's withLock(keys, ttl, fn), reached through a class extending its lock class: its routine is handed no signal",
    files: {
      'src/lock/lock.service.ts': `import { Injectable } from '@nestjs/common';
import { DistributedLock } from '@acme/redis-locks';
@Injectable()
export class LockService extends DistributedLock {}
`,
      'src/lock/locked.decorator.ts': `import { LockService } from './lock.service';
export function Locked(keys: string[], ttl = 1000) {
  return (target: object, name: string, descriptor: PropertyDescriptor) => {
    const original = descriptor.value;
    descriptor.value = async function (this: { locks: LockService }, ...args: unknown[]) {
      return this.locks.withLock(keys, ttl, () => original.apply(this, args));
    };
  };
}
`,
    },
  },
  {
    name: 'a set-once dedup marker behind a helper',
    files: {
      'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
      'src/webhooks/dedup.ts': `import { redis } from '../redis';
export async function markDelivered(eventId: string): Promise<boolean> {
  return (await redis.set(\`webhook:seen:\${eventId}\`, '1', 'EX', 86400, 'NX')) === 'OK';
}
`,
      'src/webhooks/handler.ts': `import { markDelivered } from './dedup';
export async function onEvent(id: string, apply: () => Promise<void>) {
  if (!(await markDelivered(id))) return;
  await apply();
}
`,
    },
  },
  {
    name: 'a lease helper that is never released (it expires by design)',
    files: {
      'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
      'src/scheduler/lease.ts': `import { redis } from '../redis';
import { randomUUID } from 'node:crypto';
export async function acquireLease(name: string, seconds: number): Promise<boolean> {
  return (await redis.set(\`lease:\${name}\`, randomUUID(), 'EX', seconds, 'NX')) === 'OK';
}
`,
      'src/scheduler/tick.ts': `import { acquireLease } from './lease';
export async function tick(run: () => Promise<void>) {
  if (!(await acquireLease('scheduler', 30))) return;
  await run();
}
`,
    },
  },
  {
    name: 'an admin force-unlock of a lock a person confirmed is stuck',
    files: {
      'src/redis.ts': `import Redis from 'ioredis';
export const redis = new Redis();
`,
      'src/admin/locks.ts': `import { redis } from '../redis';
/** Operator action: breaks a lock by name after a person confirmed it is stuck. */
export async function forceUnlock(name: string): Promise<number> {
  return redis.del(\`lock:\${name}\`);
}
export async function breakLock(name: string) {
  await redis.del(\`lock:\${name}\`);
}
`,
    },
  },
  {
    // redlock throws when the lock is busy: an ignored Lock object is no unchecked acquire.
    name: 'a helper that hands back redlock\'s Lock, awaited and its result not used',
    files: {
      'src/locks.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()]);
export class ResourceLocks {
  lockResource(ttl = 1000) {
    return redlock.acquire(['locks:resource'], ttl);
  }
}
`,
      'src/warmup.ts': `import { ResourceLocks } from './locks';
export async function warmUp(locks: ResourceLocks) {
  await locks.lockResource(10_000);
}
`,
    },
  },
  {
    // It takes and releases its own lock: to callers it is a plain call, in a loop or a try alike.
    name: 'a function that locks, works and releases in itself, called in a loop and under a catch',
    files: {
      'src/locks.ts': `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const client = new Redis();
export async function lock(options: { id: string; scope: string }): Promise<Mutex> {
  const mutex = new Mutex(client, options.scope + ':' + options.id, { lockTimeout: 30_000, refreshInterval: 0 });
  await mutex.acquire();
  return mutex;
}
export async function unlock(mutex: Mutex): Promise<void> {
  await mutex.release();
}
`,
      'src/metrics.ts': `import { lock, unlock } from './locks';
export class Metrics {
  async refreshMetrics(options: { id: string; kind: string }): Promise<void> {
    const mutex = await lock({ id: options.id, scope: 'metrics.' + options.kind });
    try {
      await this.recompute(options.id);
    } finally {
      await unlock(mutex);
    }
  }
  private async recompute(id: string) {}
}
`,
      'src/sweep.ts': `import { Metrics } from './metrics';
export async function sweep(metrics: Metrics, ids: string[]) {
  for (const id of ids) await metrics.refreshMetrics({ id, kind: 'daily' });
}
export async function once(metrics: Metrics, id: string, report: (id: string) => Promise<void>) {
  try {
    await metrics.refreshMetrics({ id, kind: 'hourly' });
  } catch (err) {
    await report(id);
  }
  await report(id);
}
`,
    },
  },
  {
    // The lease is taken on the way to a connection, and a busy lease throws: callers two hops away
    // get a client, not an answer to test.
    name: 'a connection getter that takes a lease and throws when it is busy, reached through two services',
    files: {
      'src/leases.ts': `import Redis from 'ioredis';
const redis = new Redis();
const INSTANCE = \`node:\${process.pid}:\${Math.random()}\`;
export class Leases {
  private readonly held = new Set<string>();
  async acquire(id: string): Promise<boolean> {
    const ok = (await redis.set(\`lease:bridge:\${id}\`, INSTANCE, 'EX', 60, 'NX')) === 'OK';
    if (ok) this.held.add(id);
    return ok;
  }
}
export const leases = new Leases();
`,
      'src/bridges.ts': `import { leases } from './leases';
export interface Bridge { resize(cols: number): Promise<void> }
declare function connect(id: string): Promise<Bridge>;
export class Bridges {
  async getClient(id: string): Promise<Bridge> {
    const leased = await leases.acquire(id);
    if (!leased) throw new Error('bridge owned by another instance');
    return connect(id);
  }
}
export const bridges = new Bridges();
`,
      'src/terminals.ts': `import { bridges } from './bridges';
export class Terminals {
  private async bridgeFor(id: string) {
    return bridges.getClient(id);
  }
  async resize(id: string, cols: number) {
    const bridge = await this.bridgeFor(id);
    return bridge.resize(cols);
  }
}
`,
      'src/routes.ts': `import { Terminals } from './terminals';
export async function onResize(terminals: Terminals, id: string, cols: number) {
  await terminals.resize(id, cols);
}
`,
    },
  },
  {
    name: 'an acquire helper that answers true or throws, awaited without a test',
    files: {
      'src/gate.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export class Gate {
  constructor(private readonly name: string, private readonly token = randomUUID()) {}
  async enter(waitMs = 30_000): Promise<boolean> {
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      if ((await redis.set(this.name, this.token, 'PX', 60_000, 'NX')) === 'OK') return true;
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 200));
    }
    throw new Error('gate timeout');
  }
}
`,
      'src/encode.ts': `import { Gate } from './gate';
const gpu = new Gate('gpu-slot');
export async function encodeOne(encode: () => Promise<void>) {
  await gpu.enter();
  await encode();
}
`,
    },
  },
  {
    name: 'a setNX(key, value, ttl) wrapper that writes EX and NX itself gives its callers a TTL',
    files: {
      'src/kv.ts': `import Redis from 'ioredis';
export class Kv {
  constructor(private readonly client: Redis) {}
  async setNX(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
`,
      'src/board.ts': `import { Kv } from './kv';
export class Board {
  constructor(private readonly kv: Kv, private readonly me: string) {}
  async claim(id: string): Promise<boolean> {
    return this.kv.setNX(\`board:lock:\${id}\`, this.me, 15);
  }
}
`,
    },
  },
  {
    name: 'an elector that records whether it leads on itself, its answer to claim() ignored by a caller that asks isLeader()',
    files: {
      'src/elector.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class Elector {
  private leading = false;
  private readonly id = randomUUID();
  constructor(private readonly redis: Redis) {}
  async claim(): Promise<boolean> {
    const ok = (await this.redis.set('lock:leader', this.id, 'PX', 10000, 'NX')) === 'OK';
    this.leading = ok;
    return ok;
  }
  isLeader(): boolean {
    return this.leading;
  }
}
`,
      'src/main.ts': `import { Elector } from './elector';
export async function tick(elector: Elector, work: () => Promise<void>) {
  await elector.claim();
  if (elector.isLeader()) await work();
}
`,
    },
  },
  {
    name: 'an acquire that throws when the lock is taken and otherwise answers { acquired: true, ... }: nothing to test at its call',
    files: {
      'src/desk-lock.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const FREE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export class DeskLockService {
  async acquireLock(desk: string, agent: string) {
    const holder = { agent, token: randomUUID() };
    const acquired = await redis.set(\`lock:desk:\${desk}\`, JSON.stringify(holder), 'EX', 120, 'NX');
    if (acquired !== 'OK') throw new Error(\`desk \${desk} is taken\`);
    return { acquired: true, holder };
  }
  async releaseLock(desk: string, token: string) {
    await redis.eval(FREE, 1, \`lock:desk:\${desk}\`, token);
  }
}
`,
      'src/claim.ts': `import { DeskLockService } from './desk-lock';
export async function claimDesk(locks: DeskLockService, desk: string, agent: string, open: () => Promise<void>) {
  try {
    await locks.acquireLock(desk, agent);
  } catch {
    return false;
  }
  await open();
  return true;
}
`,
    },
  },
  {
    name: "positional 'NX', 'EX' words where the project's client takes them (ioredis)",
    files: { 'package.json': '{ "dependencies": { "ioredis": "^5.3.0" } }', 'src/guard.js': GUARD },
  },
  {
    name: "positional 'NX', 'EX' words with node_redis 3, which still took them",
    files: { 'package.json': '{ "dependencies": { "redis": "^3.1.2" } }', 'src/guard.js': GUARD },
  },
  {
    name: "positional 'NX', 'EX' words when the project has node-redis and ioredis both",
    files: { 'package.json': '{ "dependencies": { "redis": "^4.6.0", "ioredis": "^5.3.0" } }', 'src/guard.js': GUARD },
  },
  {
    name: "another file's sleep(ms) or default delay(ms), and a sleep method of the class, between the acquire and the try: waits that cannot throw",
    files: {
      'src/utils/time.ts': 'export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));\n',
      'src/lib/delay.ts': 'export default function delay(ms: number) {\n  return new Promise((r) => setTimeout(r, ms));\n}\n',
      'src/jobs/poller.ts': `import Redis from 'ioredis';
import { sleep } from '../utils/time';
import delay from '../lib/delay';
const redis = new Redis();
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
declare function work(): Promise<void>;
export class Poller {
  private pause(ms: number) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
  async once(id: string, token: string) {
    const key = \`lock:poll:\${id}\`;
    if ((await redis.set(key, token, 'PX', 30000, 'NX')) !== 'OK') return;
    await sleep(5);
    await delay(5);
    await this.pause(5);
    try {
      await work();
    } finally {
      await redis.eval(RELEASE, 1, key, token);
    }
  }
}
`,
    },
  },
  {
    name: "an in-process lock table typed `Map` (kept on globalThis across reloads): its synchronous acquire's answer is tested without await",
    files: {
      'src/locks/table.ts': `const stash = globalThis as unknown as { __JOB_LOCKS__?: Map<string, { holder: string; until: number }> };
const locks: Map<string, { holder: string; until: number }> = stash.__JOB_LOCKS__ ?? new Map();
if (!stash.__JOB_LOCKS__) stash.__JOB_LOCKS__ = locks;
export function acquireLock(resource: string, holder: string): boolean {
  const current = locks.get(resource);
  if (current && current.until > Date.now() && current.holder !== holder) return false;
  locks.set(resource, { holder, until: Date.now() + 10000 });
  return true;
}
export function releaseLock(resource: string, holder: string): void {
  if (locks.get(resource)?.holder === holder) locks.delete(resource);
}
`,
      'src/checks/contention.ts': `import { acquireLock, releaseLock } from '../locks/table';
export function contention(): boolean {
  const first = acquireLock('job:a', 'n1');
  const second = acquireLock('job:a', 'n2');
  releaseLock('job:a', 'n1');
  return first && !second;
}
`,
    },
  },
];

for (const trap of traps) {
  test(`project trap stays silent: ${trap.name}`, () => {
    const findings = analyzeProject(trap.files);
    assert.deepEqual(findingList(findings), [], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}

test('an acquire method taking its lock with a library\'s acquire, then writing the lock\'s details under a registry key through a store wrapper: the SET is no acquire', () => {
  const redisService = `import Redis from 'ioredis';
export class RedisService {
  private readonly client = new Redis();
  async set(key: string, value: string, ttlMs?: number): Promise<string | null> {
    return ttlMs ? this.client.set(key, value, 'PX', ttlMs) : this.client.set(key, value);
  }
  async get(key: string): Promise<string | null> {
    return this.client.get(key);
  }
  async delete(key: string): Promise<number> {
    return this.client.del(key);
  }
}
`;
  const mutexService = `import { RedisService } from './redis.service';
interface HeldLock { value: string; resources: string[]; release(): Promise<void> }
declare const locker: { acquire(keys: string[], ttl: number): Promise<HeldLock> };
export class MutexService {
  constructor(private readonly redisService: RedisService) {}
  async acquireWithRegistry(key: string, ttl: number): Promise<HeldLock | null> {
    const registryKey = \`lock_registry:\${key}\`;
    try {
      const lock = await locker.acquire([key], ttl);
      await this.redisService.set(registryKey, JSON.stringify({ resources: lock.resources, value: lock.value }), ttl);
      return lock;
    } catch {
      return null;
    }
  }
}
`;
  const findings = analyzeProject({ 'src/redis.service.ts': redisService, 'src/mutex.service.ts': mutexService });
  assert.deepEqual(findingList(findings), [], findings.map((f) => f.message).join('\n'));
});
