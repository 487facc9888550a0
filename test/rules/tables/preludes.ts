// Shared file headers for the rule tables: each case is a whole, type-checkable module.
export const io = `import Redis from 'ioredis';
const redis = new Redis();
async function work(): Promise<void> {}
`;

export const nr = `import { createClient } from 'redis';
const client = createClient();
async function work(): Promise<void> {}
`;

// Valkey GLIDE: one standalone and one cluster client (shapes from @valkey/valkey-glide's .d.ts).
export const glide = `import { GlideClient, GlideClusterClient, Script, TimeUnit } from '@valkey/valkey-glide';
declare const valkey: GlideClient;
declare const cluster: GlideClusterClient;
async function work(): Promise<void> {}
`;

// The Upstash REST client (@upstash/redis, @vercel/kv), declared with its shapes (lower-case SET
// options, eval(script, keys, args)) so the cases type-check without the package installed.
export const upstash = `declare const kv: {
  set(key: string, value: unknown, opts?: { nx?: boolean; xx?: boolean; ex?: number; px?: number }): Promise<'OK' | null>;
  get<T>(key: string): Promise<T | null>;
  del(...keys: string[]): Promise<number>;
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
};
async function work(): Promise<void> {}
`;

export const glideBatch = `import { Batch, GlideClient } from '@valkey/valkey-glide';
declare const valkey: GlideClient;
`;

export const RELEASE = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"`;
export const EXTEND = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"`;

// What a guarded fix declares once per file, on the line after the imports (rules/fixes/text.ts).
export const RELEASE_DECL = `
// Deletes the lock only while it still holds this process's token, in one atomic step.
const RELEASE_LOCK_SCRIPT = \`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0\`;
`;
export const EXTEND_DECL = `
// Extends the lock (PEXPIRE, ARGV[2] ms) only while it still holds this process's token.
const EXTEND_LOCK_SCRIPT = \`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0\`;
`;

/** `code` with `declaration` inserted on the line after its last import. */
export function declared(code: string, declaration: string): string {
  const lines = code.split('\n');
  let last = -1;
  lines.forEach((line, i) => {
    if (/^import\b/.test(line)) last = i;
  });
  lines.splice(last + 1, 0, '', declaration.slice(1, -1));
  return lines.join('\n');
}

/**
 * A sorted-set counting semaphore: a slot taken with the set's TTL, renewed only while the token is a
 * member, left by removing its own entry and deleting the set once empty. Neither an unchecked renewal
 * nor an unchecked delete (owner-checked-extend and owner-checked-release both hold it valid).
 */
export const sortedSetSemaphore = { name: 'a sorted-set semaphore: the slot taken with the set\'s TTL, renewed only while the token is a member, left by removing the own entry and deleting the set once empty', code: `${io}const TAKE_SLOT = \`
local token = ARGV[1]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], token)
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
return 0\`;
const KEEP_SLOT = \`
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0\`;
const LEAVE_SLOT = \`
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
end
return 1\`;
export async function withSlot(name: string, token: string, limit: number) {
  const key = \`lock:slots:\${name}\`;
  const now = Date.now();
  if ((await redis.eval(TAKE_SLOT, 1, key, token, limit, now, 60000)) !== 1) return false;
  try {
    await work();
    await redis.eval(KEEP_SLOT, 1, key, token, Date.now(), 60000);
    await work();
  } finally {
    await redis.eval(LEAVE_SLOT, 1, key, token);
  }
  return true;
}
` };

/**
 * A single-flight window on `${key}:<user>`: a fixed value set with NX through an error-as-value pair,
 * kept by an early return when the work succeeded, deleted by a plain DEL after it otherwise.
 */
export const singleFlightWindow = (key: string) => `${io}declare function to<T>(work: Promise<T>): Promise<[Error | null, T | undefined]>;
declare function fetchAvatar(userId: string): Promise<{ ok: boolean }>;
export async function syncAvatar(userId: string) {
  const windowKey = \`${key}:\${userId}\`;
  const [setError, claimed] = await to(redis.set(windowKey, '1', 'EX', 600, 'NX'));
  if (setError) return;
  if (claimed !== 'OK') return;
  const fresh = await fetchAvatar(userId);
  if (fresh.ok) return; // keep the window: its TTL decides when to look again
  await redis.del(windowKey); // let the next request try again at once
}
`;

