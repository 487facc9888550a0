// Seeds one lock in every holder format Lockwise decodes (a bare random token, whoever wrote it, is a
// "token": redlock, redsync and Spring write shapes that custom code writes too). Where the library is installed (redlock,
// redis-semaphore) the real library takes the lock; the others (Java, Python, Go, .NET) are written in
// exactly the shape those libraries write, from their documented formats.
import { randomBytes, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { Redlock } from '@sesamecare-oss/redlock';
import { Mutex, Semaphore } from 'redis-semaphore';

export interface SeededLock {
  key: string;
  format: string;
  /** What a guarded release must present. */
  token: string;
  state: 'held' | 'no-expiry';
  fence?: string;
}

export interface Seeded {
  locks: SeededLock[];
  /** Keys that exist but must never be listed (no default pattern matches them). */
  unrelated: string[];
}

export async function seedAllFormats(client: Redis): Promise<Seeded> {
  const locks: SeededLock[] = [];
  const put = async (lock: SeededLock, value: string, pxMs?: number) => {
    if (pxMs) await client.set(lock.key, value, 'PX', pxMs);
    else await client.set(lock.key, value);
    locks.push(lock);
  };

  const lw = `lw1:web-1:4242:${randomBytes(16).toString('hex')}`;
  await put({ key: 'lock:orders', format: 'lockwise', token: lw, state: 'held', fence: '17' }, lw, 30_000);
  await client.set('{lock:orders}:fence', '17');

  const redlock = new Redlock([client], { retryCount: 0 });
  const rl = await redlock.acquire(['lock:redlock-resource'], 30_000);
  locks.push({ key: 'lock:redlock-resource', format: 'token', token: rl.value, state: 'held' });

  const mutex = new Mutex(client, 'jobs', { lockTimeout: 30_000, onLockLost: () => undefined });
  await mutex.acquire();
  mutex.stopRefresh(); // the key stays; no timer keeps the test process alive
  locks.push({ key: 'mutex:jobs', format: 'redis-semaphore', token: mutex.identifier, state: 'held' });

  const semaphore = new Semaphore(client, 'pool', 3, { lockTimeout: 30_000, onLockLost: () => undefined });
  await semaphore.acquire();
  semaphore.stopRefresh();
  locks.push({ key: 'semaphore:pool', format: 'redis-semaphore', token: semaphore.identifier, state: 'held' });

  // Redisson RLock: hash field "<client uuid>:<thread id>" -> reentry count; fenced-lock counter beside it.
  const redissonField = `${randomUUID()}:42`;
  await client.hset('lock:redisson', redissonField, '2');
  await client.pexpire('lock:redisson', 30_000);
  await client.set('redisson_lock_token:{lock:redisson}', '5');
  locks.push({ key: 'lock:redisson', format: 'redisson', token: redissonField, state: 'held', fence: '5' });

  // Redisson write lock of a read-write lock: "mode" field and a ":write" holder field.
  const writeField = `${randomUUID()}:7:write`;
  await client.hset('lock:redisson-rw', 'mode', 'write', writeField, '1');
  await client.pexpire('lock:redisson-rw', 30_000);
  locks.push({ key: 'lock:redisson-rw', format: 'redisson', token: writeField, state: 'held' });

  // python-redis-lock: 18 random bytes base64, and by default NO expiry.
  const py = randomBytes(18).toString('base64');
  await put({ key: 'lock:report', format: 'python-redis-lock', token: py, state: 'no-expiry' }, py);

  // pottery Redlock: "redlock:<key>" holding a UUID.
  const pottery = randomUUID();
  await put({ key: 'redlock:invoice', format: 'pottery', token: pottery, state: 'held' }, pottery, 30_000);

  // go redsync: 16 random bytes base64 (with "==").
  const redsync = randomBytes(16).toString('base64');
  await put({ key: 'lock:redsync', format: 'token', token: redsync, state: 'held' }, redsync, 30_000);

  // Spring RedisLockRegistry with registry key "lock": "<registryKey>:<path>" holding the registry's UUID.
  const spring = randomUUID();
  await put({ key: 'lock:spring-order-1', format: 'token', token: spring, state: 'held' }, spring, 60_000);

  // StackExchange.Redis LockTake: the caller's value, usually the machine name.
  await put({ key: 'lock:nightly-batch', format: 'plain', token: 'WEB-SERVER-01', state: 'held' }, 'WEB-SERVER-01', 30_000);

  const json = JSON.stringify({ owner: 'importer', host: 'worker-3', pid: 77 });
  await put({ key: 'lock:import', format: 'json', token: json, state: 'held' }, json, 30_000);

  // A hand-rolled SETNX lock whose EXPIRE never ran: the classic stuck lock.
  await put({ key: 'lock:legacy', format: 'plain', token: '1', state: 'no-expiry' }, '1');

  await client.set('session:abc', 'not a lock');
  await client.set('cache:lock:fake', 'not a lock either');

  return { locks, unrelated: ['session:abc', 'cache:lock:fake'] };
}
