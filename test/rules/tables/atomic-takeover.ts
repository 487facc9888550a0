import type { RuleCases } from '../harness';
import { acquireOrOverwrite, expiryStampLock, io, leaseSweep, nr, stampedClaimTakeover } from './preludes';

const TAKEOVER = `"local v = redis.call('get', KEYS[1]) if v == false or tonumber(v) < tonumber(ARGV[2]) then return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[3]) end return false"`;

export const atomicTakeoverCases: RuleCases = {
  valid: [
    { name: 'takeover in one Lua script', code: `${io}export async function lockOrTakeOver(name: string, token: string) {
  return redis.eval(${TAKEOVER}, 1, \`lock:\${name}\`, token, String(Date.now()), '30000');
}
` },
    { name: 'SET IFEQ replaces only the stale value (Redis 8.4)', code: `${io}export async function takeOver(name: string, token: string) {
  const stale = await redis.get(\`lock:\${name}\`);
  if (stale !== null && Number(stale.split(':')[0]) < Date.now()) {
    return redis.call('SET', \`lock:\${name}\`, token, 'IFEQ', stale, 'PX', 30000);
  }
  return null;
}
` },
    { name: 'a maintenance lockdown flag is a state an admin sets, not a lock', code: `${io}const LOCK_KEY = 'site:lockdown';
export async function startLockdown(minutes: number) {
  await redis.set(LOCK_KEY, JSON.stringify({ until: Date.now() + minutes * 60000 }));
}
export async function unlock() {
  await redis.del(LOCK_KEY);
}
export async function lockdownUntil(): Promise<number | null> {
  const raw = await redis.get(LOCK_KEY);
  if (!raw) return null;
  const { until } = JSON.parse(raw) as { until: number };
  if (until <= Date.now()) {
    await redis.del(LOCK_KEY);
    return null;
  }
  return until;
}
` },
    { name: 'a stale cache entry deleted is not a lock', code: `${io}export async function refresh(id: string) {
  const cachedAt = await redis.get(\`cache:prices:\${id}:at\`);
  if (cachedAt && Date.now() - Number(cachedAt) > 60000) await redis.del(\`cache:prices:\${id}\`);
}
` },
    { name: 'counts cached under names about a lock (`reviewLockSeatsCacheKey`): an invalid entry deleted is no takeover', code: `${io}const reviewLockSeatsCacheKey = (docId: string) => \`review-lock-seats-cache:\${docId}\`;
export async function cachedSeats(docId: string): Promise<number | null> {
  const seatsKey = reviewLockSeatsCacheKey(docId);
  const seats = await redis.get(seatsKey);
  if (seats !== null) {
    const count = Number(seats);
    if (Number.isInteger(count) && count >= 0) return count;
    await redis.del(seatsKey);
  }
  return null;
}
` },
    { name: 'GET-compare-DEL with the own token is owner-checked-release, not a takeover', code: `${nr}export async function releaseLock(name: string, token: string) {
  const holder = await client.get(\`lock:\${name}\`);
  if (holder === token) await client.del(\`lock:\${name}\`);
}
` },
    { name: 'a leader lease renewed with SET XX after reading the holder', code: `${io}export async function renewLeadership(me: string) {
  const holder = await redis.get('leader:scheduler');
  if (holder === me) await redis.set('leader:scheduler', me, 'EX', 30, 'XX');
}
` },
    { name: 'a holder judged by a predicate outside a function named for breaking locks: no staleness decision is seen', code: `${io}const ME = \`worker:\${process.pid}\`;
declare function trusted(holder: string): boolean;
export async function handOver(id: string) {
  const holder = await redis.get(\`lock:job:\${id}\`);
  if (holder && trusted(holder)) await redis.set(\`lock:job:\${id}\`, ME, 'EX', 60, 'XX');
}
` },
    { name: 'a sweep over keys KEYS lists of another kind than the leases taken with NX', code: leaseSweep("'session:*'") },
    { name: 'an acquire whose NX failed sets the key again when the holder is its own token: a re-entrant refresh, no takeover', code: acquireOrOverwrite('holder === INSTANCE') },
  ],
  invalid: [
    { name: 'a stale lock deleted after a test that leaves while its stamped expiry is still ahead (the DEL follows the test, not inside it)', message: ['breaks a stale lock'], code: expiryStampLock },
    {
      name: 'a SETNX that failed, then a plain SET over the holder once its stamped expiry is past (the SET follows a test that leaves while fresh)',
      message: ['This SET breaks a stale lock'],
      code: stampedClaimTakeover,
    },
    { name: 'an acquire whose NX failed overwrites the holder its own predicate judges a dead instance', code: acquireOrOverwrite('holder && restartedOnThisPort(holder)') },
    { name: 'the same acquire testing the holder against null first', code: acquireOrOverwrite('holder !== null && restartedOnThisPort(holder)') },
    { name: 'a sweep over the leases KEYS lists, taken with NX one by one elsewhere in the file, overwrites each holder judged dead', code: leaseSweep("'lease:*'") },
    { name: 'the same sweep with the pattern spelled from the key prefix constant', code: leaseSweep("LEASES + '*'") },
    {
      name: 'a startup sweep named for reclaiming stale locks overwrites each holder its own predicate judges dead',
      code: `${io}const ME = \`worker:\${process.pid}:\${Date.now()}\`;
function fromEarlierRun(holder: string): boolean {
  const [role, , pid] = holder.split(':');
  return role === 'worker' && pid !== String(process.pid);
}
export async function reclaimStaleLocks(ids: string[]) {
  for (const id of ids) {
    const holder = await redis.get(\`lock:job:\${id}\`);
    if (holder && fromEarlierRun(holder)) await redis.set(\`lock:job:\${id}\`, ME, 'EX', 60);
  }
}
`,
    },
    {
      name: 'ioredis: GET the expiry timestamp, DEL when past, SET NX again',
      message: ['separate GET', 'IFEQ'],
      code: `${io}export async function lockWithTakeover(name: string, token: string) {
  const key = \`lock:\${name}\`;
  if (await redis.set(key, \`\${Date.now() + 30000}:\${token}\`, 'NX')) return true;
  const current = await redis.get(key);
  if (current && Number(current.split(':')[0]) < Date.now()) {
    await redis.del(key);
    return (await redis.set(key, \`\${Date.now() + 30000}:\${token}\`, 'NX')) === 'OK';
  }
  return false;
}
`,
    },
    {
      name: 'node-redis: age computed from the value, then SET over it',
      code: `${nr}export async function lockOrBreak(name: string, token: string) {
  if (await client.set(\`lock:\${name}\`, String(Date.now()), { NX: true, PX: 60000 })) return token;
  const since = await client.get(\`lock:\${name}\`);
  const age = Date.now() - Number(since);
  if (since && age > 60000) {
    await client.set(\`lock:\${name}\`, String(Date.now()), { PX: 60000 });
    return token;
  }
  return null;
}
`,
    },
    {
      name: 'node-redis v5: an isStale() decision, then UNLINK',
      code: `${nr}function isStale(value: string | null) {
  return value !== null && JSON.parse(value).expiresAt < Date.now();
}
export async function breakLock(name: string) {
  const holder = await client.get(\`mutex:\${name}\`);
  if (isStale(holder)) await client.unlink(\`mutex:\${name}\`);
}
`,
    },
    {
      name: 'a lock guarding a cache (`priceCacheLockKey`): its name ends in the lock',
      code: `${io}const priceCacheLockKey = (id: string) => \`price-cache-lock:\${id}\`;
export async function breakRebuildLock(id: string) {
  const startedAt = await redis.get(priceCacheLockKey(id));
  if (startedAt && Date.now() - Number(startedAt) > 60000) await redis.del(priceCacheLockKey(id));
}
`,
    },
    {
      name: 'in a class: this.redis, a const key alias',
      code: `import Redis from 'ioredis';
export class JobLock {
  constructor(private readonly redis: Redis) {}
  async takeOverIfExpired(job: string) {
    const lockKey = \`lock:job:\${job}\`;
    const startedAt = await this.redis.get(lockKey);
    if (startedAt !== null && Date.now() - Number(startedAt) > 300000) {
      await this.redis.del(lockKey);
    }
  }
}
`,
    },
  ],
};
