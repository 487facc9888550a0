import type { RuleCases } from '../harness';
import { SEND_COOLDOWN, CIRCUIT_PROBE, LOGIN_LOCKOUT, FIRST_SEEN_VALUE, RELEASE, RELEASE_DECL, declared, glide, io, nr, singleFlightMarker, sentOnceMarker, failureReleasedClaim, backgroundWorkClaim, twoStateRecord, outcomeRolledBackClaim, sharedClaim, singleFlightWindow, sortedSetSemaphore, upstash, getSetMutex, cacheFill, WAIT_FOR_FILL, FILL_UNLOCKED, GIVE_UP, boundCallbackLeader, pendingRecord, configuredDamper, nxSelfTest, expiryStampLock, dedupeWindowClaim, breakerProbeSlot } from './preludes';

/** A stampede damper whose acquire sits in a try and whose answer is tested after it; `fill` fills and releases. */
const damper = (fill: string) => `${io}declare function sleep(ms: number): Promise<void>;
declare function fetchFresh(id: string): Promise<string>;
export async function cached(id: string): Promise<string> {
  const lockKey = \`fill:\${id}\`;
  let acquired = false;
  try {
    const result = await redis.set(lockKey, crypto.randomUUID(), 'EX', 30, 'NX');
    acquired = result === 'OK';
  } catch {
    acquired = true;
  }
  if (!acquired) {
    const started = Date.now();
    while (Date.now() - started < 2000) {
      await sleep(100);
      const hit = await redis.get(\`value:\${id}\`);
      if (hit !== null) return hit;
    }
    console.warn('fill wait timed out, fetching directly');
  }
${fill}`;
const FILL_AND_RELEASE = `  try {
    const fresh = await fetchFresh(id);
    await redis.set(\`value:\${id}\`, fresh, 'EX', 300);
    return fresh;
  } finally {
    if (acquired) await redis.del(lockKey);
  }
}
`;
const FILL_IN_AN_ASYNC_FUNCTION = `  const pending = (async () => {
    try {
      const fresh = await fetchFresh(id);
      await redis.set(\`value:\${id}\`, fresh, 'EX', 300);
      return fresh;
    } finally {
      if (acquired) redis.del(lockKey).catch(() => {});
    }
  })();
  return pending;
}
`;