/** That window on a key named like nothing of locks: a marker, on which no rule reports. */
export const singleFlightMarker = {
  name: 'a single-flight window kept when the work succeeds (an early return) and deleted after it only when it failed: a marker, not a lock',
  code: singleFlightWindow('avatar:refresh'),
};

/**
 * A receipt sent once per order: a fixed value set with NX inside a try whose catch sends anyway (the
 * dedupe is best effort), tested after the try, kept when the send went well, deleted when it failed.
 */
export const sentOnceMarker = {
  name: 'a once-only send marker taken in a try whose catch leaves, tested after the try, deleted only when the send failed: a marker, not a lock',
  code: `${io}declare function sendReceipt(orderId: string): Promise<boolean>;
export async function sendReceiptOnce(orderId: string) {
  const sentKey = \`receipt:sent:\${orderId}\`;
  let first: string | null;
  try {
    first = await redis.set(sentKey, '1', 'EX', 86_400, 'NX');
  } catch (err) {
    console.error('receipt dedupe unavailable', err);
    return sendReceipt(orderId);
  }
  if (!first) return;
  const delivered = await sendReceipt(orderId);
  if (delivered) return;
  await redis.del(sentKey);
}
`,
};

/** The same claim deleted when the background work answers that it did not start, or when it failed. */
export const outcomeRolledBackClaim = {
  name: 'a claim deleted when its background work answers that it did not start (`.then((started) => { if (!started) del })`) or failed: a marker',
  code: `${io}declare function processMention(id: string): Promise<boolean>;
export async function startMentionWithClaim(threadId: string): Promise<boolean> {
  const claimKey = \`routing-lock:\${threadId}\`;
  const claimed = await redis.set(claimKey, '1', 'EX', 60, 'NX');
  if (!claimed) return false;
  processMention(threadId)
    .then(async (started) => {
      if (!started) await redis.del(claimKey);
    })
    .catch(async () => {
      await redis.del(claimKey);
    });
  return true;
}
`,
};

/** A handler taking the import claim and deleting it only when its own background work fails. */
const claimHandler = (name: string, work: string) => `export async function ${name}(job: { id: string }): Promise<boolean> {
  const jobId = job.id;
  const claimKey = \`import:claim-lock:\${jobId}\`;
  if (!(await redis.set(claimKey, '1', 'EX', 120, 'NX'))) return false;
  ${work}(jobId).catch(async () => {
    await redis.del(claimKey);
  });
  return true;
}
`;

/** One claim key taken by two handlers, each rolling it back only when its own work fails. */
export const sharedClaim = {
  name: 'one claim key taken by two handlers, each deleting it only in the rejection handler of its own work: markers',
  code: `${io}declare function runImport(id: string): Promise<void>;
declare function runReimport(id: string): Promise<void>;
${claimHandler('startImport', 'runImport')}${claimHandler('startReimport', 'runReimport')}`,
};

/** A self-check script testing NX itself: the same key taken twice, the second refused, the verdict logged. */
export const nxSelfTest = {
  name: 'a self-check that takes one key twice with NX to see the second refused, logs the verdict and exits non-zero on failure: a probe, whatever the key is named',
  fileName: 'scripts/verify-redis.ts',
  code: `${io}export async function verifyNx() {
  const lockKey = 'selftest:lock';
  const first = await redis.set(lockKey, '1', 'EX', 10, 'NX');
  const second = await redis.set(lockKey, '1', 'EX', 10, 'NX');
  await redis.del(lockKey).catch(() => {});
  if (first === 'OK' && second === null) {
    console.log('SET NX: PASS');
  } else {
    console.log('SET NX: FAIL', first, second);
    process.exit(1);
  }
}
`,
};

/**
 * A stampede damper taken only when Redis is configured: when busy it returns what the holder filled, or
 * falls through to the same rebuild after the \`if\`; a cache invalidation deletes its key too.
 */
