import type { RuleCases } from '../harness';
import { declared, EXTEND, EXTEND_DECL, glide, io, nr, sortedSetSemaphore, eventDedupeRecords, stampedClaimTakeover } from './preludes';

export const ownerCheckedExtendCases: RuleCases = {
  valid: [
    { name: 'an EXPIRE right after a plain SET of the key gives that write its TTL (a stale holder overwritten after a failed SETNX): no renewal of a lock held before', code: stampedClaimTakeover },
    eventDedupeRecords,
    {
      name: 'a notice record moved from one state to the next (compared with `Sent.ONE`, written `Sent.MANY`): no renewal of a holder',
      code: `${io}enum Sent { ONE = 'one', MANY = 'many' }
export async function noteReminder(userId: string, minutes: number): Promise<'first' | 'second' | null> {
  const key = \`reminder:user:\${userId}\`;
  if ((await redis.set(key, Sent.ONE, 'EX', minutes * 60, 'NX')) === 'OK') return 'first';
  const state = await redis.get(key);
  if (state === Sent.ONE) {
    await redis.set(key, Sent.MANY, 'EX', minutes * 60);
    return 'second';
  }
  return null;
}
`,
    },
    {
      name: "a session's first-seen record: SET NX, and where the key was already there, read it and slide its TTL",
      code: `${io}export async function firstSeen(sessionKey: string): Promise<string> {
  const now = new Date().toISOString();
  const stored = await redis.set(sessionKey, now, 'EX', 1800, 'NX');
  let first = now;
  if (stored !== 'OK') {
    first = (await redis.get(sessionKey)) ?? now;
    await redis.expire(sessionKey, 1800);
  }
  return first;
}
`,
    },
    sortedSetSemaphore,
    {
      name: 'PEXPIRE to 0 ms deletes the key: a release (owner-checked-release judges it), not a renewal',
      code: `${io}export async function settle(invoice: string, owner: string) {
  const key = \`lock:invoice:\${invoice}\`;
  if (!(await redis.set(key, owner, 'PX', 20_000, 'NX'))) return;
  try { await work(); } finally { await redis.pexpire(key, 0); }
}
`,
    },
    { name: 'WATCH, GET, a guard that leaves on another holder, then PEXPIRE queued in MULTI: EXEC fails if the key changed', code: `${io}export async function renewLock(id: string, token: string): Promise<boolean> {
  const key = \`lock:job:\${id}\`;
  await redis.watch(key);
  if ((await redis.get(key)) !== token) {
    await redis.unwatch();
    return false;
  }
  return (await redis.multi().pexpire(key, 30000).exec()) !== null;
}
` },
    { name: "a cache class's generic extendTtl(key) is not its acquireLock(key)'s lock: only the verb says lock", code: `${io}export class CacheStore {
  async acquireLock(key: string, token: string): Promise<boolean> {
    return (await redis.set(key, token, 'PX', 30000, 'NX')) === 'OK';
  }
  async extendTtl(key: string, seconds: number): Promise<void> {
    await redis.expire(key, seconds);
  }
  async refreshToken(key: string, value: string): Promise<void> {
    await redis.set(key, value, 'EX', 3600, 'XX');
  }
}
` },
    { name: 'a cache entry rewritten after comparing its version is no lock', code: `${io}export async function bump(id: string, version: string, next: string) {
  if ((await redis.get(\`cache:doc:\${id}:v\`)) !== version) return;
  await redis.set(\`cache:doc:\${id}:v\`, next, 'EX', 60);
}
` },
    { name: 'a lock written when the holder is NOT this process is a takeover, not a renewal', code: `${io}export async function steal(me: string, token: string) {
  if ((await redis.get('leader:jobs')) !== me) await redis.set('leader:jobs', token, 'PX', 30000);
}
` },
    { name: 'Lua compare-and-pexpire watchdog', code: `${io}export function watchdog(key: string, token: string) {
  return setInterval(() => {
    void redis.eval(${EXTEND}, 1, key, token, 30000);
  }, 10000);
}
` },
    { name: 'EXPIRE on a session key', code: `${io}export async function touch(sessionId: string) {
  await redis.expire(\`session:\${sessionId}\`, 1800);
}
` },
    { name: 'Redis 8.4 SET IFEQ PX', code: `${io}export async function extendLock(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  await redis.call('SET', key, token, 'IFEQ', token, 'PX', '30000');
}
` },
    { name: 'GLIDE set onlyIfEqual with an expiry', code: `${glide}export async function extendLock(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  await valkey.set(key, token, { conditionalSet: 'onlyIfEqual', comparisonValue: token, expiry: { type: TimeUnit.Milliseconds, count: 30000 } });
}
` },
    { name: 'SET IFEQ PX through node-redis sendCommand()', code: `${nr}export async function extendLock(key: string, token: string) {
  if (!(await client.set(key, token, { NX: true, PX: 1000 }))) return;
  await client.sendCommand(['SET', key, token, 'IFEQ', token, 'PX', '30000']);
}
` },
    { name: 'SET IFEQ PX in Lua', code: `${io}export async function extendLock(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  await redis.eval("return redis.call('SET', KEYS[1], ARGV[1], 'IFEQ', ARGV[1], 'PX', ARGV[2])", 1, key, token, 30000);
}
` },
    { name: 'WATCH and GET queued in one pipeline, the reply compared in the exec\'s then, PEXPIRE queued in MULTI there', code: `${io}export async function renewLock(id: string, token: string): Promise<void> {
  const key = \`lock:job:\${id}\`;
  await redis.pipeline().watch(key).get(key).exec().then(async (replies) => {
    if (replies?.[1]?.[1] === token) await redis.multi().pexpire(key, 30000).exec();
  });
}
` },
  ],
  invalid: [
    {
      name: 'GET-compare-SET writing back the constant it compared (`INSTANCE`): a renewal in two round trips',
      code: `${io}const INSTANCE = 'worker-7';
export async function keepLeading() {
  const holder = await redis.get('leader:billing');
  if (holder === INSTANCE) await redis.set('leader:billing', INSTANCE, 'EX', 30);
}
`,
    },
    {
      name: 'a leader renewal that leaves unless the GET says this worker leads, then PEXPIREs: two round trips',
      message: ['GET, compare, then PEXPIRE', 'two round trips'],
      code: `${io}export async function renewLeadership(me: string): Promise<boolean> {
  const leader = await redis.get('lock:leader');
  if (leader !== me) return false;
  await redis.pexpire('lock:leader', 30000);
  return true;
}
`,
    },
    {
      name: "callback style: GET, compare in the GET's callback, EXPIRE in a callback of a prototype's extend",
      typecheck: false,
      message: ['GET, compare, then EXPIRE', 'two round trips'],
      output: null,
      code: `function Locker(client) { this.client = client; }
Locker.prototype.extend = function (lock, ttl, callback) {
  var self = this;
  self.client.get(lock.resource, function (err, data) {
    if (!err && data === lock.value) {
      self.client.expire(lock.resource, ttl, callback);
    } else callback(err);
  });
};
module.exports = Locker;
`,
    },
    {
      name: 'a heartbeat that reads the holder through a reader method of its class, then rewrites it with a plain SET EX',
      message: ['after a GET compared'],
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
  async heartbeat(room: string, seat: string, me: string) {
    const cur = await this.holder(room, seat);
    if (!cur) return false;
    if (cur.owner !== me) throw new Error('taken');
    await this.store.set(this.key(room, seat), JSON.stringify({ owner: me, at: Date.now() }), 'EX', 60);
    return true;
  }
}
`,
      output: null,
    },
    {
      name: 'a heartbeat that rewrites the leader key with a plain SET EX beside its NX acquire, without reading the holder',
      message: ['A SET without NX', 'overwrites the value and TTL of whoever holds the lock now'],
      output: null,
      noFix: 'reply is used',
      code: `${io}const LEADER = 'leader:reports';
export async function tryLead(me: string): Promise<boolean> {
  return (await redis.set(LEADER, JSON.stringify({ me, at: Date.now() }), 'EX', 30, 'NX')) === 'OK';
}
export async function updateHeartbeat(me: string): Promise<boolean> {
  return (await redis.set(LEADER, JSON.stringify({ me, at: Date.now() }), 'EX', 30)) === 'OK';
}
`,
    },
    {
      name: 'a timer that keeps re-SETting the key it took with NX',
      message: ['A SET without NX'],
      code: `${io}export async function lead(me: string, onLead: () => void) {
  if ((await redis.set('leader:sync', me, 'PX', 10_000, 'NX')) !== 'OK') return;
  setInterval(async () => {
    await redis.set('leader:sync', me, 'PX', 10_000);
  }, 3_000);
  onLead();
}
`,
      output: `${declared(io, EXTEND_DECL)}export async function lead(me: string, onLead: () => void) {
  if ((await redis.set('leader:sync', me, 'PX', 10_000, 'NX')) !== 'OK') return;
  setInterval(async () => {
    await redis.eval(EXTEND_LOCK_SCRIPT, 1, 'leader:sync', me, 10_000);
  }, 3_000);
  onLead();
}
`,
    },
    {
      name: 'GET compared with this process, then a plain SET PX: a renewal in two round trips',
      message: ['after a GET compared', 'overwrites'],
      code: `${io}export async function renewLeader(me: string) {
  if ((await redis.get('leader:jobs')) === me) await redis.set('leader:jobs', me, 'PX', 30000);
}
`,
    },
    {
      name: 'GET compared with this process, then SETEX: a renewal in two round trips',
      message: ['This SETEX renews', 'between the GET and the SETEX'],
      code: `${io}export async function keepLock(job: string, me: string) {
  if ((await redis.get(\`lock:job:\${job}\`)) !== me) return false;
  await redis.setex(\`lock:job:\${job}\`, 30, me);
  return true;
}
`,
    },
    {
      name: 'GET, leave unless the JSON owner is this agent, then a plain SET EX of a new record',
      message: ['after a GET compared'],
      code: `${io}export async function heartbeat(id: string, me: string) {
  const cur = JSON.parse((await redis.get(\`lock:conv:\${id}\`)) ?? 'null');
  if (cur?.owner !== me) throw new Error('lost');
  await redis.set(\`lock:conv:\${id}\`, JSON.stringify({ owner: me, at: Date.now() }), 'EX', 120);
}
`,
      output: null,
    },
    {
      name: 'PEXPIRE watchdog in setInterval',
      message: ['extends whoever holds the lock now', 'compare-and-pexpire'],
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  const timer = setInterval(() => {
    void redis.pexpire(key, 30000);
  }, 10000);
  try { await work(); } finally { clearInterval(timer); }
}
`,
    },
    {
      name: 'renew method with EXPIRE on a lock key',
      code: `${io}export async function renewLock(id: string, token: string) {
  await redis.expire(\`lock:\${id}\`, 30);
  return token;
}
`,
      output: null,
    },
    {
      name: "EXPIRE on an acquired key, fixed with the acquire's token",
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'EX', 30, 'NX'))) return;
  await work();
  await redis.expire(key, 30);
  await work();
}
`,
      output: `${declared(io, EXTEND_DECL)}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'EX', 30, 'NX'))) return;
  await work();
  await redis.eval(EXTEND_LOCK_SCRIPT, 1, key, token, 30 * 1000);
  await work();
}
`,
    },
    {
      name: 'node-redis SET XX PX overwrites the holder',
      message: ['SET XX'],
      code: `${nr}export async function heartbeat(key: string, token: string) {
  await client.set(key, token, { XX: true, PX: 30000 });
}
export async function take(key: string, token: string) {
  return client.set(key, token, { NX: true, PX: 30000 });
}
`,
      output: `${declared(nr, EXTEND_DECL)}export async function heartbeat(key: string, token: string) {
  await client.eval(EXTEND_LOCK_SCRIPT, { keys: [key], arguments: [token, String(30000)] });
}
export async function take(key: string, token: string) {
  return client.set(key, token, { NX: true, PX: 30000 });
}
`,
    },
      {
      name: 'GLIDE pexpire watchdog',
      code: `${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  await valkey.pexpire(key, 30000);
}
`,
      output: declared(`${glide}export async function run(key: string, token: string) {
  if (!(await valkey.set(key, token, { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Milliseconds, count: 1000 } }))) return;
  await valkey.customCommand(['EVAL', EXTEND_LOCK_SCRIPT, '1', key, token, String(30000)]);
}
`, EXTEND_DECL),
    },
    {
      name: 'server valkey-9: the fix writes SET IFEQ PX',
      config: { server: 'valkey-9' },
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'EX', 30, 'NX'))) return;
  await redis.pexpire(key, 30000);
}
`,
      output: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'EX', 30, 'NX'))) return;
  await redis.call('SET', key, token, 'IFEQ', token, 'PX', 30000);
}
`,
    },
  ],
};
