// A thin wrapper that writes SET's option words itself (`set(key, value, 'NX')`, `'EX', ttl, 'NX'`):
// its callers' commands carry those options, so what the words leave out is reported at the call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const kv = `import Redis from 'ioredis';
export class Kv {
  constructor(private readonly client: Redis) {}
  async setIfAbsent(key: string, value: string): Promise<boolean> {
    return (await this.client.set(key, value, 'NX')) === 'OK';
  }
  async setIfAbsentFor(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
`;

test('a wrapper that writes NX but no TTL: the caller\'s lock has no expiry, and its ignored answer is reported', () => {
  const findings = analyzeProject({
    'src/kv.ts': kv,
    'src/jobs.ts': `import { Kv } from './kv';
export async function nightly(kv: Kv, run: () => Promise<void>) {
  await kv.setIfAbsent('lock:nightly', 'worker');
  await run();
}
export async function hourly(kv: Kv, run: () => Promise<void>) {
  if (!(await kv.setIfAbsentFor('lock:hourly', 'worker', 60))) return;
  await run();
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/jobs.ts: check-acquire-result', 'src/jobs.ts: require-ttl'], findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n'));
});

test('a finding on a call through a command wrapper offers no fix that would call a method the wrapper lacks', () => {
  const findings = analyzeProject({
    'src/redis.service.ts': `import Redis from 'ioredis';
export class RedisService {
  private client = new Redis();
  async setnx(key: string, value: string) { return this.client.setnx(key, value); }
  async expire(key: string, seconds: number) { return this.client.expire(key, seconds); }
  async delete(key: string) { return this.client.del(key); }
}
`,
    'src/orders.ts': `import { randomUUID } from 'node:crypto';
import { RedisService } from './redis.service';
export async function pay(redisService: RedisService, id: string, charge: () => Promise<void>) {
  const key = \`lock:order:\${id}\`;
  const token = randomUUID();
  if (!(await redisService.setnx(key, token))) return;
  await redisService.expire(key, 30);
  try { await charge(); } finally { await redisService.delete(key); }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/orders.ts: atomic-acquire', 'src/orders.ts: owner-checked-release']);
  for (const f of findings) {
    assert.deepEqual(f.fixes, [], `${f.rule} must not rewrite the wrapper call`);
    assert.match(f.noFix ?? '', /wrapper redisService\.(setnx|delete)/);
  }
});

test('a wrapper named like the raw command, setNX(key, value, ttl), that tests the reply it stored in a variable: the TTL is its', () => {
  const findings = analyzeProject({
    'src/store.ts': `import Redis from 'ioredis';
export class RedisStore {
  private readonly client = new Redis();
  async setNX(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    const reply = await this.client.set(key, value, 'EX', ttlSeconds, 'NX');
    return reply === 'OK';
  }
}
`,
    'src/tables.ts': `import { RedisStore } from './store';
export class Tables {
  constructor(private readonly redisStore: RedisStore, private readonly me: string) {}
  async acquireTable(id: string): Promise<boolean> {
    const mine = await this.redisStore.setNX(\`table:\${id}\`, this.me, 10);
    return mine;
  }
}
`,
  });
  assert.deepEqual(findingList(findings), []);
});

test('a function that puts a lock word around its key decides the lock itself: its bare DEL and constant token are its own findings, once', () => {
  const findings = analyzeProject({
    'src/locks.ts': `import { createClient } from 'redis';
const client = createClient();
export async function take(service: string) {
  return (await client.set('lock:' + service, 'held', { NX: true, PX: 30000 })) === 'OK';
}
export async function drop(service: string) {
  await client.del('lock:' + service);
}
`,
    'src/cache.ts': `import { createClient } from 'redis';
const client = createClient();
export async function forget(entry: string) {
  await client.del('cache:' + entry);
}
`,
    'src/deploy.ts': `import { take, drop } from './locks';
import { forget } from './cache';
export async function deploy(service: string, run: () => Promise<void>) {
  if (!(await take(service))) return;
  try {
    await run();
    await forget(service);
  } finally {
    await drop(service);
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/locks.ts: owner-checked-release', 'src/locks.ts: unique-token'], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

// node-redis and Upstash take SET's options as an object: a wrapper that builds it around the TTL it is given.
const objectOptions = `import { createClient, type RedisClientType } from 'redis';
export class Store {
  constructor(private readonly client: RedisClientType) {}
  async setNX(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.client.set(key, value, { NX: true, PX: ttlMs });
    return reply === 'OK';
  }
}
export const store = new Store(createClient() as RedisClientType);
`;

test('a wrapper that forwards the TTL inside an options object: its callers acquire with that TTL', () => {
  const findings = analyzeProject({
    'src/store.ts': objectOptions,
    'src/jobs.ts': `import { randomUUID } from 'node:crypto';
import { store } from './store';
export async function checked(run: () => Promise<void>) {
  if (!(await store.setNX('lock:report', randomUUID(), 30000))) return;
  await run();
}
export async function ignored(run: () => Promise<void>) {
  await store.setNX('lock:digest', randomUUID(), 30000);
  await run();
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/jobs.ts: check-acquire-result'], findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n'));
  assert.match(findings[0].message, /'lock:digest' is ignored/);
});

// A lock service written over a project's own client wrapper: SETNX then SETEX, GET-compare then delete.
const kvWrapper = `import Redis from 'ioredis';
const conn = new Redis();
export const kv = {
  read: (key: string) => conn.get(key),
  setnx: (key: string, value: string) => conn.setnx(key, value),
  setex: (key: string, value: string, seconds: number) => conn.setex(key, seconds, value),
  remove: (key: string) => conn.del(key),
};
`;
const mutexOverKv = `import { kv } from './kv';
export class Mutex {
  async take(resource: string, holder: string, seconds: number): Promise<boolean> {
    if (!(await kv.setnx(resource, holder))) return false;
    await kv.setex(resource, holder, seconds);
    return true;
  }
  async give(resource: string, holder: string): Promise<void> {
    if ((await kv.read(resource)) === holder) await kv.remove(resource);
  }
  async forceFree(resource: string): Promise<void> {
    await kv.remove(resource);
  }
}
export const mutex = new Mutex();
`;

test('a lock service over a client wrapper: its non-atomic steps in the service, a constant holder at the caller', () => {
  const findings = analyzeProject({
    'src/kv.ts': kvWrapper,
    'src/mutex.ts': mutexOverKv,
    'src/refund.ts': `import { mutex } from './mutex';
export async function refund(orderId: string, pay: () => Promise<void>) {
  const resource = 'lock:refund:' + orderId;
  if (!(await mutex.take(resource, 'refunds', 20))) return;
  try {
    await pay();
  } finally {
    await mutex.give(resource, 'refunds');
  }
}
`,
  });
  const list = findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n');
  // forceFree() deletes by name on purpose (an operator's force-unlock): not an owner-checked-release finding.
  assert.deepEqual(findingList(findings), ['src/mutex.ts: atomic-acquire', 'src/mutex.ts: owner-checked-release', 'src/refund.ts: unique-token'], list);
  // The service compares the holder (in a GET before the delete), so a shared holder passes that check.
  assert.match(findings.find((f) => f.rule === 'unique-token')!.message, /The owner check compares this value/, list);
});

test('a wrapper that stores the value as a string of its parameter still forwards its NX and TTL', () => {
  const findings = analyzeProject({
    'src/store.service.ts': `import Redis from 'ioredis';
export class StoreService {
  private readonly client = new Redis();
  async setNx(key: string, value: unknown, ttlSeconds: number): Promise<boolean> {
    const reply = await this.client.set(key, typeof value === 'string' ? value : JSON.stringify(value), 'EX', ttlSeconds, 'NX');
    return reply === 'OK';
  }
  async setNxText(key: string, value: number, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(key, String(value), 'EX', ttlSeconds, 'NX')) === 'OK';
  }
  async del(key: string): Promise<void> {
    await this.client.del(key);
  }
}
`,
    'src/grading.ts': `import { randomUUID } from 'node:crypto';
import { StoreService } from './store.service';
export class Grading {
  constructor(private readonly store: StoreService) {}
  async grade(examId: string, score: () => Promise<void>) {
    const lockKey = \`exam:\${examId}:lock\`;
    if (!(await this.store.setNx(lockKey, randomUUID(), 120))) return;
    try {
      await score();
    } finally {
      await this.store.del(lockKey);
    }
  }
  async publish(examId: string, send: () => Promise<void>) {
    if (!(await this.store.setNxText(\`exam:\${examId}:publish-lock\`, process.pid, 30))) return;
    await send();
  }
}
`,
  });
  const list = findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n');
  // The TTL and NX reach Redis: no require-ttl. The pid stored by setNxText is read as the caller's value.
  assert.deepEqual(findingList(findings), ['src/grading.ts: owner-checked-release'], list);
});

test('a method named setnx that writes its own value with the caller\'s TTL is an acquire with that TTL, not a raw SETNX', () => {
  const findings = analyzeProject({
    'src/kv.service.ts': `import Redis from 'ioredis';
export class KvService {
  private readonly client = new Redis();
  async setnx(key: string, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(key, '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
  async setIfAbsent(key: string, value: string): Promise<boolean> {
    return (await this.client.setnx(key, value)) === 1;
  }
  async del(key: string): Promise<void> {
    await this.client.del(key);
  }
}
`,
    'src/pairing.ts': `import { KvService } from './kv.service';
export class Pairing {
  constructor(private readonly kv: KvService) {}
  async pair(a: string, b: string, go: () => Promise<void>) {
    const pairLockKey = \`pair:lock:\${a}:\${b}\`;
    if (!(await this.kv.setnx(pairLockKey, 30))) return;
    try {
      await go();
    } finally {
      await this.kv.del(pairLockKey);
    }
  }
  async solo(a: string, go: () => Promise<void>) {
    if (!(await this.kv.setIfAbsent(\`pair:lock:\${a}\`, a))) return;
    await go();
  }
}
`,
  });
  const list = findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n');
  // pair(): the TTL reaches Redis, but the value '1' is every holder's and the DEL compares nothing.
  // solo(): setIfAbsent forwards to a SETNX with no TTL.
  assert.deepEqual(findingList(findings), ['src/pairing.ts: owner-checked-release', 'src/pairing.ts: require-ttl', 'src/pairing.ts: unique-token'], list);
  assert.match(findings.find((f) => f.rule === 'require-ttl')!.message, /pair:lock:\*/, list);
  assert.doesNotMatch(findings.find((f) => f.rule === 'require-ttl')!.message, /pair:lock:\*:\*/, list);
});

test('a wrapper whose options object names its own TTL (ttlSec, ttlMs): its callers\' NX acquires have that TTL', () => {
  const findings = analyzeProject({
    'src/redis.service.ts': `import Redis from 'ioredis';
type WriteOptions = { ttlSec?: number; ttlMs?: number; nx?: boolean };
export class RedisService {
  private readonly redis = new Redis();
  async set(key: string, value: string, opts: WriteOptions = {}): Promise<boolean> {
    const words: (string | number)[] = [];
    if (opts.ttlSec) words.push('EX', opts.ttlSec);
    if (opts.ttlMs) words.push('PX', opts.ttlMs);
    if (opts.nx) words.push('NX');
    return (await (this.redis as any).set(key, value, ...words)) === 'OK';
  }
}
`,
    'src/jobs.ts': `import { randomUUID } from 'node:crypto';
import { RedisService } from './redis.service';
export class Jobs {
  constructor(private readonly redis: RedisService) {}
  async nightly(run: () => Promise<void>) {
    if (!(await this.redis.set('lock:nightly', randomUUID(), { ttlSec: 600, nx: true }))) return;
    await run();
  }
  async hourly(run: () => Promise<void>) {
    if (!(await this.redis.set('lock:hourly', randomUUID(), { nx: true, ttlMs: 60_000 }))) return;
    await run();
  }
  async forever(run: () => Promise<void>) {
    if (!(await this.redis.set('lock:forever', randomUUID(), { nx: true }))) return;
    await run();
  }
}
`,
  });
  const list = findings.map((f) => `${f.file}:${f.span.start} ${f.rule}: ${f.message}`).join('\n');
  assert.deepEqual(findingList(findings), ['src/jobs.ts: require-ttl'], list);
  assert.match(findings[0].message, /lock:forever/, list);
});