export const configuredDamper = {
  name: 'a stampede damper inside `if (isRedisConfigured())` whose busy path falls through to the same rebuild after it, its key also cleared by an invalidation: excludes no one',
  code: `${io}const REBUILD_LOCK = 'creators:ids:rebuild-lock';
declare function isRedisConfigured(): boolean;
declare function readCache(): Promise<{ ids: string[] } | null>;
declare function loadIdsFromDb(): Promise<string[]>;
declare function writeCache(ids: string[]): Promise<void>;
export async function creatorIds(): Promise<string[]> {
  if (isRedisConfigured()) {
    const locked = await redis.set(REBUILD_LOCK, '1', 'EX', 30, 'NX').catch(() => null);
    if (!locked) {
      const filled = await readCache();
      if (filled?.ids) return filled.ids;
    }
  }
  const ids = await loadIdsFromDb();
  await writeCache(ids);
  if (isRedisConfigured()) await redis.del(REBUILD_LOCK).catch(() => 0);
  return ids;
}
export async function invalidateCreatorIds(): Promise<void> {
  await redis.del('creators:ids', REBUILD_LOCK);
}
`,
};

/**
 * A request's idempotency record: claimed as 'pending', replaced by the response (SETEX) once it is done,
 * deleted when the request gave up, read back by a duplicate. Not a lock.
 */
export const pendingRecord = {
  name: "an idempotency record claimed as 'pending' and replaced by the response it guards (SETEX), deleted only when the request gave up: not a lock",
  code: `${io}const PRESEND_PREFIX = 'chat:presend-lock:';
declare function charge(id: string): Promise<{ ok: boolean; coins: number }>;
export async function preSend(messageId: string): Promise<{ canSend: boolean; coins: number }> {
  const recordKey = \`\${PRESEND_PREFIX}\${messageId}\`;
  const claimed = (await redis.set(recordKey, 'pending', 'EX', 60, 'NX')) === 'OK';
  if (!claimed) {
    const cached = await redis.get(recordKey);
    if (cached && cached !== 'pending') return JSON.parse(cached);
    return { canSend: true, coins: 0 };
  }
  const result = await charge(messageId);
  if (!result.ok) {
    await redis.del(recordKey);
    return { canSend: false, coins: 0 };
  }
  const response = { canSend: true, coins: result.coins };
  await redis.setex(recordKey, 60, JSON.stringify(response));
  return response;
}
`,
};

/**
 * A two-state idempotency record: claimed as 'processing' with NX, moved to 'completed' (a plain SET, a
 * longer TTL) when the run is done, deleted when it failed so a retry can run. Not a lock.
 */
export const twoStateRecord = {
  name: "an idempotency record claimed as 'processing', moved to 'completed' when done and deleted when the run failed: a record, not a lock",
  code: `${io}const PROCESSING = 'processing';
const COMPLETED = 'completed';
export async function claimEvent({ eventKey }: { eventKey: string }): Promise<'claimed' | 'duplicate' | 'in_flight'> {
  const result = await redis.set(eventKey, PROCESSING, 'PX', 300_000, 'NX');
  if (result !== null) return 'claimed';
  const existing = await redis.get(eventKey);
  return existing === COMPLETED ? 'duplicate' : 'in_flight';
}
export async function completeEvent({ eventKey }: { eventKey: string }) {
  await redis.set(eventKey, COMPLETED, 'PX', 86_400_000);
}
export async function releaseEvent({ eventKey }: { eventKey: string }) {
  await redis.del(eventKey);
}
`,
};

/**
 * A claim that starts its work in the background and deletes the key only in the work's rejection
 * handler, so a retry can run; the key is kept when the work goes on, even with "lock" in its name.
 */
export const backgroundWorkClaim = {
  name: 'a claim kept while its background work runs, deleted only in the rejection handler of that work: a marker, not a lock',
  code: `${io}declare function runImport(id: string): Promise<void>;
export async function startImportWithClaim(jobId: string): Promise<boolean> {
  const claimKey = \`import:claim-lock:\${jobId}\`;
  const claimed = await redis.set(claimKey, '1', 'EX', 120, 'NX');
  if (!claimed) return false;
  runImport(jobId).catch(async (error) => {
    await redis.del(claimKey).catch(() => {});
    console.error('import failed', error);
  });
  return true;
}
`,
};