/** A handler that takes lock:payout:<id> and hands `boundKey` to a function that frees it with `release`. */
const payout = (release: string, boundKey: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
declare function send(id: string): Promise<void>;
export async function onPayout(id: string) {
  const token = randomUUID();
  const payoutKey = \`${boundKey}:\${id}\`;
  if (!(await redis.set(\`lock:payout:\${id}\`, token, 'EX', 60, 'NX'))) return 'busy';
  await runPayout(id, payoutKey, token);
}
async function runPayout(id: string, key: string, token: string) {
  try {
    await send(id);
  } finally {
    ${release};
  }
}
`;

export const ownerCheckedReleaseCases: RuleCases = {
  valid: [
    {
      name: 'an acknowledgement flag about a lock (`reviewLockAckKey`), cleared in a function named for the lock: data about the lock, not the lock',
      code: `${io}const reviewLockAckKey = (docId: string, session: string) => \`review-lock-ack:\${docId}:\${session}\`;
export async function acknowledgeReviewLock(docId: string, session: string) {
  await redis.set(reviewLockAckKey(docId, session), '1', 'PX', 15000);
}
export async function clearReviewLockAcknowledgement(docId: string, session: string) {
  await redis.del(reviewLockAckKey(docId, session));
}
`,
    },
    breakerProbeSlot,
    dedupeWindowClaim,
    {
      name: "a DEL of the data inside a withLock routine, in a method named for locked work (`clearCartWithLock`): the routine's keys are not the lock's",
      code: `${io}declare function withLock<T>(client: unknown, key: string, options: { ttlMs: number }, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
export class Carts {
  async clearCartWithLock(userId: string): Promise<void> {
    const cartKey = \`cart:\${userId}\`;
    await withLock(redis, \`cart-lock:\${userId}\`, { ttlMs: 5000 }, async (signal) => {
      signal.throwIfAborted();
      await redis.del(cartKey);
      await redis.hset(cartKey, 'placeholder', 'empty');
    });
  }
}
`,
    },
    { name: 'the DEL that breaks a lock judged stale by its stamped expiry: atomic-takeover reports that race, not this rule', code: expiryStampLock },
    nxSelfTest,
    configuredDamper,
    pendingRecord,
    {
      name: "an admin's unlock() of a class named for an account lockout deletes the lockout and its attempt counter: no lock",
      code: `${io}export class AccountLockoutService {
  private key(user: string, part: 'attempts' | 'until'): string {
    return \`guard:\${part}:\${user}\`;
  }
  async recordFailure(user: string): Promise<void> {
    const attempts = await redis.incr(this.key(user, 'attempts'));
    if (attempts >= 5) await redis.set(this.key(user, 'until'), String(Date.now() + 900_000), 'PX', 900_000);
  }
  async unlock(user: string): Promise<void> {
    await Promise.all([redis.del(this.key(user, 'until')), redis.del(this.key(user, 'attempts'))]);
  }
}
`,
    },
    {
      name: 'a stampede damper whose acquire is in a try, its answer tested after the try: when busy it polls the value, then fills unlocked',
      code: damper(FILL_AND_RELEASE),
    },
    {
      name: 'that damper releasing in the finally of an async function it starts and hands back',
      code: damper(FILL_IN_AN_ASYNC_FUNCTION),
    },
    {
      name: 'a flag key named after the lock key with words of its own (a hand-off request), deleted on unlock: not the lock',
      code: `${io}const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class UploadLocks {
  async lock(id: string, token: string): Promise<boolean> {
    const lockKey = \`upload-lock:\${id}\`;
    if (!(await redis.set(lockKey, token, 'PX', 30_000, 'NX'))) {
      await redis.set(\`handoff:\${lockKey}\`, '1', 'PX', 30_000);
      return false;
    }
    return true;
  }
  async unlock(id: string, token: string): Promise<void> {
    const lockKey = \`upload-lock:\${id}\`;
    await redis.eval(UNLOCK, 1, lockKey, token);
    await redis.del(\`handoff:\${lockKey}\`);
  }
}
`,
    },
    {
      name: 'a failed-attempt counter under a LOCKOUT_KEY constant, cleared by clear2FALockout: a lockout, not a lock',
      code: `${io}const LOCKOUT_KEY = 'auth:2fa:failed';
export async function registerFailedAttempt(email: string): Promise<boolean> {
  const failed = await redis.incr(\`\${LOCKOUT_KEY}:\${email}\`);
  if (failed === 1) await redis.expire(\`\${LOCKOUT_KEY}:\${email}\`, 900);
  return failed >= 5;
}
export async function clear2FALockout(email: string): Promise<void> {
  await redis.del(\`\${LOCKOUT_KEY}:\${email}\`);
}
`,
    },
    { name: 'a stampede damper: when busy it waits, leaves with the value filled meanwhile, else fills unlocked', code: cacheFill(WAIT_FOR_FILL, FILL_UNLOCKED) },
    {
      name: "an account lockout flag deleted by unlockAccount: the key a key builder makes from a 'lockout' part is a state, not a lock",
      code: `${io}const keyFor = (...parts: string[]) => parts.join(':');
export class LoginGuard {
  async isBlocked(userId: string): Promise<boolean> {
    return (await redis.get(keyFor('auth', 'lockout', userId))) !== null;
  }
  async lockAccount(userId: string, seconds = 900): Promise<void> {
    await redis.set(keyFor('auth', 'lockout', userId), 'locked', 'EX', seconds);
  }
  async unlockAccount(userId: string): Promise<void> {
    const key = keyFor('auth', 'lockout', userId);
    await redis.del(key);
  }
}
`,
    },
    { name: 'node-redis: keys handed over as a list the call does not spell out', code: `${nr}export async function releaseLocks(keys: string[], token: string) {
  await client.eval("for i, k in ipairs(KEYS) do if redis.call('get', KEYS[i]) == ARGV[1] then redis.call('del', KEYS[i]) end end return 1", { keys, arguments: [token] });
}
` },
    { name: "a send cooldown cleared by another function when delivery failed", code: SEND_COOLDOWN },
    { name: "a circuit breaker's half-open probe slot, cleared by whoever sees the circuit close", code: CIRCUIT_PROBE },
    { name: "a login lockout's key, SET only once an INCR of failures reaches its limit, deleted on success", code: LOGIN_LOCKOUT },
    {
      name: 'a first-seen value kept by a transaction (GET, then SET NX of the time) and read back by GETDEL: no lock',
      fileName: 'presence.js',
      code: FIRST_SEEN_VALUE,
    },
    singleFlightMarker,
    sentOnceMarker,
    failureReleasedClaim,
    backgroundWorkClaim,
    twoStateRecord,
    outcomeRolledBackClaim,
    sharedClaim,
    sortedSetSemaphore,
    { name: 'Lua compare-and-delete', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, key, token); }
}
` },
    { name: 'WATCH, GET, compare, then DEL queued in MULTI: EXEC fails if the key changed, an atomic owner check', code: `${io}export async function unlock(id: string, token: string) {
  const key = \`lock:order:\${id}\`;
  await redis.watch(key);
  const holder = await redis.get(key);
  if (holder === token) {
    await redis.multi().del(key).exec();
  } else {
    await redis.unwatch();
  }
}
` },
    { name: 'node-redis: WATCH, GET, compare, then DEL on a MULTI kept in a variable', code: `${nr}export async function unlock(id: string, token: string) {
  const key = \`lock:order:\${id}\`;
  await client.watch(key);
  if ((await client.get(key)) !== token) return;
  const tx = client.multi();
  tx.del(key);
  await tx.exec();
}
` },
    { name: 'a list of held funds cleared in an unlock function is data named "locked", not a lock', code: `${io}export async function unlockHeldFunds(userId: string, ref: string) {
  const items = await redis.lrange(\`locked_funds_for_\${userId}\`, 0, -1);
  await redis.del(\`locked_funds_for_\${userId}\`);
  for (const it of items) if (it !== ref) await redis.rpush(\`locked_funds_for_\${userId}\`, it);
}
export async function unlockUser(id: string) {
  await redis.del(\`sec:lockout:\${id}\`);
}
export async function clearLockout(id: string) {
  await redis.del(\`otp_locked:\${id}\`, \`otp_fail:\${id}\`);
}
` },
    { name: 'a sweep deletes the keys a KEYS or SCAN listing returned, not one holder\'s lock', code: `${io}export async function clearAllLocks() {
  const lockKeys = await redis.keys('seat_lock:*');
  if (lockKeys.length > 0) await redis.del(...lockKeys);
  const [, found] = await redis.scan('0', 'MATCH', 'lock:*', 'COUNT', 100);
  await redis.del(...found.filter((k) => k.endsWith(':stale')));
  for await (const batch of redis.scanStream({ match: 'mutex:*' })) await redis.unlink(batch);
  (await redis.keys('job-lock:*')).forEach((k) => redis.del(k));
}
` },
    { name: 'a GET-compare-DEL on the path where the client cannot run the compare-and-delete script (no eval)', code: `${io}export async function unlock(key: string, token: string): Promise<void> {
  if (typeof redis.eval === 'function') {
    await redis.eval(${RELEASE}, 1, key, token);
    return;
  }
  const current = await redis.get(key);
  if (current === token) await redis.del(key);
}
` },
    { name: 'a sweep of the batches a scanStream emits, queued on a pipeline: not one holder\'s lock', code: `${io}export function clearAllLocks(pattern: string): Promise<void> {
  const stream = redis.scanStream({ match: pattern });
  const queue = redis.multi({ pipeline: true });
  return new Promise((resolve, reject) => {
    stream.on('data', (found: string[]) => {
      for (let i = 0; i < found.length; i++) queue.del(found[i]);
    });
    stream.on('end', async () => {
      await queue.exec();
      resolve();
    });
    stream.on('error', reject);
  });
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
    { name: 'a rollback in the failure branch deletes only the keys this request took (its own list)', code: `${io}export async function holdSeats(show: string, seats: string[], guest: string): Promise<boolean> {
  const taken: string[] = [];
  for (const seat of seats) {
    const held = await redis.set(\`seat_lock:\${show}:\${seat}\`, guest, 'EX', 300, 'NX');
    if (!held) {
      for (const t of taken) await redis.del(\`seat_lock:\${show}:\${t}\`);
      return false;
    }
    taken.push(seat);
  }
  return true;
}
` },
    { name: 'GET, compare, then DEL of a session key is a logout, not a lock release', code: `${io}export async function logout(user: string, token: string): Promise<void> {
  const stored = await redis.get(\`session:\${user}\`);
  if (stored === token) await redis.del(\`session:\${user}\`);
}
` },
    { name: 'cache invalidation DEL', code: `${io}export async function invalidate(userId: string) {
  await redis.del(\`cache:user:\${userId}\`, \`session:\${userId}\`);
}
` },
    // node-cache is not installed here: its import cannot type-check.
    { name: 'an in-memory fallback store the module made itself (node-cache, a Map) is no Redis', typecheck: false, code: `import NodeCache from 'node-cache';
const local = new NodeCache();
export function createLocks(redis?: { del(key: string): Promise<number> }) {
  let cache: NodeCache | undefined;
  if (!redis) cache = new NodeCache();
  return {
    async releaseLock(lockKey: string) {
      if (cache) cache.del(lockKey);
      local.del(lockKey);
    },
  };
}
` },
    { name: 'defineCommand release script', code: `${io}redis.defineCommand('releaseLock', { numberOfKeys: 1, lua: ${RELEASE} });
export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await (redis as any).releaseLock(key, token); }
}
` },
    { name: 'defineCommand release script that names its key and token in locals', code: `${io}redis.defineCommand('dropLock', { numberOfKeys: 1, lua: \`local key = KEYS[1]
local holder = ARGV[1]
if redis.call('GET', key) == holder then return redis.call('DEL', key) end
return 0\` });
export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await (redis as any).dropLock(key, token); }
}
` },
    { name: 'Upstash: eval(script, [key], [token]) compare-and-delete', code: `${upstash}export async function run(key: string, token: string) {
  if (!(await kv.set(key, token, { nx: true, px: 1000 }))) return;
  try { await work(); } finally { await kv.eval(${RELEASE}, [key], [token]); }
}
` },
    { name: 'Redis 8.4 DELEX IFEQ', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.call('DELEX', key, 'IFEQ', token); }
}
` },
    { name: 'Valkey 9 DELIFEQ through call()', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.call('DELIFEQ', key, token); }
}
` },
    { name: 'Valkey 9 DELIFEQ through node-redis sendCommand()', code: `${nr}export async function run(key: string, token: string) {
  if (!(await client.set(key, token, { NX: true, PX: 1000 }))) return;
  try { await work(); } finally { await client.sendCommand(['DELIFEQ', key, token]); }
}
` },
    { name: 'Valkey 9 DELIFEQ in Lua', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.eval("return redis.call('DELIFEQ', KEYS[1], ARGV[1])", 1, key, token); }
}
` },
    { name: 'GLIDE invokeScript with a compare-and-delete Script', code: `${glide}const RELEASE_SCRIPT = new Script(${RELEASE});
export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.invokeScript(RELEASE_SCRIPT, { keys: [key], args: [token] }); }
}
` },
    { name: 'GLIDE customCommand DELIFEQ on the cluster client', code: `${glide}export async function run(key: string, token: string) {
  if (!(await cluster.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Seconds, count: 10 } }))) return;
  try { await work(); } finally { await cluster.customCommand(['DELIFEQ', key, token]); }
}
` },
    { name: 'lock-named key deleted in a test teardown (not release code)', code: `${io}export async function resetFixtures() {
  await redis.del('lock:fixture');
}
` },
    { name: 'a reset that wipes the lock with its data, beside the owner-checked release of the same lock', code: `${io}export class Idempotency {
  async acquire(key: string): Promise<string | null> {
    const token = crypto.randomUUID();
    return (await redis.set(\`lock:\${key}\`, token, 'PX', 30000, 'NX')) === 'OK' ? token : null;
  }
  async release(key: string, token: string) {
    await redis.eval(${RELEASE}, 1, \`lock:\${key}\`, token);
  }
  /** For tests. */
  async cleanup(key: string) {
    await redis.del(\`lock:\${key}\`, \`result:\${key}\`);
  }
}
` },
    { name: 'evalsha of a loaded release script', code: `${io}export async function run(key: string, token: string) {
  const sha = (await redis.script('LOAD', ${RELEASE})) as string;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.evalsha(sha, 1, key, token); }
}
` },
    { name: 'WATCH and GET queued in one pipeline, the reply compared in the exec\'s then, DEL queued in MULTI there', code: `${io}export async function unlockSlot(slot: string, owner: string): Promise<void> {
  const key = \`lock:slot:\${slot}\`;
  const tx = redis.pipeline();
  await tx.watch(key).get(key).exec().then(async (replies) => {
    if (replies && replies[1][1] === owner) await redis.multi().del(key).exec();
  });
}
` },
    { name: 'a function handed the key its caller acquired releases it with a compare-and-delete of the token it was handed', code: payout(`await redis.eval(${RELEASE}, 1, key, token)`, 'lock:payout') },
    { name: 'a function that deletes a key parameter bound to a cache key, not to the lock its caller took', code: payout('await redis.del(key)', 'cache:payout') },
  ],
  invalid: [
    {
      name: 'a key cast for a loosely typed client (`lockKey(id) as never`) is named without the cast',
      message: ['DEL deletes lockKey(id) (job:lock:*) whoever holds it'],
      code: `${io}const lockKey = (id: string) => \`job:lock:\${id}\`;
export async function runJob(id: string): Promise<void> {
  if (!(await redis.set(lockKey(id) as never, 'x', 'PX', 30000, 'NX'))) return;
  try {
    await work();
  } finally {
    await redis.del(lockKey(id) as never);
  }
}
`,
    },
    {
      name: 'a claim whose background work deletes it when it succeeds (a `.then` handler): a release, not a rollback',
      message: ['whoever holds it'],
      code: `${io}declare function runImport(id: string): Promise<void>;
export async function startImportWithClaim(jobId: string): Promise<boolean> {
  const claimKey = \`import:claim-lock:\${jobId}\`;
  const claimed = await redis.set(claimKey, '1', 'EX', 120, 'NX');
  if (!claimed) return false;
  runImport(jobId).then(async () => {
    await redis.del(claimKey);
  });
  return true;
}
`,
    },
    {
      name: 'a compare-and-delete handed the value a GET just read from the key: it compares the key with itself',
      message: ['value just read', 'whoever holds it'],
      code: `${io}export async function releaseLock(key: string): Promise<boolean> {
  const held = await redis.get(key);
  if (!held) return false;
  return (await redis.eval(${RELEASE}, 1, key, held)) === 1;
}
export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  try {
    await work();
  } finally {
    await releaseLock(key);
  }
}
`,
    },
    {
      name: 'callback style with bound callbacks: the leader deletes its key whoever holds it',
      fileName: 'leader.js',
      message: ['whoever holds it'],
      output: null,
      code: boundCallbackLeader("    this.client.del(this.lockKey, function () { this.elected = false; }.bind(this));"),
    },
    { name: 'a cache fill lock whose busy path waits, then gives up: it excludes, so its holders must be told apart', message: ['whoever holds it'], code: cacheFill(WAIT_FOR_FILL, GIVE_UP) },
    { name: 'a mutex taken with SET ... GET and deleted with a bare DEL', code: getSetMutex },
    { name: "node-redis: the release script reads KEYS[1] but eval is given only arguments", message: ['never deletes', 'passes no keys'], typecheck: false, code: `${nr}export async function releaseLock(key: string, token: string) {
  await client.eval(${RELEASE}, { arguments: [key, token] });
}
` },
    { name: 'ioredis: a key count of 0 before the key the script reads as KEYS[1]', message: ['never deletes', 'KEYS[1]'], code: `${io}export async function releaseLock(key: string, token: string) {
  await redis.eval(${RELEASE}, 0, key, token);
}
` },
    { name: "ioredis given node-redis' options object: sent as the key count, rejected", message: ['never deletes', 'the client is ioredis'], typecheck: false, code: `${io}export async function releaseLock(key: string, token: string) {
  await (redis as any).eval(${RELEASE}, { keys: [key], arguments: [token] });
}
` },
    {
      name: 'a function handed the key its caller acquired deletes it with a bare DEL in its finally',
      message: ['whoever holds it'],
      code: payout('await redis.del(key)', 'lock:payout'),
    },
    {
      name: 'GET of a JSON record, its owner field compared, then DEL: two round trips, and no fix that would compare the record with a name',
      message: ['GET, compare, then DEL', 'two round trips'],
      output: null,
      noFix: 'holds a record',
      code: `${io}export async function releasePayout(id: string, operator: string): Promise<boolean> {
  const key = \`lock:payout:\${id}\`;
  const raw = await redis.get(key);
  if (!raw) return true;
  const held = JSON.parse(raw) as { operator: string };
  if (held.operator === operator) {
    await redis.del(key);
    return true;
  }
  return false;
}
`,
    },
    {
      name: 'the same early-return shape on a key named like a lock: the DEL after the work is its release, and compares nothing',
      message: ['whoever holds it'],
      code: singleFlightWindow('lock:avatar'),
    },
    {
      name: 'a lock taken by GET then a plain SET and deleted in the finally of the same function: that DEL is its release',
      message: ['whoever holds it'],
      code: `${io}export async function holdTable(table: string, run: () => Promise<void>) {
  const lockKey = \`lock:table:\${table}\`;
  if (await redis.get(lockKey)) throw new Error('table busy');
  await redis.set(lockKey, 'held', 'EX', 15);
  try {
    await run();
  } finally {
    await redis.del(lockKey);
  }
}
`,
    },
    {
      name: 'GET in a pipeline, its reply compared in the exec\'s then, DEL in MULTI, but no WATCH: the holder can change in between',
      code: `${io}export async function unlockSlot(slot: string, owner: string): Promise<void> {
  const key = \`lock:slot:\${slot}\`;
  const tx = redis.pipeline();
  await tx.get(key).exec().then(async (replies) => {
    if (replies && replies[0][1] === owner) await redis.multi().del(key).exec();
  });
}
`,
    },
    {
      name: 'GET, compare, then DEL in MULTI without a WATCH of the key: still two round trips',
      message: ['two round trips'],
      code: `${io}export async function unlock(id: string, token: string) {
  const key = \`lock:order:\${id}\`;
  await redis.watch(\`lock:other:\${id}\`);
  if ((await redis.get(key)) === token) {
    await redis.multi().del(key).exec();
  }
}
`,
    },
    {
      name: 'the failure branch of a per-key acquire loop deletes every key of the list, the one another request holds too',
      message: ['runs where the acquire did not take it', 'another process'],
      code: `${io}export async function holdSeats(show: string, seats: string[], guest: string): Promise<boolean> {
  for (const seat of seats) {
    const held = await redis.set(\`seat_lock:\${show}:\${seat}\`, guest, 'EX', 300, 'NX');
    if (!held) {
      for (const s of seats) await redis.del(\`seat_lock:\${show}:\${s}\`);
      return false;
    }
  }
  return true;
}
`,
      output: `import Redis from 'ioredis';
${RELEASE_DECL}const redis = new Redis();
async function work(): Promise<void> {}
export async function holdSeats(show: string, seats: string[], guest: string): Promise<boolean> {
  for (const seat of seats) {
    const held = await redis.set(\`seat_lock:\${show}:\${seat}\`, guest, 'EX', 300, 'NX');
    if (!held) {
      for (const s of seats) await redis.eval(RELEASE_LOCK_SCRIPT, 1, \`seat_lock:\${show}:\${s}\`, guest);
      return false;
    }
  }
  return true;
}
`,
    },
    {
      name: 'a DEL of the key in the branch where its own acquire failed deletes the holder\'s lock',
      message: ['runs where the acquire did not take it'],
      code: `${io}export async function claimExport(id: string, worker: string): Promise<boolean> {
  const ok = await redis.set(\`export:lock:\${id}\`, worker, 'PX', 60_000, 'NX');
  if (ok !== 'OK') {
    await redis.del(\`export:lock:\${id}\`);
    return false;
  }
  return true;
}
`,
    },
    {
      name: 'GET, compare with this node, then DEL of a leader key set without NX, in a function not named release',
      message: ['GET, compare, then DEL'],
      code: `${io}const LEADER_KEY = 'sync:leader';
export async function elect(me: string): Promise<void> {
  await redis.set(LEADER_KEY, me, 'PX', 30_000);
  await work();
}
export async function shutdown(me: string): Promise<void> {
  const current = await redis.get(LEADER_KEY);
  if (current === me) await redis.del(LEADER_KEY);
}
`,
    },
    {
      name: "callback style: GET, compare in the GET's callback, DEL in a callback of a prototype's unlock",
      typecheck: false,
      message: ['GET, compare, then DEL', 'two round trips'],
      output: null,
      code: `function Locker(client) { this.client = client; }
Locker.prototype.unlock = function (lock, callback) {
  var self = this;
  self.client.get(lock.resource, function (err, data) {
    if (!err && data === lock.value) {
      self.client.del(lock.resource, callback);
    } else callback(err);
  });
};
module.exports = Locker;
`,
    },
    {
      name: 'Upstash: lower-case NX options are an acquire, and the fix writes its eval(script, keys, args)',
      code: `${upstash}export async function weekly() {
  const key = 'cron:lock:weekly';
  const token = crypto.randomUUID();
  if (!(await kv.set(key, token, { ex: 600, nx: true }))) return;
  try { await work(); } finally { await kv.del(key); }
}
`,
      // A file without imports gets the script constant first.
      output: `${RELEASE_DECL.slice(1)}\n${upstash}export async function weekly() {
  const key = 'cron:lock:weekly';
  const token = crypto.randomUUID();
  if (!(await kv.set(key, token, { ex: 600, nx: true }))) return;
  try { await work(); } finally { await kv.eval(RELEASE_LOCK_SCRIPT, [key], [token]); }
}
`,
    },
    {
      name: 'a cleanup that is the only release of the lock is still its release',
      code: `${io}export class Idempotency {
  async acquire(key: string): Promise<string | null> {
    const token = crypto.randomUUID();
    return (await redis.set(\`lock:\${key}\`, token, 'PX', 30000, 'NX')) === 'OK' ? token : null;
  }
  async cleanup(key: string) {
    await redis.del(\`lock:\${key}\`, \`result:\${key}\`);
  }
}
`,
      output: null,
    },
    {
      name: 'a variable that holds an in-memory store or a Redis client is still a client',
      typecheck: false,
      code: `import NodeCache from 'node-cache';
import Redis from 'ioredis';
export function createLocks(url?: string) {
  let store: NodeCache | Redis = new NodeCache();
  if (url) store = new Redis(url);
  return {
    async releaseLock(lockKey: string) {
      await store.del(lockKey);
    },
  };
}
`,
    },
    {
      name: 'DEL of a lock whose token is process.pid: a fresh token at the acquire, every DEL compared',
      count: 2,
      remaining: 0,
      code: `${io}export async function charge(id: string) {
  const key = \`lock:order:\${id}\`;
  const ok = await redis.setnx(key, \`\${process.pid}\`);
  if (!ok) return;
  await redis.expire(key, 30);
  if (await redis.exists('paid')) {
    await redis.del(key);
    return;
  }
  await work();
  await redis.del(key);
}
`,
      output: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
${RELEASE_DECL}const redis = new Redis();
async function work(): Promise<void> {}
export async function charge(id: string) {
  const key = \`lock:order:\${id}\`;
  const token = randomUUID();
  const ok = await redis.setnx(key, token);
  if (!ok) return;
  await redis.expire(key, 30);
  if (await redis.exists('paid')) {
    await redis.eval(RELEASE_LOCK_SCRIPT, 1, key, token);
    return;
  }
  await work();
  await redis.eval(RELEASE_LOCK_SCRIPT, 1, key, token);
}
`,
    },
    {
      name: 'DEL of a lock this file never acquires: no fix, and the reason',
      code: `${io}export async function releaseLock(id: string) {
  await redis.del(\`lock:job:\${id}\`);
}
`,
      output: null,
      noFix: 'does not acquire the lock',
    },
    {
      name: 'EXPIRE to 0 seconds after SET NX: the key is deleted at once, whoever holds it',
      message: ['EXPIRE deletes', 'whoever holds it'],
      code: `${io}export async function settle(invoice: string, owner: string) {
  const key = \`lock:invoice:\${invoice}\`;
  if (!(await redis.set(key, owner, 'PX', 20_000, 'NX'))) return;
  try { await work(); } finally { await redis.expire(key, 0); }
}
`,
      output: `${declared(io, RELEASE_DECL)}export async function settle(invoice: string, owner: string) {
  const key = \`lock:invoice:\${invoice}\`;
  if (!(await redis.set(key, owner, 'PX', 20_000, 'NX'))) return;
  try { await work(); } finally { await redis.eval(RELEASE_LOCK_SCRIPT, 1, key, owner); }
}
`,
    },
    {
      name: 'plain DEL after SET NX',
      message: ['whoever holds it', 'compare-and-delete'],
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
      output: `${declared(io, RELEASE_DECL)}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.eval(RELEASE_LOCK_SCRIPT, 1, key, token); }
}
`,
    },
    {
      name: 'node-redis GET-compare-DEL in two round trips',
      message: ['two round trips'],
      code: `${nr}export async function release(key: string, token: string) {
  if ((await client.get(key)) === token) {
    await client.del(key);
  }
}
export async function take(key: string, token: string) {
  return client.set(key, token, { NX: true, PX: 1000 });
}
`,
      output: `${declared(nr, RELEASE_DECL)}export async function release(key: string, token: string) {
  await client.eval(RELEASE_LOCK_SCRIPT, { keys: [key], arguments: [token] });
}
export async function take(key: string, token: string) {
  return client.set(key, token, { NX: true, PX: 1000 });
}
`,
    },
    {
      name: 'releaseLock helper with a lock-named key and UNLINK',
      code: `${io}export async function releaseLock(name: string) {
  await redis.unlink(\`lock:\${name}\`);
}
`,
      output: null,
    },
    {
      name: 'class with this.key and this.token',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class RedisLock {
  private token = randomUUID();
  constructor(private redis: Redis, private key: string) {}
  async acquire() {
    return (await this.redis.set(this.key, this.token, 'PX', 5000, 'NX')) === 'OK';
  }
  async release() {
    await this.redis.del(this.key);
  }
}
`,
      output: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
${RELEASE_DECL}export class RedisLock {
  private token = randomUUID();
  constructor(private redis: Redis, private key: string) {}
  async acquire() {
    return (await this.redis.set(this.key, this.token, 'PX', 5000, 'NX')) === 'OK';
  }
  async release() {
    await this.redis.eval(RELEASE_LOCK_SCRIPT, 1, this.key, this.token);
  }
}
`,
    },
    {
      name: 'unconditional DEL inside Lua',
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.eval("return redis.call('del', KEYS[1])", 1, key); }
}
`,
    },
    {
      name: 'GLIDE del([key]) after an onlyIfDoesNotExist acquire',
      message: ['whoever holds it'],
      code: `${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.del([key]); }
}
`,
      output: declared(`${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.customCommand(['EVAL', RELEASE_LOCK_SCRIPT, '1', key, token]); }
}
`, RELEASE_DECL),
    },
    {
      name: 'GLIDE cluster customCommand DEL',
      code: `${glide}export async function run(key: string, token: string) {
  if (!(await cluster.customCommand(['SET', key, token, 'NX', 'PX', '1000']))) return;
  try { await work(); } finally { await cluster.customCommand(['DEL', key]); }
}
`,
    },
    {
      name: 'GLIDE invokeScript with an unconditional DEL',
      code: `${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.invokeScript(new Script("return redis.call('del', KEYS[1])"), { keys: [key] }); }
}
`,
    },
    {
      name: 'server valkey-9: the fix writes DELIFEQ',
      config: { server: 'valkey-9' },
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
      output: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.call('DELIFEQ', key, token); }
}
`,
    },
    {
      name: 'server redis-8.4: the fix writes DELEX IFEQ (node-redis)',
      config: { server: 'redis-8.4' },
      code: `${nr}export async function run(key: string, token: string) {
  if (!(await client.set(key, token, { NX: true, PX: 1000 }))) return;
  try { await work(); } finally { await client.del(key); }
}
`,
      output: `${nr}export async function run(key: string, token: string) {
  if (!(await client.set(key, token, { NX: true, PX: 1000 }))) return;
  try { await work(); } finally { await client.sendCommand(['DELEX', key, 'IFEQ', token]); }
}
`,
    },
    {
      name: 'server valkey-9 with GLIDE: the fix writes customCommand DELIFEQ',
      config: { server: 'valkey-9' },
      code: `${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.del([key]); }
}
`,
      output: `${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  try { await work(); } finally { await valkey.customCommand(['DELIFEQ', key, token]); }
}
`,
    },
    {
      name: 'GETDEL is not a compare',
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { await redis.getdel(key); }
}
`,
    },
  ],
};
