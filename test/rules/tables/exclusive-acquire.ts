import type { RuleCases } from '../harness';
import { acquireOrOverwrite, LOGIN_LOCKOUT, io, leaseSweep, nr, RELEASE, upstash, getSetMutex, pendingRecord } from './preludes';

export const exclusiveAcquireCases: RuleCases = {
  valid: [
    pendingRecord,
    {
      name: "a read-through cache of a leaderboard (`admin:leaderboard:hosts:<period>`): 'leader' in a leaderboard names no lock",
      code: `${io}const BOARD_TTL = 1800;
export async function cachedBoard<T>(period: string, compute: () => Promise<T>): Promise<T> {
  const key = \`admin:leaderboard:hosts:\${period}\`;
  try {
    const cached = await redis.get(key);
    if (cached) {
      return (typeof cached === 'string' ? JSON.parse(cached) : cached) as T;
    }
  } catch {
    // compute fresh
  }
  const rows = await compute();
  try {
    await redis.setex(key, BOARD_TTL, JSON.stringify(rows));
  } catch {
    // a cache write may fail
  }
  return rows;
}
`,
    },
    {
      name: 'a lockout written once a count read and stepped (get + 1) reaches a configured limit: a state, not an acquire',
      code: `${io}export async function recordFailure(user: string, limits: { maxAttempts: number; lockSeconds: number }): Promise<void> {
  const lockKey = \`login:lock:\${user}\`;
  if (await redis.get(lockKey)) throw new Error('locked out');
  const count = Number((await redis.get(\`login:fails:\${user}\`)) || 0) + 1;
  await redis.set(\`login:fails:\${user}\`, count, 'EX', 900);
  if (count >= limits.maxAttempts) await redis.set(lockKey, Date.now() + limits.lockSeconds * 1000, 'EX', limits.lockSeconds);
}
`,
    },
    { name: 'a record written under a key made from a token just drawn with randomUUID: no other process can hold that key', code: `${io}import { randomUUID } from 'node:crypto';
export async function createLock(path: string): Promise<string> {
  const lockToken = \`urn:uuid:\${randomUUID()}\`;
  if (await redis.get(\`lock:token:\${lockToken}\`)) throw new Error('impossible');
  await redis.set(\`lock:token:\${lockToken}\`, JSON.stringify({ path }), 'EX', 60);
  return lockToken;
}
` },
    { name: 'the value a GET read written back with a fresh TTL: a refresh of what is there, not an acquire', code: `${io}export async function refreshLock(lockToken: string): Promise<boolean> {
  const raw = await redis.get(\`lock:token:\${lockToken}\`);
  if (!raw) return false;
  await redis.set(\`lock:token:\${lockToken}\`, raw, 'EX', 60);
  return true;
}
` },
    { name: 'a cooldown stamped after the work its check lets through: the SET ends the branch, guarding nothing', code: `${io}declare const queue: { add(job: unknown): Promise<void> };
export async function refreshLiquidity(token: string) {
  const lockKey = \`refresh-liquidity-lock:\${token}\`;
  if (!(await redis.get(lockKey))) {
    await queue.add({ token });
    // no more than one refresh per token every 10 seconds
    await redis.set(lockKey, 'locked', 'EX', 10);
  }
}
` },
    { name: 'SET ... EX 30 GET is a test-and-set in one command: only the caller that gets null (the key was free) goes on', code: getSetMutex },
    // Overwriting a holder judged dead after a GET is a takeover: atomic-takeover reports it, once.
    { name: 'a sweep that overwrites the lease holders it judges dead is a takeover, not a check-then-SET acquire', code: leaseSweep("LEASES + '*'") },
    { name: 'an acquire that overwrites, after its NX failed, a holder its predicate judges dead is a takeover, not a check-then-SET acquire', code: acquireOrOverwrite('holder && restartedOnThisPort(holder)') },
    { name: "a login lockout: the lock key is SET only once an INCR of failures reaches its limit", code: LOGIN_LOCKOUT },
    {
      name: 'the in-process fallback: a module-level Map named as in-memory, checked then set',
      code: `let inMemoryLocks = new Map<string, { token: string; expires: number }>();
export async function acquireLock(key: string, ttlSec = 60): Promise<{ acquired: boolean; token?: string }> {
  const now = Date.now();
  const held = inMemoryLocks.get(key);
  if (held && held.expires > now) return { acquired: false };
  const token = \`\${now}-\${Math.random()}\`;
  inMemoryLocks.set(key, { token, expires: now + ttlSec * 1000 });
  return { acquired: true, token };
}
export async function releaseLock(key: string, token: string): Promise<boolean> {
  if (inMemoryLocks.get(key)?.token !== token) return false;
  return inMemoryLocks.delete(key);
}
`,
    },
    {
      name: "a heartbeat's plain SET EX of the key its NX acquire took is a renewal (owner-checked-extend's), not a second acquire",
      code: `${io}const LEADER = 'leader:reports';
export async function tryLead(me: string): Promise<boolean> {
  return (await redis.set(LEADER, me, 'EX', 30, 'NX')) === 'OK';
}
export async function updateHeartbeat(me: string): Promise<boolean> {
  return (await redis.set(LEADER, me, 'EX', 30)) === 'OK';
}
`,
    },
    { name: 'a cooldown or throttle window checked by GET then SET EX is a rate limit, not a once-only claim', code: `${io}export async function placeBet(userId: string) {
  const cdKey = \`cooldown:bet:\${userId}\`;
  if (await redis.get(cdKey)) return 'slow down';
  await redis.set(cdKey, '1', 'EX', 5);
  await work();
  return 'ok';
}
export async function sendSms(phone: string) {
  if (await redis.exists(\`sms-throttle:\${phone}\`)) return false;
  await redis.set(\`sms-throttle:\${phone}\`, 1, 'EX', 60);
  await work();
  return true;
}
` },
    { name: 'a failure counter beside a lock (written back as its reply plus one) is no GET-then-SET claim', code: `${io}export async function runGuarded(job: string, tries: number) {
  const lockKey = \`lock:job:\${job}\`;
  try {
    await work();
  } catch {
    const failuresKey = \`\${lockKey}:failures\`;
    const failures = await redis.get(failuresKey);
    if (!failures) {
      await redis.setex(failuresKey, 300, '1');
    } else if (parseInt(failures) > tries) {
      await redis.del(failuresKey);
    } else {
      await redis.setex(failuresKey, 300, String(Number(failures) + 1));
    }
  }
}
` },
    { name: 'a flag written after the work it records is no claim (the check and the SET are far apart)', code: `${io}export async function migrateOnce() {
  if (await redis.get('migrated:v2')) return;
  await work();
  await redis.set('migrated:v2', '1', 'EX', 86400);
}
` },
    { name: 'a value built after the miss and written with the work after it is a cache fill, not a marker', code: `${io}export async function warm(id: string) {
  if (await redis.get(\`warm:\${id}\`)) return;
  const body = JSON.stringify({ id, at: Date.now() });
  await redis.set(\`warm:\${id}\`, body, 'EX', 60);
  await work();
}
` },
    { name: 'an acquire that takes its lock with NX, then counts the attempts in a key of its own', code: `${io}export async function acquireLockCountingTries(lockKey: string, triesKey: string, max: number): Promise<boolean> {
  if (!(await redis.set(lockKey, 'w1', 'EX', 5, 'NX'))) return false;
  const tries = Number(await redis.get(triesKey)) || 0;
  if (tries >= max) return false;
  await redis.set(triesKey, tries + 1, 'EX', 300);
  return true;
}
` },
    { name: 'a cache filled with the value it computed after a miss', code: `${io}export async function profile(id: string) {
  const hit = await redis.get(\`profile:\${id}\`);
  if (hit) return hit;
  const fresh = JSON.stringify({ id });
  await redis.set(\`profile:\${id}\`, fresh, 'EX', 60);
  return fresh;
}
` },
    { name: 'a class field that only holds a Map is an in-memory store: its get/set are no Redis GET then SET', code: `${io}export class Sessions {
  private readonly seen = new Map<string, number>();
  private owners: Map<string, string>;
  constructor() { this.owners = new Map(); }
  async touch(lockKey: string, owner: string) {
    const at = this.seen.get(lockKey);
    if (at && Date.now() - at < 1000) return;
    this.seen.set(lockKey, Date.now());
    if (!this.owners.get(lockKey)) this.owners.set(lockKey, owner);
  }
  async releaseLock(lockKey: string, token: string) {
    await redis.eval(${RELEASE}, 1, lockKey, token);
  }
}
` },
    { name: 'an account lockout after failed attempts is a locked state, not a lock', code: `${io}export async function noteFailure(userId: string) {
  const tries = await redis.incr(\`otp_fail:\${userId}\`);
  if (tries < 5) return false;
  if (!(await redis.get(\`otp_locked:\${userId}\`))) await redis.set(\`otp_locked:\${userId}\`, String(Date.now()), 'PX', 600_000);
  return true;
}
export async function clearLockout(userId: string) {
  await redis.del(\`otp_locked:\${userId}\`, \`otp_fail:\${userId}\`);
}
` },
    { name: 'Upstash lower-case { nx: true, px } is exclusive', code: `${upstash}export async function lockOrder(id: string, token: string) {
  if (!(await kv.set(\`lock:order:\${id}\`, token, { nx: true, px: 30000 }))) return false;
  await work();
  await kv.eval(${RELEASE}, [\`lock:order:\${id}\`], [token]);
  return true;
}
` },
    {
      name: 'node-style callbacks: an owner check on the GET reply before a renewing SET, and a SET NX in the GET callback',
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
const redis = new Redis();
function renewExport(batch, owner, done) {
  redis.get('lock:export:' + batch, function (err, holder) {
    if (err || holder !== owner) return done(err, false);
    redis.set('lock:export:' + batch, owner, 'PX', 90000, function (setErr) {
      done(setErr, !setErr);
    });
  });
}
function lockExport(batch, owner, done) {
  redis.get('lock:export:' + batch, function (err, holder) {
    if (holder) return done(null, false);
    redis.set('lock:export:' + batch, owner, 'PX', 90000, 'NX', function (setErr, reply) {
      done(setErr, reply === 'OK');
    });
  });
}
module.exports = { renewExport, lockExport };
`,
    },
    { name: 'SET NX PX is exclusive', code: `${io}export async function lockOrder(id: string, token: string) {
  if (!(await redis.set(\`lock:order:\${id}\`, token, 'PX', 30000, 'NX'))) return false;
  await work();
  await redis.eval(${RELEASE}, 1, \`lock:order:\${id}\`, token);
  return true;
}
` },
    { name: 'a cache filled after a GET miss is not a lock', code: `${io}export async function cached(id: string, load: () => Promise<string>) {
  const hit = await redis.get(\`cache:user:\${id}\`);
  if (hit) return hit;
  const value = await load();
  await redis.set(\`cache:user:\${id}\`, value, 'EX', 60);
  await redis.del(\`cache:user:\${id}:stale\`);
  return value;
}
` },
    { name: 'a cache of a "lock" status read through: the hit is handed back, so the key holds data', code: `${io}export async function vaultLockStatus(pool: string, fetch: () => Promise<{ locked: boolean }>) {
  const cacheKey = \`pool_lock:\${pool}\`;
  const cached = await redis.get(cacheKey);
  if (cached) return JSON.parse(cached) as { locked: boolean };
  const status = await fetch();
  await redis.set(cacheKey, JSON.stringify(status), 'EX', 600);
  return status;
}
export async function claimPool(pool: string) {
  return (await redis.set(\`claim:\${pool}\`, '1', 'EX', 60, 'NX')) === 'OK';
}
` },
    { name: 'a leader lease renewed with SET XX', code: `${io}export async function renewLeadership(me: string) {
  const holder = await redis.get('leader:scheduler');
  if (holder !== me) return false;
  return (await redis.set('leader:scheduler', me, 'EX', 30, 'XX')) === 'OK';
}
` },
    { name: 'an operator tool overwriting a lock without testing the reply', code: `${io}export async function forceLock(name: string, token: string) {
  await redis.set(\`lock:\${name}\`, token, 'PX', 10000);
}
` },
    { name: 'an account lockout written by a function named lockAccount is a state, not a lock taken', code: `${io}export async function lockAccount(userId: string) {
  await redis.set(\`auth:lockout:\${userId}\`, '1', 'EX', 900);
}
export async function lockUser(userId: string) {
  await redis.set(\`user:locked:\${userId}\`, '1', 'EX', 900);
  await work();
  await redis.del(\`user:locked:\${userId}\`);
}
` },
    { name: "a plain SET of the key this function took with NX is the holder's write, not a second acquire", code: `${io}export async function rebuild(id: string, token: string) {
  const key = \`lock:rebuild:\${id}\`;
  if ((await redis.set(key, token, 'EX', 30, 'NX')) !== 'OK') return;
  await work();
  await redis.set(key, token, 'EX', 30);
  await work();
  await redis.del(key);
}
` },
    { name: "a lock's status record written by setLockStatus", code: `${io}export async function setLockStatus(name: string, status: string) {
  await redis.set(\`lock:\${name}:status\`, status, 'EX', 600);
}
` },
    { name: "a lock service's extend and its store's save write plain SETs that take no lock", code: `${io}export class RedisLockService {
  async extend(name: string, token: string, ttlMs: number) {
    await redis.set(name, token, 'PX', ttlMs);
  }
}
export class LockAuditStore {
  async save(name: string, entry: string) {
    await redis.set(\`audit:\${name}\`, entry, 'EX', 3600);
  }
}
` },
    { name: 'GET before SET NX is only a shortcut', code: `${nr}export async function lockReport(day: string, token: string) {
  if (await client.get(\`lock:report:\${day}\`)) return false;
  const ok = await client.set(\`lock:report:\${day}\`, token, { NX: true, PX: 60000 });
  return ok === 'OK';
}
` },
  ],
  invalid: [
    {
      name: 'a shared per-path lock map read and written back with a new TTL: what another holder added in between is lost',
      message: ['check-then-act'],
      code: `${io}export async function refreshPathLocks(path: string): Promise<void> {
  const pathRaw = await redis.get(\`locks:path:\${path}\`);
  if (pathRaw) await redis.set(\`locks:path:\${path}\`, pathRaw, 'EX', 60);
}
`,
      output: null,
    },
    {
      name: 'a check-then-SET semaphore whose busy branch refreshes the holder\'s TTL and leaves: only the SET that goes on to the work is the acquire',
      count: 1,
      message: ['check-then-act'],
      code: `${io}declare function buildFeed(id: string): Promise<void>;
export async function feedFor(id: string) {
  const lockKey = \`feed:\${id}:lock\`;
  if (await redis.exists(lockKey)) {
    // still being built: keep the marker alive
    await redis.set(lockKey, '1', 'EX', 120);
    return null;
  }
  await redis.set(lockKey, '1', 'EX', 120);
  buildFeed(id).finally(() => redis.del(lockKey));
  return null;
}
`,
    },
    {
      name: 'an acquire helper that takes the lock with a plain SET EX and hands nothing back',
      message: ['has no NX', 'overwrites whoever holds the lock'],
      code: `${io}export async function acquireLock(name: string): Promise<void> {
  await redis.set(\`lock:\${name}\`, 'locked', 'EX', 30);
}
`,
    },
    {
      name: 'the acquire method of a lock service class takes its parameter key with a plain SET PX',
      message: ['has no NX'],
      code: `${io}export class MutexService {
  async acquire(name: string, owner: string, ttlMs: number) {
    return (await redis.set(name, owner, 'PX', ttlMs)) === 'OK';
  }
}
`,
    },
    {
      name: 'a lock helper named lock, used after a separate isLocked check, sets without NX (node-redis options)',
      message: ['has no NX', 'check-then-act'],
      code: `${nr}export async function isLocked(name: string) {
  return (await client.exists(\`lock:\${name}\`)) === 1;
}
export async function lock(name: string, seconds = 30) {
  await client.set(\`lock:\${name}\`, String(process.pid), { EX: seconds });
}
`,
    },
    {
      name: 'a plain SET EX of a lock key, the work, then the DEL in finally: a mutex that excludes no one',
      message: ['has no NX', 'the DEL after the work'],
      code: `${io}export async function nightly(day: string) {
  const key = \`lock:nightly:\${day}\`;
  await redis.set(key, '1', 'EX', 600);
  try {
    await work();
  } finally {
    await redis.del(key);
  }
}
`,
    },
    {
      name: 'a webhook made idempotent by GET then SET of a marker, and the work after it',
      message: ['claim made in two round trips'],
      code: `${io}export async function onDelivery(id: string) {
  const seen = await redis.get(\`delivery:\${id}\`);
  if (seen) return 'duplicate';
  await redis.set(\`delivery:\${id}\`, 'done', 'EX', 3600);
  await work();
  return 'ok';
}
`,
      output: `${io}export async function onDelivery(id: string) {
  const seen = await redis.get(\`delivery:\${id}\`);
  if (seen) return 'duplicate';
  await redis.set(\`delivery:\${id}\`, 'done', 'EX', 3600, 'NX');
  await work();
  return 'ok';
}
`,
    },
    {
      name: 'a claim that writes the owner it was given, with a TTL: still two round trips',
      message: ['claim made in two round trips'],
      code: `${io}export async function claimShipment(id: string, owner: string) {
  if (await redis.exists(\`shipment:\${id}\`)) return false;
  await redis.set(\`shipment:\${id}\`, owner, 'EX', 300);
  await work();
  return true;
}
`,
      output: `${io}export async function claimShipment(id: string, owner: string) {
  if (await redis.exists(\`shipment:\${id}\`)) return false;
  await redis.set(\`shipment:\${id}\`, owner, 'EX', 300, 'NX');
  await work();
  return true;
}
`,
    },
    {
      name: 'a takeover that lets the free key through a guard on another holder, read by a reader method, then a plain SET EX',
      message: ['found it free', 'check-then-act'],
      code: `${io}export class SeatLocks {
  constructor(private readonly store: Redis) {}
  private key(room: string, seat: string) { return \`lock:seat:\${room}:\${seat}\`; }
  async holder(room: string, seat: string) {
    const raw = await this.store.get(this.key(room, seat));
    return raw ? (JSON.parse(raw) as { owner: string }) : null;
  }
  async acquire(room: string, seat: string, me: string) {
    return (await this.store.set(this.key(room, seat), JSON.stringify({ owner: me }), 'EX', 60, 'NX')) === 'OK';
  }
  async take(room: string, seat: string, me: string, force = false) {
    const prev = await this.holder(room, seat);
    if (prev && prev.owner !== me && !force) throw new Error('taken');
    await this.store.set(this.key(room, seat), JSON.stringify({ owner: me }), 'EX', 60);
  }
}
`,
      output: null,
    },
    {
      name: "node-redis set() given ioredis-style 'NX', 'EX' words: the client reads only an options object, so it is a plain SET",
      typecheck: false,
      message: ['node-redis', "'NX'", 'no TTL'],
      code: `import { createClient } from '@redis/client';
const client = createClient();
export async function claim(id: string) {
  return (await client.set(\`job:\${id}\`, '1', 'NX', 'EX', 30)) === 'OK';
}
`,
      output: `import { createClient } from '@redis/client';
const client = createClient();
export async function claim(id: string) {
  return (await client.set(\`job:\${id}\`, '1', { NX: true, EX: 30 })) === 'OK';
}
`,
    },
    {
      name: "cache-manager's set(key, value, ttl) after a get: check-then-act, and no NX to add",
      typecheck: false,
      code: `import type { Cache } from 'cache-manager';
declare const store: Cache;
export async function acquireLock(name: string, ms: number) {
  if (await store.get(name)) return false;
  await store.set(name, Date.now(), ms);
  return true;
}
export async function releaseLock(name: string) {
  await store.del(name);
}
`,
      output: null,
    },
    {
      name: 'ioredis SET PX without NX, reply tested',
      message: ['has no NX', 'always replies OK'],
      code: `${io}export async function lockOrder(id: string, token: string) {
  const ok = await redis.set(\`lock:order:\${id}\`, token, 'PX', 30000);
  if (!ok) return false;
  await work();
  await redis.eval(${RELEASE}, 1, \`lock:order:\${id}\`, token);
  return true;
}
`,
      output: `${io}export async function lockOrder(id: string, token: string) {
  const ok = await redis.set(\`lock:order:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return false;
  await work();
  await redis.eval(${RELEASE}, 1, \`lock:order:\${id}\`, token);
  return true;
}
`,
    },
    {
      name: 'node-redis v4 options without NX',
      code: `${nr}export async function acquireLock(name: string, token: string) {
  return (await client.set(\`lock:\${name}\`, token, { PX: 10000 })) === 'OK';
}
export async function releaseLock(name: string) {
  await client.del(\`lock:\${name}\`);
}
`,
      output: `${nr}export async function acquireLock(name: string, token: string) {
  return (await client.set(\`lock:\${name}\`, token, { NX: true, PX: 10000 })) === 'OK';
}
export async function releaseLock(name: string) {
  await client.del(\`lock:\${name}\`);
}
`,
    },
    {
      name: 'node-redis v5 options without a condition',
      code: `${nr}export async function acquireLock(name: string, token: string) {
  if (await client.set(\`lock:\${name}\`, token, { expiration: { type: 'PX', value: 10000 } })) return true;
  return false;
}
export async function releaseLock(name: string) {
  await client.del(\`lock:\${name}\`);
}
`,
      output: `${nr}export async function acquireLock(name: string, token: string) {
  if (await client.set(\`lock:\${name}\`, token, { condition: 'NX', expiration: { type: 'PX', value: 10000 } })) return true;
  return false;
}
export async function releaseLock(name: string) {
  await client.del(\`lock:\${name}\`);
}
`,
    },
    {
      name: "'NX' in the value position",
      message: ["'NX' is passed as the value"],
      output: null,
      code: `${io}export async function lockJob(id: string) {
  const ok = await redis.set(\`lock:job:\${id}\`, 'NX', 'PX', 5000);
  if (!ok) return false;
  await work();
  await redis.del(\`lock:job:\${id}\`);
  return true;
}
`,
    },
    {
      name: 'GET then SET (check-then-act)',
      message: ['check-then-act'],
      output: null,
      code: `${io}export async function lockInvoice(id: string, token: string) {
  const holder = await redis.get(\`lock:invoice:\${id}\`);
  if (holder) return false;
  await redis.set(\`lock:invoice:\${id}\`, token, 'EX', 30);
  await work();
  await redis.del(\`lock:invoice:\${id}\`);
  return true;
}
`,
    },
    {
      name: 'GET compared with the very marker the SET then writes: a "taken?" test, not an owner check',
      message: ['GET then SET', 'check-then-act'],
      output: null,
      code: `${io}export async function lockExport(batch: string) {
  const state = await redis.get(\`lock:export:\${batch}\`);
  if (state === 'busy') return false;
  await redis.set(\`lock:export:\${batch}\`, 'busy', 'PX', 90_000);
  await work();
  await redis.del(\`lock:export:\${batch}\`);
  return true;
}
`,
    },
    {
      name: 'node-style callbacks: the SET written in the GET\'s callback after its reply was found free',
      message: ['GET then SET', 'check-then-act'],
      output: null,
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
const redis = new Redis();
function lockExport(batch, owner, done) {
  redis.get('lock:export:' + batch, function (err, holder) {
    if (err) return done(err);
    if (holder) return done(null, false);
    redis.set('lock:export:' + batch, owner, 'PX', 90000, function (setErr) {
      done(setErr, !setErr);
    });
  });
}
function unlockExport(batch, done) {
  redis.del('lock:export:' + batch, done);
}
module.exports = { lockExport, unlockExport };
`,
    },
    {
      name: 'EXISTS then SET of the holder, in a file that never deletes the lock (check-then-act)',
      message: ['EXISTS then SET', 'check-then-act'],
      output: null,
      code: `${io}export async function tryLock(name: string, owner: string) {
  const lockKey = \`lock:\${name}\`;
  if (await redis.exists(lockKey)) return false;
  await redis.set(lockKey, owner, 'PX', 30000);
  return true;
}
`,
    },
    {
      name: 'a timestamp lock: the reply read as a number and compared with the clock, then a new expiry written',
      message: ['check-then-act'],
      output: null,
      code: `${io}export async function lockFeed(id: string) {
  const expiresAt = await redis.get(\`lock:feed:\${id}\`);
  if (expiresAt && Number(expiresAt) > Date.now()) return false;
  await redis.set(\`lock:feed:\${id}\`, String(Date.now() + 30000), 'EX', 30);
  return true;
}
`,
    },
    {
      name: 'GET then SETEX (check-then-act)',
      message: ['GET then SETEX', 'check-then-act'],
      code: `${io}export async function lockSheet(id: string, token: string) {
  if (await redis.get(\`lock:sheet:\${id}\`)) return false;
  await redis.setex(\`lock:sheet:\${id}\`, 30, token);
  return true;
}
`,
    },
    {
      name: "SETEX's OK taken as the lock: it always replies OK, and the fix is one SET NX EX",
      message: ['has no NX'],
      code: `${io}export async function lockSheet(id: string, token: string) {
  const ok = await redis.setex(\`lock:sheet:\${id}\`, 30, token);
  if (!ok) return false;
  await work();
  await redis.eval(${RELEASE}, 1, \`lock:sheet:\${id}\`, token);
  return true;
}
`,
      output: `${io}export async function lockSheet(id: string, token: string) {
  const ok = await redis.set(\`lock:sheet:\${id}\`, token, 'EX', 30, 'NX');
  if (!ok) return false;
  await work();
  await redis.eval(${RELEASE}, 1, \`lock:sheet:\${id}\`, token);
  return true;
}
`,
    },
    {
      name: 'node-redis EXISTS then SET',
      message: ['EXISTS then SET'],
      code: `${nr}export async function lockExport(id: string, token: string) {
  if (!(await client.exists(\`lock:export:\${id}\`))) {
    await client.set(\`lock:export:\${id}\`, token, { EX: 30 });
    await work();
    await client.del(\`lock:export:\${id}\`);
  }
}
`,
    },
    {
      name: 'through a helper: SET without NX inside the acquire helper',
      config: { helpers: { acquire: ['acquireLock'], release: ['releaseLock'], extend: [] } },
      code: `${io}export async function acquireLock(key: string, token: string) {
  return (await redis.set(key, token, 'EX', 30)) === 'OK';
}
export async function releaseLock(key: string) {
  await redis.del(key);
}
export async function run() {
  if (!(await acquireLock('lock:sync', 't'))) return;
  try { await work(); } finally { await releaseLock('lock:sync'); }
}
`,
    },
  ],
};