/**
 * A processing claim per event: taken with NX, given a longer TTL once the event is processed, deleted
 * only by a method named for a failure (so a retry can run). Kept when the work is done: a marker.
 */
export const failureReleasedClaim = {
  name: 'a processing claim kept when done (a longer TTL) and deleted only by a method named for a failure: a marker, not a lock',
  code: `${io}export class EventDedupe {
  async tryAcquireProcessingLock(eventId: string): Promise<boolean> {
    return (await redis.set(\`event:processing:\${eventId}\`, '1', 'EX', 300, 'NX')) === 'OK';
  }
  async confirmProcessed(eventId: string): Promise<void> {
    await redis.expire(\`event:processing:\${eventId}\`, 86_400);
  }
  async releaseOnFailure(eventId: string): Promise<void> {
    await redis.del(\`event:processing:\${eventId}\`);
  }
}
`,
};

/** Two dedupe records of one event: a claim keyed by its id, a timestamp keyed by its hash. */
export const eventDedupeRecords = {
  name: 'two dedupe records of one event, keyed by its id and by its hash (event.id, event.sha1): two keys, though their globs are one',
  code: `${io}export async function isDuplicate(prefix: string, event: { id: string; sha1: string }): Promise<boolean> {
  const byId = \`dedupe:\${prefix}:\${event.id}\`;
  const firstById = await redis.setnx(byId, '1');
  await redis.expire(byId, 3600);
  if (!firstById) return true;
  const bySha = \`dedupe:\${prefix}:\${event.sha1}\`;
  if (await redis.get(bySha)) return true;
  await redis.set(bySha, new Date().toISOString());
  await redis.expire(bySha, 3600);
  return false;
}
`,
};

/**
 * A first-seen value kept by a transaction (GET, then SET NX of the time) and read back by GETDEL: no
 * lock, for the tables of the rules that would otherwise read its NX SET and GETDEL as one.
 */
export const FIRST_SEEN_VALUE = `const Redis = require('ioredis');
const rclient = new Redis();
const DAY = 24 * 60 * 60;
const firstSeenKey = (roomId) => \`room:\${roomId}:occupiedSince\`;
function recordOccupancy(seconds) {}
function onLeave(roomId, remaining, callback) {
  if (remaining === 0) {
    rclient.getdel(firstSeenKey(roomId), (err, since) => {
      if (!err && since) recordOccupancy(Date.now() / 1000 - Number(since));
      callback();
    });
  } else {
    const now = Math.floor(Date.now() / 1000).toString();
    const multi = rclient.multi();
    multi.get(firstSeenKey(roomId));
    multi.set(firstSeenKey(roomId), now, 'NX', 'EX', 30 * DAY);
    multi.exec((err, replies) => {
      if (!err && replies[0]) recordOccupancy(Date.now() / 1000 - Number(replies[0][1]));
      callback();
    });
  }
}
async function onEnter(roomId) {
  const [[, before]] = await rclient.multi().get(firstSeenKey(roomId)).set(firstSeenKey(roomId), Date.now(), 'NX', 'EX', DAY).exec();
  return before;
}
module.exports = { onLeave, onEnter };
`;

/** A client that may be an in-memory stand-in: SETNX (answering 1) on the stand-in, SET NX PX (answering 'OK') on Redis. */
export const MEMORY_STAND_IN = `import Redis from 'ioredis';
declare const redis: Redis & { _isMemoryStore?: boolean };
export async function takeLock(key: string, token: string, ttlMs: number): Promise<boolean> {
  let result: number | string | null;
  if (redis._isMemoryStore) {
    result = await redis.setnx(key, token);
  } else {
    result = await redis.set(key, token, 'PX', ttlMs, 'NX');
  }
  return result === 1 || result === 'OK';
}
`;

