import type { RuleCases } from '../harness';
import { expirySweep, io, nr, RELEASE } from './preludes';

export const rollbackPartialAcquireCases: RuleCases = {
  valid: [
    {
      name: 'a Promise.all whose callbacks each lock one entry for its own work and catch their own failure: no set to roll back',
      fileName: 'case.js',
      code: expirySweep(`        try {
          if (raw) await expire(JSON.parse(raw), id);
        } finally {
          await lock.unlock();
        }`),
    },
    {
      name: 'a loop in a try whose finally clears the keys it took through a helper named for clearing a lock',
      code: `${io}declare function clearSeatLock(seat: string, token: string): Promise<void>;
export async function withSeatLocks(seats: string[], token: string, fn: () => Promise<void>) {
  const held: string[] = [];
  try {
    for (const seat of seats) {
      if (!(await redis.set(\`lock:seat:\${seat}\`, token, 'PX', 30_000, 'NX'))) throw new Error('seat taken');
      held.push(seat);
    }
    await fn();
  } finally {
    for (const seat of held) await clearSeatLock(seat, token);
  }
}
`,
    },
    { name: 'the keys taken so far are released when one fails', code: `${io}export async function lockAll(skus: string[], token: string) {
  const taken: string[] = [];
  for (const sku of skus) {
    const ok = await redis.set(\`lock:stock:\${sku}\`, token, 'PX', 10000, 'NX');
    if (!ok) {
      for (const key of taken) await redis.eval(${RELEASE}, 1, key, token);
      return false;
    }
    taken.push(\`lock:stock:\${sku}\`);
  }
  return true;
}
` },
    { name: 'a catch around the loop releases', code: `${io}declare function unlockAll(keys: string[], token: string): Promise<void>;
export async function lockAll(skus: string[], token: string) {
  try {
    for (const sku of skus) {
      if (!(await redis.set(\`lock:stock:\${sku}\`, token, 'PX', 10000, 'NX'))) throw new Error(\`\${sku} busy\`);
    }
  } catch (err) {
    await unlockAll(skus.map((s) => \`lock:stock:\${s}\`), token);
    throw err;
  }
}
` },
    { name: 'Promise.all over independent single-key locks, each released in its own finally', code: `${nr}export async function syncAll(ids: string[], token: string) {
  await Promise.all(ids.map(async (id) => {
    const ok = await client.set(\`lock:sync:\${id}\`, token, { NX: true, PX: 10000 });
    if (!ok) return;
    try {
      await work();
    } finally {
      await client.eval(${RELEASE}, { keys: [\`lock:sync:\${id}\`], arguments: [token] });
    }
  }));
}
` },
    { name: 'a retry loop on one key is not a multi-key acquire', code: `${io}export async function take(token: string) {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await redis.set('lock:report', token, 'PX', 10000, 'NX')) return true;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  return false;
}
` },
    { name: 'the first free worker of a pool: a failed acquire goes on to the next, a taken one leaves the loop', code: `${io}export async function pickWorker(ids: string[], token: string) {
  let picked: string | undefined;
  for (const id of ids) {
    if (!(await redis.set(\`lock:worker:\${id}\`, token, 'PX', 10000, 'NX'))) {
      continue;
    }
    picked = id;
    break;
  }
  return picked;
}
` },
    { name: 'a quorum acquire over nodes (Promise.all of one SET NX per node) returns the token once most answered OK, and releases on all of them otherwise', code: `import Redis from 'ioredis';
const nodes = [new Redis(6379), new Redis(6380), new Redis(6381)];
export async function acquireQuorum(key: string, token: string): Promise<string | null> {
  const answers = await Promise.all(nodes.map((node) => node.set(key, token, 'PX', 10000, 'NX')));
  if (answers.filter((a) => a === 'OK').length >= 2) return token;
  await Promise.allSettled(nodes.map((node) => node.eval(${RELEASE}, 1, key, token)));
  return null;
}
` },
  ],
  invalid: [
    {
      name: 'Promise.all of NX acquires over keys, a failed answer returns { ok: false } without releasing',
      code: `${io}export async function lockPair(a: string, b: string, token: string) {
  const results = await Promise.all([a, b].map((id) => redis.set(\`lock:account:\${id}\`, token, 'PX', 10000, 'NX')));
  if (results.some((r) => r !== 'OK')) return { ok: false };
  return { ok: true };
}
`,
    },
    {
      name: 'the failure path releases the account lock taken before the loop, not the item locks taken in it',
      message: ['one key at a time'],
      code: `${io}export async function placeBets(user: string, ids: string[], token: string) {
  if (!(await redis.set(\`lock:wallet:\${user}\`, token, 'PX', 5000, 'NX'))) return 409;
  for (const id of ids) {
    if (!(await redis.set(\`lock:wager:\${id}\`, token, 'PX', 5000, 'NX'))) {
      await redis.eval(${RELEASE}, 1, \`lock:wallet:\${user}\`, token);
      return 409;
    }
  }
  return 200;
}
`,
    },
    {
      name: 'a taken key that goes on to the next one (continue on success) leaves the earlier keys taken when a later one fails',
      message: ['one key at a time'],
      code: `${io}export async function lockAll(skus: string[], token: string) {
  for (const sku of skus) {
    if (!(await redis.set(\`lock:stock:\${sku}\`, token, 'PX', 10000, 'NX'))) continue;
    if (sku.startsWith('bundle:')) continue;
    return false;
  }
  return true;
}
`,
    },
    {
      name: 'ioredis loop returns false without releasing the earlier keys',
      message: ['one key at a time', 'already taken'],
      code: `${io}export async function lockAll(skus: string[], token: string) {
  for (const sku of skus) {
    const ok = await redis.set(\`lock:stock:\${sku}\`, token, 'PX', 10000, 'NX');
    if (!ok) return false;
  }
  return true;
}
`,
    },
    {
      name: 'node-redis v5 loop throws on a busy key',
      code: `${nr}export async function lockSeats(seats: string[], token: string) {
  for (const seat of seats) {
    const key = \`lock:seat:\${seat}\`;
    const ok = await client.set(key, token, { condition: 'NX', expiration: { type: 'PX', value: 10000 } });
    if (ok !== 'OK') throw new Error(\`seat \${seat} is being booked\`);
  }
}
`,
    },
    {
      name: 'Promise.all of NX acquires, failure tested after it',
      code: `${io}export async function lockPair(a: string, b: string, token: string) {
  const results = await Promise.all([a, b].map((id) => redis.set(\`lock:account:\${id}\`, token, 'PX', 10000, 'NX')));
  if (results.some((r) => r !== 'OK')) throw new Error('account busy');
}
`,
    },
    {
      name: 'redlock: Promise.all of one acquire per resource (rejects when one is busy)',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()], { retryCount: 3 });
export async function lockAll(ids: string[]) {
  return Promise.all(ids.map((id) => redlock.acquire([\`lock:seat:\${id}\`], 10000)));
}
`,
    },
    {
      name: 'redis-semaphore: one Mutex per seat acquired in a loop (acquire throws on timeout)',
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function lockSeats(redis: Redis, seats: string[]) {
  const held: Mutex[] = [];
  for (const seat of seats) {
    const mutex = new Mutex(redis, \`seat:\${seat}\`, { acquireTimeout: 2000, onLockLost: () => process.exit(1) });
    await mutex.acquire();
    held.push(mutex);
  }
  return held;
}
`,
    },
    {
      name: 'node-redis: Promise.allSettled, a failed answer throws without releasing',
      code: `${nr}export async function lockPair(a: string, b: string, token: string) {
  const settled = await Promise.allSettled([a, b].map((id) => client.set(\`lock:account:\${id}\`, token, { NX: true, PX: 10000 })));
  if (settled.some((r) => r.status !== 'fulfilled' || r.value !== 'OK')) throw new Error('account busy');
}
`,
    },
    {
      name: 'through a helper acquire in a loop (throws when busy)',
      config: { helpers: { acquire: ['acquireLock'], release: ['releaseLock'], extend: [] } },
      code: `declare function acquireLock(key: string): Promise<string>;
export async function lockMany(keys: string[]) {
  for (const key of keys) {
    await acquireLock(key);
  }
}
`,
    },
  ],
};
