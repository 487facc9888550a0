import type { RuleCases } from '../harness';

const head = `import Redis from 'ioredis';
import { Mutex, Semaphore } from 'redis-semaphore';
const redis = new Redis();
`;

export const handleLockLostCases: RuleCases = {
  valid: [
    { name: 'onLockLost given', code: `${head}export const m = new Mutex(redis, 'job', { onLockLost: (err) => console.error(err) });
` },
    { name: 'refresh disabled', code: `${head}export const m = new Mutex(redis, 'job', { refreshInterval: 0, lockTimeout: 60000 });
` },
    { name: 'async-mutex Mutex is not a Redis lock', code: `import { EventEmitter as Mutex } from 'node:events';
export const m = new Mutex();
` },
    { name: 'new this.constructor(...) is not a redis-semaphore class', code: `${head}export class Query { clone(a: unknown, b: unknown) { return new (this.constructor as new (x: unknown, y: unknown) => Query)(a, b); } }
` },
    { name: 'options from elsewhere are not judged', code: `${head}import type { LockOptions } from 'redis-semaphore';
export const make = (opts: LockOptions) => new Mutex(redis, 'job', opts);
` },
    { name: "a factory method's options parameter, whose caller in the file passes onLockLost through a spread const", code: `${head}import type { LockOptions } from 'redis-semaphore';
export class Jobs {
  mutexFor(key: string, options: LockOptions) {
    return new Mutex(redis, \`jobs:\${key}\`, options);
  }
  async tryStart(key: string, ttlMs?: number) {
    const base = { acquireAttemptsLimit: 1, lockTimeout: ttlMs ?? 60000, onLockLost: (err: Error) => console.error(err) };
    const mutex = this.mutexFor(key, { ...base, identifier: key });
    return (await mutex.tryAcquire()) ? mutex : undefined;
  }
}
` },
    { name: "a factory method's options parameter, whose caller passes options it cannot see", code: `${head}import type { LockOptions } from 'redis-semaphore';
declare function defaults(): LockOptions;
export class Jobs {
  mutexFor(key: string, options: LockOptions) {
    return new Mutex(redis, \`jobs:\${key}\`, options);
  }
  async tryStart(key: string, ttlMs?: number) {
    const mutex = this.mutexFor(key, defaults());
    return (await mutex.tryAcquire()) ? mutex : undefined;
  }
}
` },
  ],
  invalid: [
    {
      name: "a factory method's options parameter, whose caller in the file builds options without onLockLost",
      message: ['the options its callers pass have no onLockLost'],
      code: `${head}import type { LockOptions } from 'redis-semaphore';
export class Jobs {
  mutexFor(key: string, options: LockOptions) {
    return new Mutex(redis, \`jobs:\${key}\`, options);
  }
  async tryStart(key: string, ttlMs?: number) {
    const base = { acquireAttemptsLimit: 1, lockTimeout: ttlMs ?? 60000 };
    const mutex = this.mutexFor(key, { ...base, identifier: key });
    return (await mutex.tryAcquire()) ? mutex : undefined;
  }
}
`,
    },
    {
      name: 'a Semaphore imported under another name, made in a helper that hands the permit back',
      message: ['This Semaphore refreshes'],
      code: `import Redis from 'ioredis';
import { Semaphore as RedisSemaphore } from 'redis-semaphore';
const client = new Redis();
export async function takePermit(key: string, limit: number) {
  const permit = new RedisSemaphore(client, \`sem:\${key}\`, limit, { lockTimeout: 10000 });
  await permit.acquire();
  return permit;
}
`,
    },
    {
      name: 'a Mutex required under another name (CommonJS)',
      fileName: 'mutex.js',
      message: ['This Mutex refreshes'],
      code: `const Redis = require('ioredis');
const { Mutex: RedisMutex } = require('redis-semaphore');
const client = new Redis();
async function runExclusive(key, work) {
  const mutex = new RedisMutex(client, \`lock:\${key}\`);
  await mutex.acquire();
  try {
    return await work();
  } finally {
    await mutex.release();
  }
}
module.exports = { runExclusive };
`,
    },
    {
      name: 'Mutex without options',
      message: ['LostLockError', 'onLockLost'],
      code: `${head}export const m = new Mutex(redis, 'job');
`,
      output: `${head}export const m = new Mutex(redis, 'job', { onLockLost: (err) => { console.error('lock lost: stop the work it protects', err); } });
`,
    },
    {
      name: 'Semaphore with options lacking onLockLost',
      code: `${head}export const s = new Semaphore(redis, 'jobs', 3, { lockTimeout: 5000 });
`,
      output: `${head}export const s = new Semaphore(redis, 'jobs', 3, { onLockLost: (err) => { console.error('lock lost: stop the work it protects', err); }, lockTimeout: 5000 });
`,
    },
  ],
};