/** A login lockout: a `lock` key SET once an INCR of failures reaches a limit, read to refuse, deleted on success. */
export const LOGIN_LOCKOUT = `import Redis from 'ioredis';
declare const redis: Redis;
declare function passwordMatches(email: string, password: string): Promise<boolean>;
export async function login(email: string, password: string): Promise<boolean> {
  const lockKey = \`auth:email:lock:\${email}\`;
  const attemptsKey = \`auth:email:attempts:\${email}\`;
  const isLocked = await redis.get(lockKey);
  if (isLocked) throw new Error('Too many failed attempts. Try again later.');
  if (!(await passwordMatches(email, password))) {
    const attempts = await redis.incr(attemptsKey);
    if (attempts === 1) await redis.expire(attemptsKey, 900);
    if (attempts >= 5) await redis.set(lockKey, '1', 'EX', 900);
    return false;
  }
  await redis.del(attemptsKey);
  await redis.del(lockKey);
  return true;
}
`;

/** A circuit breaker's half-open probe slot: taken with NX and a constant, cleared by whoever sees the circuit close or trip. */
export const CIRCUIT_PROBE = `import Redis from 'ioredis';
declare const redis: Redis;
declare function hostOf(url: string): string;
export async function admit(url: string): Promise<'probe' | 'wait' | 'closed'> {
  const host = hostOf(url);
  const failures = Number(await redis.get(\`circuit_fails:\${host}\`));
  if (failures < 4) return 'closed';
  return (await redis.set(\`circuit_probe:\${host}\`, '1', 'EX', 10, 'NX')) ? 'probe' : 'wait';
}
export async function recordSuccess(url: string): Promise<void> {
  const host = hostOf(url);
  await redis.del(\`circuit_fails:\${host}\`);
  await redis.del(\`circuit_probe:\${host}\`);
}
`;

/** A cooldown window taken with NX into a `let`, kept when the work goes on and cleared only when it gives up. */
export const COOLDOWN_WINDOW = `import Redis from 'ioredis';
declare const redis: Redis;
declare function restoreOn(id: string): Promise<boolean>;
export async function restore(id: string, recovery: boolean): Promise<boolean | null> {
  let windowKey: string | null = null;
  if (recovery) {
    windowKey = \`sandbox-\${id}-restored-cooldown\`;
    if (!(await redis.set(windowKey, '1', 'EX', 21600, 'NX'))) return null;
  }
  const restored = await restoreOn(id);
  if (!restored && windowKey) await redis.del(windowKey);
  return restored;
}
`;

/** A send cooldown reserved with NX by one function and cleared by another when delivery failed. */
export const SEND_COOLDOWN = `import Redis from 'ioredis';
declare const redis: Redis;
declare function normalize(email: string): string;
const SEND_COOLDOWN_PREFIX = 'email:send-cooldown:';
export async function reserveSend(email: string): Promise<boolean> {
  const normalized = normalize(email);
  const key = \`\${SEND_COOLDOWN_PREFIX}\${normalized}\`;
  return (await redis.set(key, '1', 'EX', 60, 'NX')) === 'OK';
}
export async function releaseSend(email: string): Promise<void> {
  const normalized = normalize(email);
  const key = \`\${SEND_COOLDOWN_PREFIX}\${normalized}\`;
  await redis.del(key);
}
`;

/**
 * An acquire that, when busy, waits for a release message and calls itself again from `.then`: with
 * `bounded`, it counts its attempts and gives up after five.
 */
export const waitingLock = (bounded: boolean) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class WaitingLock {
  private readonly redis = new Redis();
  private readonly waiters = new Map<string, Array<() => void>>();
  onReleased(key: string): void {
    for (const wake of this.waiters.get(key) ?? []) wake();
    this.waiters.delete(key);
  }
  async take(${bounded ? 'key: string, ttl: number, attempt = 0' : 'key: string, ttl: number'}): Promise<string> {
    const token = randomUUID();
    if ((await this.redis.set(key, token, 'PX', ttl, 'NX')) === 'OK') return token;${bounded ? "\n    if (attempt >= 5) throw new Error('busy');" : ''}
    return new Promise<void>((wake) => {
      this.waiters.set(key, [...(this.waiters.get(key) ?? []), wake]);
    }).then(() => ${bounded ? 'this.take(key, ttl, attempt + 1)' : 'this.take(key, ttl)'});
  }
}
`;

/** Leases taken with NX one by one, and a sweep that overwrites the holders of the keys KEYS lists under `pattern` (code) once judged dead. */
export const leaseSweep = (pattern: string) => `${io}const ME = \`worker:\${process.pid}:\${Date.now()}\`;
const LEASES = 'lease:';
declare function alive(holder: string): Promise<boolean>;
export async function takeLease(jobId: string) {
  return (await redis.set(\`\${LEASES}\${jobId}\`, ME, 'PX', 30000, 'NX')) === 'OK';
}
export async function reclaimZombieLeases() {
  for (const key of await redis.keys(${pattern})) {
    const holder = await redis.get(key);
    if (holder && !(await alive(holder))) await redis.set(key, ME, 'PX', 30000);
  }
}
`;

