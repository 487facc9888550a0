import type { RuleCases } from '../harness';
import { SEND_COOLDOWN, CIRCUIT_PROBE, io, nr, RELEASE, singleFlightMarker, sentOnceMarker, failureReleasedClaim, backgroundWorkClaim, twoStateRecord, outcomeRolledBackClaim, sharedClaim, cacheFill, WAIT_FOR_FILL, FILL_UNLOCKED, GIVE_UP, eventDedupeRecords, pendingRecord, configuredDamper, nxSelfTest, dedupeWindowClaim, breakerProbeSlot } from './preludes';

const release = (key: string, token: string) => `await redis.eval(${RELEASE}, 1, ${key}, ${token});`;

export const uniqueTokenCases: RuleCases = {
  valid: [
    breakerProbeSlot,
    { name: 'a time joined to a Math.random() part: two holders do not draw the same value', code: `${io}export async function run(id: string) {
  const token = \`\${Date.now()}-\${Math.random().toString(36).slice(2)}\`;
  if ((await redis.set(\`lock:\${id}\`, token, 'PX', 5000, 'NX')) !== 'OK') return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:\${id}\`, token);
  }
}
` },
    dedupeWindowClaim,
    nxSelfTest,
    configuredDamper,
    pendingRecord,
    eventDedupeRecords,
    { name: 'a stampede damper: when busy it waits, leaves with the value filled meanwhile, else fills unlocked', code: cacheFill(WAIT_FOR_FILL, FILL_UNLOCKED) },
    { name: 'a fixed-window rate limit seeding its counter with SET 0 NX EX, then INCR, with a TTL repair: a counter, no lock', code: `${nr}export async function allow(user: string, max: number): Promise<boolean> {
  const key = \`api:calls:\${user}\`;
  const [, count] = await client.multi().set(key, '0', { NX: true, EX: 60 }).incr(key).exec();
  if (Number(count) > 1 && (await client.ttl(key)) < 0) await client.expire(key, 60);
  return Number(count) <= max;
}
` },
    { name: 'a lease taken on one Redis and a release helper of another Redis sharing only the parameter name: never released, any value will do', code: `import Redis from 'ioredis';
const localRedis = new Redis();
const globalRedis = new Redis({ host: 'global-redis' });
export const acquireGlobalLock = async (name: string, seconds: number) => (await globalRedis.set(name, 'lock', 'EX', seconds, 'NX')) === 'OK';
export const releaseLock = async (name: string) => {
  await localRedis.del(name);
};
` },
    { name: "a send cooldown reserved with a constant and cleared by another function when delivery failed", code: SEND_COOLDOWN },
    { name: "a circuit breaker's half-open probe slot, taken with NX and a constant, cleared by whoever sees the circuit close", code: CIRCUIT_PROBE },
    {
      name: 'a marker taken with SET NX over a parameter, and a function beside it, not named as a release, that deletes the same key over its own',
      code: `${io}export async function firstRun(jobId: string): Promise<boolean> {
  return (await redis.set(\`ran:\${jobId}\`, 'yes', 'EX', 86400, 'NX')) === 'OK';
}
export async function forget(jobId: string): Promise<void> {
  await redis.del(\`ran:\${jobId}\`);
}
`,
    },
    singleFlightMarker,
    sentOnceMarker,
    failureReleasedClaim,
    backgroundWorkClaim,
    twoStateRecord,
    outcomeRolledBackClaim,
    sharedClaim,
    { name: 'an acquire that hands its key back with a random token per acquisition', code: `import { randomUUID } from 'node:crypto';
${io}export class SeatLocks {
  async acquireLock(sessionId: string, seatId: string): Promise<string | null> {
    const lockKey = \`lock:session:\${sessionId}:seat:\${seatId}\`;
    const token = randomUUID();
    const result = await redis.set(lockKey, token, 'PX', 30000, 'NX');
    return result === 'OK' ? lockKey : null;
  }
  async releaseLock(lockKey: string): Promise<void> {
    await redis.del(lockKey);
  }
}
` },
    { name: 'a counter after a random id: unique per process and per acquisition', code: `import { randomUUID } from 'node:crypto';
${io}const instance = randomUUID();
let seq = 0;
export async function hold(key: string) {
  const token = \`\${instance}:\${++seq}\`;
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
` },
    { name: 'a token parameter whose default is a fresh randomUUID()', code: `import { randomUUID } from 'node:crypto';
${io}export async function lock(key: string, token: string = randomUUID()) {
  return (await redis.set(key, token, 'PX', 5000, 'NX')) === 'OK' ? token : null;
}
export async function unlock(key: string, token: string) {
  ${release('key', 'token')}
}
` },
    { name: 'randomUUID per acquisition', code: `import { randomUUID } from 'node:crypto';
${io}export async function run(key: string) {
  const token = randomUUID();
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
` },
    { name: 'host and pid plus random bits', code: `import { randomUUID } from 'node:crypto';
import os from 'node:os';
${io}export async function run(key: string) {
  const token = \`\${os.hostname()}:\${process.pid}:\${randomUUID()}\`;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
` },
    { name: 'a user id with random bits appended', code: `import { randomUUID } from 'node:crypto';
${io}export async function run(key: string, userId: string) {
  const token = \`\${userId}:\${randomUUID()}\`;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
` },
    { name: "a seat held for a user: the user's id as the holder is meant (release-only-acquired reads it)", code: `${io}export async function hold(seat: string, userId: string) {
  return (await redis.set(\`lock:seat:\${seat}\`, userId, 'PX', 600_000, 'NX')) === 'OK';
}
export async function free(seat: string, userId: string) {
  ${release('`lock:seat:${seat}`', 'userId')}
}
` },
    { name: 'a request id or lock id handed in: it may well be random', code: `${io}export async function run(key: string, requestId: string, lockId: string) {
  if (!(await redis.set(key, requestId, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'requestId')} }
  if (!(await redis.set(key, lockId, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'lockId')} }
}
` },
    { name: "a leader's random id made once per process, for its one fixed key: the process's identity", code: `import { randomUUID } from 'node:crypto';
${io}const ME = randomUUID();
const SEAT = 'svc:leader';
export class Elector {
  private readonly id = \`\${process.pid}:\${randomUUID()}\`;
  constructor(private readonly key = 'svc:primary') {}
  async campaign() {
    return (await redis.set(this.key, this.id, 'PX', 20000, 'NX')) === 'OK';
  }
  async resign() {
    await redis.eval(${RELEASE}, 1, this.key, this.id);
  }
}
export async function elect() {
  if (!(await redis.set(SEAT, ME, 'PX', 20000, 'NX'))) return false;
  return true;
}
export async function resign() {
  await redis.eval(${RELEASE}, 1, SEAT, ME);
}
` },
    { name: 'an instance id owning many leases, recorded in its own set: the owning instance, by design', code: `import { randomUUID } from 'node:crypto';
${io}export class TableOwnership {
  private readonly instanceId = randomUUID();
  private readonly owned = new Set<string>();
  async acquire(tableId: string) {
    const ok = (await redis.set(\`owner:table:\${tableId}\`, this.instanceId, 'EX', 30, 'NX')) === 'OK';
    if (ok) this.owned.add(tableId);
    return ok;
  }
  async release(tableId: string) {
    if ((await redis.eval(${RELEASE}, 1, \`owner:table:\${tableId}\`, this.instanceId)) === 1) this.owned.delete(tableId);
  }
}
` },
    { name: 'dedup marker with a constant value, never released', code: `${io}export async function once(id: string) {
  return redis.set(\`dedup:\${id}\`, '1', 'EX', 60, 'NX');
}
` },
    { name: 'holder details as JSON with a random id among them', code: `import { randomUUID } from 'node:crypto';
${io}export async function run(key: string) {
  const token = JSON.stringify({ id: randomUUID(), since: Date.now() });
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
` },
  ],
  invalid: [
    {
      name: "a constant lock 'renewed' by a plain SET of the same constant is still a lock: one state, no record",
      message: ['constant'],
      code: `${io}const HELD = 'held';
export async function withReportLock(work: () => Promise<void>) {
  if (!(await redis.set('lock:report', HELD, 'PX', 10_000, 'NX'))) return;
  const renew = setInterval(() => void redis.set('lock:report', HELD, 'PX', 10_000), 3_000);
  try {
    await work();
  } finally {
    clearInterval(renew);
    await redis.del('lock:report');
  }
}
`,
    },
    { name: 'a cache fill lock whose busy path waits, then gives up: it excludes, so its holders must be told apart', message: ['constant'], code: cacheFill(WAIT_FOR_FILL, GIVE_UP) },
    {
      name: 'a constant taken in one MULTI and deleted by a bare DEL queued in another MULTI on the same client',
      message: ['is a constant'],
      code: `${nr}export async function processBatch() {
  const [taken] = await client.multi().setNX('lock:batch', '1').expire('lock:batch', 10).exec();
  if (!taken) return;
  try {
    await work();
  } finally {
    await client.multi().incr('batch:runs').del('lock:batch').exec();
  }
}
`,
    },
    {
      name: 'an acquire function not named as one takes a key over its parameter; the release function beside it deletes the same key over its own',
      message: ["'worker lock'"],
      code: `${io}export async function canStart(workerId: string): Promise<boolean> {
  return (await redis.set(\`workers:\${workerId}\`, 'worker lock', 'EX', 20, 'NX')) === 'OK';
}
export async function releaseLock(workerId: string): Promise<void> {
  await redis.del(\`workers:\${workerId}\`);
}
`,
    },
    {
      name: 'custom commands whose scripts name their arguments; the owner defaults to a shared "*"',
      message: ["owner (which can be '*')"],
      code: `import Redis from 'ioredis';
type Scripted = Redis & { takeLock(key: string, owner: string, ttl: number): Promise<number>; dropLock(key: string, owner: string): Promise<number> };
export class Locks {
  private readonly redis: Scripted;
  constructor(redis: Redis) {
    redis.defineCommand('takeLock', { numberOfKeys: 1, lua: \`local key = KEYS[1]
local owner = ARGV[1]
local args = {key, owner, 'NX'}
if tonumber(ARGV[2]) > 0 then
  table.insert(args, 'EX')
  table.insert(args, ARGV[2])
end
return redis.call('SET', unpack(args)) and 1 or 0\` });
    redis.defineCommand('dropLock', { numberOfKeys: 1, lua: \`local key = KEYS[1]
local owner = ARGV[1]
if redis.call('GET', key) == owner then return redis.call('DEL', key) end
return 0\` });
    this.redis = redis as Scripted;
  }
  async acquire(key: string, opts?: { owner?: string; ttl?: number }): Promise<boolean> {
    const owner = opts?.owner ?? '*';
    return (await this.redis.takeLock(\`lock:\${key}\`, owner, opts?.ttl ?? 30)) === 1;
  }
  async release(key: string, opts?: { owner?: string }): Promise<boolean> {
    const owner = opts?.owner ?? '*';
    return (await this.redis.dropLock(\`lock:\${key}\`, owner)) === 1;
  }
}
`,
    },
    {
      name: 'an acquire that hands its key back, released by the release method taking that key: a constant token',
      message: ['constant'],
      output: null,
      code: `${io}export class SeatLocks {
  async acquireLock(sessionId: string, seatId: string): Promise<string | null> {
    const lockKey = \`lock:session:\${sessionId}:seat:\${seatId}\`;
    const result = await redis.set(lockKey, 'locked', 'PX', 30000, 'NX');
    return result === 'OK' ? lockKey : null;
  }
  async releaseLock(lockKey: string): Promise<void> {
    await redis.del(lockKey);
  }
}
`,
    },
    {
      name: 'module arrow functions: an acquire retried in a loop hands its key back, a release arrow DELs the key it is given: a constant token',
      message: ["'held' is a constant"],
      output: null,
      code: `${nr}const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const acquireLock = async (sku: string) => {
  const lockKey = \`stock_lock_\${sku}\`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const reply = await client.set(lockKey, 'held', { NX: true, PX: 3000 });
    if (reply === 'OK') return lockKey;
    await pause(40 + Math.random() * 40);
  }
  return null;
};
export const releaseLock = async (lockKey: string) => client.del(lockKey);
`,
    },
    {
      name: 'one timestamp token tried again by a retry is reported once, at the first acquire',
      message: ['timestamp'],
      code: `${io}export async function hold(key: string) {
  const token = \`\${Date.now()}\`;
  let ok = await redis.set(key, token, 'PX', 5000, 'NX');
  for (let i = 0; !ok && i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 100));
    ok = await redis.set(key, token, 'PX', 5000, 'NX');
  }
  if (!ok) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
    },
    {
      name: 'one constant token in two functions is two locks with the same flaw, each reported',
      message: ['constant'],
      count: 2,
      code: `${io}const OWNER = 'inventory-service';
export async function reserve(key: string) {
  if (!(await redis.set(key, OWNER, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { if ((await redis.get(key)) === OWNER) await redis.del(key); }
}
export async function restock(key: string) {
  if (!(await redis.set(key, OWNER, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { if ((await redis.get(key)) === OWNER) await redis.del(key); }
}
`,
    },
    {
      name: 'holder details as JSON: a host name and a time (written `(new Date()).toISOString()`) are shared values, told apart by the time',
      message: ['is a timestamp'],
      code: `import os from 'node:os';
${io}export async function run(key: string) {
  const holder = JSON.stringify({ host: os.hostname(), since: (new Date()).toISOString() });
  if (!(await redis.set(key, holder, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'holder')} }
}
`,
    },
    {
      name: "an owner that falls back to a constant (args?.owner ?? '*')",
      message: ["'*'", 'constant'],
      code: `${io}export async function hold(key: string, args?: { owner?: string }) {
  const owner = args?.owner ?? '*';
  if (!(await redis.set(key, owner, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
    },
    {
      name: "an owner parameter whose default is a constant (owner = 'global'), compared by the release",
      message: ["'global'", 'constant'],
      code: `${io}export async function lock(key: string, owner: string = 'global') {
  return (await redis.set(key, owner, 'PX', 5000, 'NX')) === 'OK';
}
export async function unlock(key: string, owner: string = 'global') {
  await redis.eval(${RELEASE}, 1, key, owner);
}
`,
    },
    {
      name: 'a per-process counter as the token: a module `let` bumped per acquisition, alone or after a constant prefix',
      count: 2,
      message: ['counter kept in memory'],
      code: `${io}let issued = 0;
export async function hold(key: string) {
  const token = String(++issued);
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
export async function stamp(key: string) {
  const token = \`worker-\${issued++}\`;
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
    },
    {
      name: 'a counter bumped by a function of the file (`function nextFence() { return ++fence; }`, or an arrow), wrapped in String()',
      count: 2,
      message: ['counter kept in memory'],
      code: `${io}let fence = 0;
function nextFence(): number {
  return ++fence;
}
const nextTicket = () => fence++;
export async function hold(key: string) {
  const token = String(nextFence());
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
export async function queue(key: string) {
  const token = \`t-\${nextTicket()}\`;
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
    },
    {
      name: "a lock service's sequence field bumped per acquisition (`this.seq++`)",
      message: ['this.seq++', 'counter kept in memory'],
      code: `${io}export class Locks {
  private seq = 0;
  async acquire(key: string): Promise<string | null> {
    const owner = this.seq++;
    return (await redis.set(key, owner, 'PX', 5000, 'NX')) === 'OK' ? String(owner) : null;
  }
  async release(key: string, owner: string): Promise<void> {
    ${release('key', 'owner')}
  }
}
`,
    },
    {
      name: 'a deadline as the token (`${Date.now() + ttlMs}`)',
      message: ['timestamp'],
      code: `${io}export async function hold(key: string, ttlMs: number) {
  const token = \`\${Date.now() + ttlMs}\`;
  if (!(await redis.set(key, token, 'PX', ttlMs, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
    },
    {
      name: 'an expiry stamp in whole seconds (`Math.round(new Date().getTime() / 1000)` plus the TTL): a time, shared by every holder of that second',
      message: ['timestamp'],
      code: `${io}export class JobGate {
  constructor(private readonly name: string) {}
  private key() {
    return \`jobs:lock:\${this.name}\`;
  }
  async enter(ttlSeconds: number): Promise<boolean> {
    const now = Math.round(new Date().getTime() / 1000);
    const expiresAt = now + ttlSeconds + 1;
    return (await redis.set(this.key(), expiresAt, 'EX', ttlSeconds, 'NX')) === 'OK';
  }
  async leave(): Promise<void> {
    await redis.del(this.key());
  }
}
`,
    },
    {
      name: 'a timestamp written as +new Date(), Number(new Date()) or Date.now().toString(36)',
      count: 3,
      message: ['timestamp'],
      code: `${io}export async function a(key: string) {
  const stamp = +new Date();
  if (!(await redis.set(key, stamp, 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
export async function b(key: string) {
  if (!(await redis.set(key, Number(new Date()), 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
export async function c(key: string) {
  if (!(await redis.set(key, Date.now().toString(36), 'PX', 5000, 'NX'))) return;
  try { await work(); } finally { await redis.del(key); }
}
`,
    },
    {
      name: 'constant value released with a bare DEL: the owner check that fixes the DEL cannot tell holders apart',
      message: ["'1' is a constant", 'without an owner check'],
      code: `${io}export async function run() {
  if (!(await redis.set('lock:a', '1', 'PX', 1000, 'NX'))) return;
  await work();
  await redis.del('lock:a');
}
`,
    },
    {
      name: 'process.pid value of a lock extended with a bare PEXPIRE',
      message: ['process id'],
      code: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  if (!(await redis.set(key, String(process.pid), 'PX', 1000, 'NX'))) return;
  await redis.pexpire(key, 1000);
}
`,
    },
    {
      name: 'a process id with the time of the acquire: what tells two holders apart is the timestamp, and the message says so',
      message: ['is a timestamp'],
      code: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  if (!(await redis.set(key, \`\${process.pid}-\${Date.now()}\`, 'PX', 1000, 'NX'))) return;
  await redis.pexpire(key, 1000);
}
`,
    },
    {
      name: 'constant string token compared on release',
      message: ['is a constant', 'randomUUID'],
      code: `${io}export async function run(key: string) {
  const token = 'locked';
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
      output: `${io.replace("from 'ioredis';\n", "from 'ioredis';\nimport { randomUUID } from 'node:crypto';\n")}export async function run(key: string) {
  const token = randomUUID();
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
    },
    {
      name: 'hostname and pid only: random bits appended',
      message: ['host name'],
      code: `import os from 'node:os';
${io}export async function run(key: string) {
  const token = \`\${os.hostname()}:\${process.pid}\`;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
      output: `import os from 'node:os';
${io.replace("from 'ioredis';\n", "from 'ioredis';\nimport { randomUUID } from 'node:crypto';\n")}export async function run(key: string) {
  const token = \`\${os.hostname()}:\${process.pid}:\${randomUUID()}\`;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
    },
    {
      name: 'process.pid inline',
      message: ['pid 1'],
      code: `${io}export async function run(key: string) {
  if (!(await redis.set(key, String(process.pid), 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'String(process.pid)')} }
}
`,
      output: null,
    },
    {
      name: 'Date.now() alone',
      message: ['timestamp'],
      code: `${nr}export async function run(key: string) {
  const token = Date.now().toString();
  if (!(await client.set(key, token, { NX: true, PX: 1000 }))) return;
  try { await work(); } finally {
    await client.eval(${RELEASE}, { keys: [key], arguments: [token] });
  }
}
`,
    },
    {
      name: 'one module-level token reused by every acquisition',
      message: ['created once and reused'],
      code: `import { randomUUID } from 'node:crypto';
${io}const TOKEN = randomUUID();
export async function run(key: string) {
  if (!(await redis.set(key, TOKEN, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'TOKEN')} }
}
`,
      output: `import { randomUUID } from 'node:crypto';
${io}const TOKEN = randomUUID();
export async function run(key: string) {
  const token = \`\${TOKEN}:\${randomUUID()}\`;
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try { await work(); } finally { ${release('key', 'token')} }
}
`,
    },
    {
      name: "a service's one id reused for every key, the release's key held in a let nothing reassigns",
      message: ['created once and reused'],
      code: `import { randomUUID } from 'node:crypto';
${io}export class RoomLocks {
  private readonly me = randomUUID();
  async lock(room: string) {
    return (await redis.set(\`gate:\${room}\`, this.me, 'PX', 1000, 'NX')) === 'OK';
  }
  async unlock(room: string) {
    let slot = \`gate:\${room}\`;
    ${release('slot', 'this.me')}
  }
}
`,
    },
    {
      name: 'a constant token compared in another function: no fix, and the reason',
      code: `${io}const OWNER = 'billing-worker';
export async function take(key: string) {
  return redis.set(key, OWNER, 'PX', 1000, 'NX');
}
export async function free(key: string) {
  ${release('key', 'OWNER')}
}
`,
      output: null,
      noFix: 'compared in another function',
    },
    {
      name: 'redis-semaphore identifier set to a constant',
      message: ['identifier'],
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export function make(redis: Redis) {
  return new Mutex(redis, 'report', { identifier: 'worker', onLockLost: () => undefined });
}
`,
      output: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export function make(redis: Redis) {
  return new Mutex(redis, 'report', { onLockLost: () => undefined });
}
`,
    },
  ],
};
