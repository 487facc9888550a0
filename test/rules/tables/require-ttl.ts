import type { RuleCases } from '../harness';
import { MEMORY_STAND_IN, glide, io, nr, RELEASE, upstash, boundCallbackLeader } from './preludes';

export const requireTtlCases: RuleCases = {
  valid: [
    {
      name: "a project cache wrapper's setNX given a TTL as its third argument (no client's SETNX takes one)",
      code: `declare const cache: { setNX(key: string, value: string, ttlSeconds: number): Promise<boolean>; del(key: string): Promise<void> };
declare function handle(id: string): Promise<void>;
export async function onEvent(id: string): Promise<void> {
  if (!(await cache.setNX(\`lock:event:\${id}\`, 'processing', 3600))) return;
  await handle(id);
}
`,
    },
    { name: 'a redlock lock held for a month whose lock object is dropped: a run-once guard, never meant to be released', code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()], { retryCount: 0 });
declare function enqueueBackfill(): Promise<void>;
redlock.acquire(['backfill:sales:v3'], 30 * 86_400_000)
  .then(() => enqueueBackfill())
  .catch(() => console.log('another instance enqueued it'));
` },
    { name: "SETNX without a TTL only where the client says it is an in-memory stand-in", code: MEMORY_STAND_IN },
    { name: 'a connection self-check: SETNX of a fixed test key whose reply is only logged, then deleted', code: `${io}export async function checkCommands(): Promise<boolean> {
  try {
    const reply = await redis.setnx('selftest:nx', 'value');
    if (reply !== 1) {
      console.warn('SETNX returned an unexpected reply:', reply);
    } else {
      console.log('SETNX works');
    }
    await redis.del('selftest:nx');
    return true;
  } catch (err) {
    console.error('Redis command check failed', err);
    return false;
  }
}
` },
    { name: 'SET NX PX', code: `${io}export async function run(id: string) {
  return redis.set(\`lock:\${id}\`, 'x', 'PX', 30000, 'NX');
}
` },
    { name: 'node-redis v5 expiration object', code: `${nr}export async function run(id: string) {
  return client.set(\`lock:\${id}\`, 'x', { condition: 'NX', expiration: { type: 'EX', value: 30 } });
}
` },
    { name: 'set-once flag with SETNX (not a lock: not named like one, never released)', code: `${io}export async function init() {
  await redis.setnx('config:schema-version', '3');
}
` },
    { name: "SETNX followed by EXPIRE is atomic-acquire's finding, not this one", code: `${io}export async function run() {
  if (await redis.setnx('lock:a', 'x')) await redis.expire('lock:a', 10);
}
` },
    { name: 'GLIDE customCommand SET NX PX', code: `${glide}export async function run(id: string) {
  return valkey.customCommand(['SET', \`lock:\${id}\`, 'x', 'NX', 'PX', '30000']);
}
` },
    { name: 'milliseconds converted to seconds before EX, even under a name that says ms', code: `${io}export async function run(id: string, token: string, ttl: number) {
  const ttlMs = Math.floor(ttl / 1000);
  const leaseMs = Math.ceil(ttl * 0.001);
  await redis.expire(\`lock:\${id}\`, leaseMs);
  if (!(await redis.set(\`lock:\${id}\`, token, 'EX', ttlMs, 'NX'))) return;
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, \`lock:\${id}\`, token); }
}
` },
    { name: 'a millisecond TTL given to PX, and a seconds one to EX', code: `${io}const LOCK_TTL_MS = 30 * 1000;
const RENEW_SECONDS = 30;
export async function run(id: string, token: string) {
  if (!(await redis.set(\`lock:\${id}\`, token, 'PX', LOCK_TTL_MS, 'NX'))) return;
  await redis.expire(\`lock:\${id}\`, RENEW_SECONDS);
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, \`lock:\${id}\`, token); }
}
` },
    { name: 'SETEX given seconds after a SETNX gives the lock its TTL', code: `${io}const HOLD_SECONDS = 20;
export async function grab(job: string, token: string) {
  if (!(await redis.setnx(\`lock:job:\${job}\`, token))) return false;
  await redis.setex(\`lock:job:\${job}\`, HOLD_SECONDS, token);
  return true;
}
export async function freeLock(job: string, token: string) {
  await redis.eval(${RELEASE}, 1, \`lock:job:\${job}\`, token);
}
` },
    { name: 'a cache entry given a millisecond value as EX is not a lock', code: `${io}export async function fill(id: string, ttlMs: number) {
  await redis.set(\`cache:\${id}\`, 'v', 'EX', ttlMs);
}
` },
    { name: 'a renewal script given seconds, and one that uses PEXPIRE with milliseconds', code: `${io}const RENEW_S = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) else return 0 end";
const RENEW_MS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
export function keepLock(lockKey: string, token: string, ttlMs: number) {
  return setInterval(() => {
    void redis.eval(RENEW_S, 1, lockKey, token, Math.ceil(ttlMs / 1000));
    void redis.eval(RENEW_MS, 1, lockKey, token, ttlMs);
  }, ttlMs / 3);
}
` },
  ],
  invalid: [
    {
      name: 'callback style (node_redis v3): an NX SET with no TTL answering through its callback, no fix that would drop the callback',
      fileName: 'legacy.js',
      message: ['with no expiry'],
      output: null,
      code: `const redis = require('redis').createClient();
function take(key, cb) {
  redis.set(\`lock:\${key}\`, 'me', 'NX', function (err, ok) { cb(err, ok === 'OK'); });
}
module.exports = { take };
`,
    },
    {
      name: 'callback style with a bound callback: an NX SET with no TTL answering through function () {...}.bind(this)',
      fileName: 'leader.js',
      message: ['with no expiry'],
      output: null,
      code: boundCallbackLeader("    this.client.del(this.lockKey, function () { this.elected = false; }.bind(this));").replace("'PX', 10000, 'NX'", "'NX'"),
    },
    {
      name: 'the same fixed key whose reply decides whether the work runs is a lock',
      code: `${io}export async function nightly(): Promise<void> {
  const reply = await redis.setnx('selftest:nx', 'value');
  if (reply !== 1) {
    console.warn('already running');
    return;
  }
  await work();
  await redis.del('selftest:nx');
}
`,
    },
    {
      name: "a renewal script's EXPIRE given milliseconds, through ioredis and node-redis",
      count: 2,
      message: ["the script's EXPIRE or EX", 'renewMs'],
      output: null,
      code: `${io}import { createClient } from 'redis';
const client = createClient();
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) else return 0 end";
export function keepLock(lockKey: string, token: string, renewMs: number) {
  return setInterval(() => void redis.eval(RENEW, 1, lockKey, token, renewMs), renewMs / 3);
}
export function keepLock2(lockKey: string, token: string, ttlMs: number) {
  return setInterval(() => void client.eval(RENEW, { keys: [lockKey], arguments: [token, String(ttlMs)] }), 10_000);
}
`,
    },
    {
      name: 'milliseconds given as seconds: a name that says ms, a product with 1000, the same const given to PX elsewhere',
      count: 4,
      message: ['1000 times longer', 'LOCK_TTL_MS'],
      output: null,
      code: `${io}const LOCK_TTL_MS = 30_000;
const HOLD = 5 * 60 * 1000;
const LEASE = 60000;
export async function a(token: string) {
  if (!(await redis.set('lock:a', token, 'EX', LOCK_TTL_MS, 'NX'))) return;
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, 'lock:a', token); }
}
export async function b(token: string, opts: { ttlMs: number }) {
  if (!(await redis.set('lock:b', token, 'EX', opts.ttlMs, 'NX'))) return;
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, 'lock:b', token); }
}
export async function c(token: string) {
  if (!(await redis.set('lock:c', token, 'PX', LEASE, 'NX'))) return;
  await redis.expire('lock:c', HOLD);
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, 'lock:c', token); }
}
export async function d(token: string) {
  if (!(await redis.set('lock:d', token, 'PX', LEASE, 'NX'))) return;
  const renew = setInterval(() => void redis.expire('lock:d', LEASE), 10_000);
  try { await work(); } finally { clearInterval(renew); await redis.eval(${RELEASE}, 1, 'lock:d', token); }
}
`,
    },
    {
      name: 'node-redis { EX: ttlMs } in an acquire helper whose default TTL is 60000',
      message: ['ttlMs', 'PX'],
      output: null,
      code: `${nr}export async function acquireLock(key: string, token: string, ttlMs = 60_000): Promise<boolean> {
  return (await client.set(key, token, { NX: true, EX: ttlMs })) === 'OK';
}
`,
    },
    {
      name: 'SETEX given milliseconds: after a SETNX, and in a GET-compare renewal (ioredis setex, node-redis setEx)',
      count: 2,
      message: ['SETEX, which Redis reads in seconds', 'HOLD_MS', 'PSETEX'],
      output: null,
      code: `${io}const HOLD_MS = 20_000;
export async function grab(job: string, token: string) {
  if (!(await redis.setnx(\`lock:job:\${job}\`, token))) return false;
  await redis.setex(\`lock:job:\${job}\`, HOLD_MS, token);
  return true;
}
export async function keepLock(job: string, token: string) {
  if ((await redis.get(\`lock:job:\${job}\`)) !== token) return false;
  await redis.setex(\`lock:job:\${job}\`, HOLD_MS, token);
  return true;
}
export async function freeLock(job: string, token: string) {
  await redis.eval(${RELEASE}, 1, \`lock:job:\${job}\`, token);
}
`,
    },
    {
      name: 'node-redis setEx given milliseconds in a GET-compare renewal',
      message: ['SETEX', 'leaseMs'],
      output: null,
      code: `${nr}export async function renewLock(name: string, token: string, leaseMs = 15_000) {
  const holder = await client.get(\`lock:\${name}\`);
  if (holder !== token) return false;
  await client.setEx(\`lock:\${name}\`, leaseMs, token);
  return true;
}
`,
    },
    {
      name: 'a redlock lock held for Number.MAX_SAFE_INTEGER ms, or more than a day, never expires in practice',
      count: 2,
      message: ['never expires'],
      output: null,
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
const redlock = new Redlock([new Redis()], { retryCount: 2 });
const FOREVER = Number.MAX_SAFE_INTEGER;
export const grab = (item: string) => redlock.acquire([\`grab:\${item}\`], FOREVER);
export const hold = (room: string) => redlock.acquire([\`room:\${room}\`], 7 * 86_400_000);
export const briefly = (room: string) => redlock.acquire([\`room:\${room}\`], 30_000);
`,
    },
    {
      name: 'Upstash { nx: true } with no TTL: the fix writes the lower-case option',
      code: `${upstash}export async function run(id: string) {
  const ok = await kv.set(\`lock:job:\${id}\`, 'x', { nx: true });
  if (!ok) return;
  await work();
}
`,
      output: `${upstash}export async function run(id: string) {
  const ok = await kv.set(\`lock:job:\${id}\`, 'x', { nx: true, px: 30000 });
  if (!ok) return;
  await work();
}
`,
    },
    {
      name: 'SET NX with no TTL on a lock key',
      message: ['no expiry', 'held forever'],
      code: `${io}export async function run(id: string) {
  const ok = await redis.set(\`lock:job:\${id}\`, 'x', 'NX');
  if (!ok) return;
  await work();
}
`,
      output: `${io}export async function run(id: string) {
  const ok = await redis.set(\`lock:job:\${id}\`, 'x', 'PX', 30000, 'NX');
  if (!ok) return;
  await work();
}
`,
    },
    {
      name: 'SETNX on a key that is released later (a lock, whatever its name)',
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.setnx(key, token))) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
      output: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'node-redis v4 { NX: true } without expiry',
      code: `${nr}export async function run() {
  return client.set('mutex:report', 'x', { NX: true });
}
`,
      output: `${nr}export async function run() {
  return client.set('mutex:report', 'x', { NX: true, PX: 30000 });
}
`,
    },
    {
      name: 'Lua acquire without TTL',
      code: `${io}export async function run() {
  return redis.eval("return redis.call('setnx', KEYS[1], ARGV[1])", 1, 'lock:x', 'token');
}
`,
      output: null,
    },
      {
      name: 'GLIDE cluster set onlyIfDoesNotExist with no expiry',
      message: ['no expiry'],
      code: `${glide}export async function run(id: string) {
  const ok = await cluster.set(\`lock:job:\${id}\`, 'x', { conditionalSet: 'onlyIfDoesNotExist' });
  if (!ok) return;
  await work();
}
`,
      output: `${glide}export async function run(id: string) {
  const ok = await cluster.customCommand(['SET', \`lock:job:\${id}\`, 'x', 'NX', 'PX', String(30000)]);
  if (!ok) return;
  await work();
}
`,
    },
  ],
};