/**
 * An acquire whose SET NX failed reads the holder and, when `judged` (a condition on `holder`) holds,
 * overwrites it with a plain SET: a takeover of a holder the client judges gone.
 */
export const acquireOrOverwrite = (judged: string) => `${io}const INSTANCE = \`api:\${process.env.PORT}:\${process.pid}\`;
function restartedOnThisPort(holder: string): boolean {
  const [, port, pid] = holder.split(':');
  return port === process.env.PORT && pid !== String(process.pid);
}
export async function claimDevice(deviceId: string): Promise<boolean> {
  const key = \`device-lease:\${deviceId}\`;
  if ((await redis.set(key, INSTANCE, 'EX', 30, 'NX')) === 'OK') return true;
  const holder = await redis.get(key);
  if (${judged}) {
    await redis.set(key, INSTANCE, 'EX', 30);
    return true;
  }
  return false;
}
`;

/**
 * A mutex taken with `SET key '1' EX 30 GET` (the reply is the value it replaced: null when the key was
 * free), skipped when the reply says another holds it, and deleted in a finally: a test-and-set in one
 * command, released with a bare DEL of a constant value.
 */
export const getSetMutex = `${io}export class ThumbnailService {
  private async takeMutex(assetId: string): Promise<string | null> {
    return await redis.set(\`thumbnail:mutex:\${assetId}\`, '1', 'EX', 30, 'GET');
  }
  private freeMutex(assetId: string): Promise<number> {
    return redis.del(\`thumbnail:mutex:\${assetId}\`);
  }
  async regenerate(assetId: string): Promise<void> {
    if (await this.takeMutex(assetId) === '1') return;
    try {
      await work();
    } finally {
      await this.freeMutex(assetId);
    }
  }
}
`;

/**
 * A cache fill under a lock taken with the constant '1' and released by a plain DEL; `busy` is what runs
 * when the lock is busy, `after` what follows the if/else (the busy path's way on).
 */
export const cacheFill = (busy: string, after: string) => `import Redis from 'ioredis';
const redis = new Redis();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export async function getOrFill(key: string, fill: () => Promise<string>): Promise<string> {
  const hit = await redis.get(key);
  if (hit !== null) return hit;
  const lockKey = \`lock:fill:\${key}\`;
  const got = await redis.set(lockKey, '1', 'EX', 5, 'NX');
  if (got !== 'OK') {
${busy}
  } else {
    try {
      const value = await fill();
      await redis.set(key, value, 'EX', 60);
      return value;
    } finally {
      await redis.del(lockKey);
    }
  }
${after}
}
`;

/** The busy path of a stampede damper: wait, and leave with the value the lock's holder filled. */
export const WAIT_FOR_FILL = `    await sleep(50);
    const again = await redis.get(key);
    if (again !== null) return again;`;
/** A damper's fallback: the fill, unlocked. */
export const FILL_UNLOCKED = `  const value = await fill();
  await redis.set(key, value, 'EX', 60);
  return value;`;
/** No fallback: the busy path gives up. */
export const GIVE_UP = "  throw new Error(`${key} is being filled`);";

/** A node_redis v3 leader in callback style (a .js file), its callbacks bound with `.bind(this)`; `release` is its release method's body. */
export const boundCallbackLeader = (release: string) => `const crypto = require('crypto');
class Leader {
  constructor(client, id, service) {
    this.client = client;
    this.id = id;
    this.lockKey = crypto.createHash('sha1').update(service).digest('hex');
  }
  elect() {
    this.client.set(this.lockKey, this.id, 'PX', 10000, 'NX', function (err, res) {
      if (!err && res !== null) this.elected = true;
    }.bind(this));
  }
  release() {
${release}
  }
}
module.exports = Leader;
`;

/**
 * A sweep (a .js file) that locks each expired entry through a redlock handed in as a parameter, each
 * callback of the Promise.all catching its own failure; `tail` follows the read of the entry.
 */
export const expirySweep = (tail: string) => `const hash = 'expiries';
async function expire(entry, id) {}
async function sweep(redis, redlock, worker) {
  const ids = await redis.hkeys(hash);
  await Promise.all(
    ids.map(async (id) => {
      try {
        const lock = await redlock.lock(\`expiry:\${id}\`, 10000);
        const raw = await redis.hget(hash, id);
${tail}
      } catch (err) {
        console.error(worker, err);
      }
    })
  );
}
module.exports = { sweep };
`;

/**
 * A lock whose value starts with its own expiry: the next acquirer reads it, leaves while it is still
 * fresh, deletes it once stale, then takes the key with SETNX and gives it a TTL with a separate EXPIRE.
 */
export const expiryStampLock = `${io}import { randomUUID } from 'node:crypto';
export async function lockReport(id: string, seconds: number): Promise<string | null> {
  const key = \`lock:report:\${id}\`;
  const now = Date.now();
  const held = await redis.get(key);
  if (held) {
    if (now < Number.parseInt(held, 10)) return null;
    await redis.del(key);
  }
  const token = \`\${now + seconds * 1000}.\${randomUUID()}\`;
  if ((await redis.setnx(key, token)) === 0) return null;
  await redis.expire(key, seconds);
  return token;
}
`;

/** A claim kept for a deduplication window, with the rollback its callers (in other files) run when the attempt fails. */
export const dedupeWindowClaim = {
  name: 'a claim whose TTL is named as a deduplication window, beside the helper that rolls it back: a marker, not a lock',
  code: `${upstash}const CLEANUP_DEDUPE_TTL_SECONDS = 15 * 60;
type Cleanup = { accountId: string; cause: string };
function cleanupKey({ accountId, cause }: Cleanup): string {
  return \`account-cleanup:\${accountId}:\${cause}\`;
}
export async function claimCleanup({ accountId, cause }: Cleanup): Promise<boolean> {
  return (await kv.set(cleanupKey({ accountId, cause }), '1', { nx: true, ex: CLEANUP_DEDUPE_TTL_SECONDS })) === 'OK';
}
export async function releaseCleanupClaim({ accountId, cause }: Cleanup): Promise<void> {
  await kv.del(cleanupKey({ accountId, cause }));
}
`,
};

/** A circuit breaker class whose half-open probe slot is named `probe_lock`: the breaker's state, cleared when it closes or trips. */
export const breakerProbeSlot = {
  name: 'a circuit breaker class taking its half-open probe slot (`cb:<host>:probe_lock`) with SETNX and clearing it when the circuit closes',
  code: `${io}export class CircuitBreaker {
  static async check(host: string): Promise<void> {
    if (!(await redis.get(\`cb:\${host}:half_open\`))) return;
    if (!(await redis.setnx(\`cb:\${host}:probe_lock\`, '1'))) throw new Error('open');
    await redis.expire(\`cb:\${host}:probe_lock\`, 15);
  }
  static async recordSuccess(host: string): Promise<void> {
    await redis.del(\`cb:\${host}:half_open\`);
    await redis.del(\`cb:\${host}:probe_lock\`);
  }
}
`,
};

/**
 * A dedupe claim stamped with its expiry: SETNX, and when that fails and the stamp is past, a plain SET
 * over the holder followed by its EXPIRE (a takeover, and that EXPIRE is the SET's TTL, no renewal).
 */
export const stampedClaimTakeover = `${io}export async function claimOnce(name: string, seconds: number): Promise<boolean> {
  const key = \`dedupe:\${name}\`;
  const now = Math.round(Date.now() / 1000);
  const stamp = now + seconds + 1;
  if ((await redis.setnx(key, stamp)) === 1) {
    await redis.expire(key, seconds);
    return true;
  }
  const held = await redis.get(key);
  if (now <= (held ? parseInt(held, 10) : 0)) {
    return false;
  }
  await redis.set(key, stamp);
  await redis.expire(key, seconds);
  return true;
}
`;
