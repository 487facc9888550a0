import type { RuleCases } from '../harness';
import { expiryStampLock, glide, glideBatch, io, nr, RELEASE_DECL } from './preludes';


/** A per-user topic created once and read back in one MULTI, with `expire` after it. */
const topicOf = (expire: string) => `${io}import { randomUUID } from 'node:crypto';
export async function topicFor(userId: string): Promise<string> {
  const key = \`hub:topic:\${userId}\`;
  const results = await redis.multi().set(key, randomUUID(), 'NX').get(key)${expire}.exec();
  const [err, topic] = (results?.[1] ?? []) as [Error | null, string];
  if (err) throw err;
  return topic;
}
`;

export const atomicAcquireCases: RuleCases = {
  valid: [
    { name: 'get-or-create of a value read back in the same MULTI, its TTL slid on every use by the EXPIRE queued after it', code: topicOf('.expire(key, 3600)') },
    { name: 'MULTI seeding a counter with NX beside other writes, its TTL refreshed on purpose (node-redis)', code: `${nr}export async function track(address: string, tx: string, confirmed: number) {
  await client.multi()
    .sAdd(\`pending:\${address}\`, tx)
    .expire(\`pending:\${address}\`, 600)
    .set(\`confirmed:\${address}\`, String(confirmed), { NX: true })
    .expire(\`confirmed:\${address}\`, 600)
    .exec();
}
` },
    { name: 'a retry counter seeded with SETNX, counted with INCR and given a TTL after: a count, not a claim', code: `${io}export class Retries {
  constructor(private readonly name: string) {}
  private key() {
    return \`retry:\${this.name}\`;
  }
  async attemptUp(limit: number): Promise<number> {
    const key = this.key();
    await redis.setnx(key, -1);
    const count = await redis.incr(key);
    await redis.expire(key, 3600);
    return limit - count - 1;
  }
}
` },
    { name: 'one SET NX PX', code: `${io}export async function run(id: string) {
  const ok = await redis.set(\`lock:\${id}\`, 'x', 'PX', 30000, 'NX');
  if (ok) await work();
}
` },
    { name: 'rate limiter: INCR then EXPIRE', code: `${io}export async function hit(ip: string) {
  const n = await redis.incr(\`rate:\${ip}\`);
  if (n === 1) await redis.expire(\`rate:\${ip}\`, 60);
  return n <= 100;
}
` },
    { name: 'atomic acquire inside Lua (SETNX + PEXPIRE in one script)', code: `${io}const ACQUIRE = "if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 end return 0";
export async function run(key: string, token: string) {
  return redis.eval(ACQUIRE, 1, key, token, 30000);
}
` },
    { name: 'SETNX and EXPIRE on different keys', code: `${io}export async function run() {
  const ok = await redis.setnx('lock:a', 'x');
  await redis.expire('lock:b', 10);
  return ok;
}
` },
    { name: 'GLIDE set onlyIfDoesNotExist with an expiry', code: `${glide}export async function run(id: string) {
  const ok = await valkey.set(\`lock:\${id}\`, 'x', { conditionalSet: 'onlyIfDoesNotExist', expiry: { type: TimeUnit.Seconds, count: 30 } });
  if (ok) await work();
}
` },
  ],
  invalid: [
    {
      name: 'SETNX then EXPIRE of a lock whose value stamps its expiry: a crash between leaves no TTL, and only the racy stale-lock break frees it',
      message: ['only a break of it as a stale lock'],
      code: expiryStampLock,
      output: null,
    },
    {
      name: 'the separate EXPIRE only runs when the work under the lock succeeded: the other path keeps the lock with no TTL',
      message: ['runs only when `held.count > 0`', 'no crash needed'],
      fix: 'Acquire with one SET',
      output: `import { createClient } from 'redis';
const client = createClient();
async function work(): Promise<void> {}
declare function holdStock(sku: string): Promise<{ count: number }>;
export async function reserve(sku: string): Promise<string | null> {
  const key = \`lock:stock:\${sku}\`;
  const taken = await client.set(key, 'held', { NX: true, PX: 3000 });
  if (!taken) return null;
  const held = await holdStock(sku);
  if (held.count > 0) {
    return key;
  }
  return null;
}
`,
      code: `${nr}declare function holdStock(sku: string): Promise<{ count: number }>;
export async function reserve(sku: string): Promise<string | null> {
  const key = \`lock:stock:\${sku}\`;
  const taken = await client.setNX(key, 'held');
  if (!taken) return null;
  const held = await holdStock(sku);
  if (held.count > 0) {
    await client.pExpire(key, 3000);
    return key;
  }
  return null;
}
`,
    },
    {
      name: 'a dedup marker claimed with SETNX and given its TTL by a separate EXPIRE is reported as a claim that may never lapse',
      message: ['Key key (processed:*) is claimed', 'refused for good'],
      code: `${io}export async function firstDelivery(requestId: string): Promise<boolean> {
  const key = \`processed:\${requestId}\`;
  const fresh = await redis.setnx(key, '1');
  if (fresh === 1) await redis.expire(key, 600);
  return fresh === 1;
}
`,
    },
    {
      name: 'Make this a safe lock: atomic TTL, a fresh token for process.pid, compare-and-delete releases',
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
      fix: 'Make this a safe lock',
      output: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
${RELEASE_DECL}const redis = new Redis();
async function work(): Promise<void> {}
export async function charge(id: string) {
  const key = \`lock:order:\${id}\`;
  const token = randomUUID();
  const ok = await redis.set(key, token, 'EX', 30, 'NX');
  if (!ok) return;
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
      name: 'ioredis SETNX then EXPIRE, result tested',
      message: ['separate EXPIRE', 'SET key token NX PX ttl'],
      code: `${io}export async function run(id: string) {
  const key = \`lock:order:\${id}\`;
  const ok = await redis.setnx(key, 'x');
  if (!ok) return;
  await redis.expire(key, 30);
  await work();
}
`,
      output: `${io}export async function run(id: string) {
  const key = \`lock:order:\${id}\`;
  const ok = await redis.set(key, 'x', 'EX', 30, 'NX');
  if (!ok) return;
  await work();
}
`,
    },
    {
      name: 'EXPIRE inside if (ok) is removed with its if',
      code: `${io}export async function run(key: string) {
  const ok = await redis.setnx(key, 'x');
  if (ok) {
    await redis.pexpire(key, 5000);
  }
  return !!ok;
}
`,
      output: `${io}export async function run(key: string) {
  const ok = await redis.set(key, 'x', 'PX', 5000, 'NX');
  return !!ok;
}
`,
    },
    {
      name: 'node-redis setNX + expire, fixed in node-redis syntax',
      code: `${nr}export async function run(key: string, token: string) {
  if (!(await client.setNX(key, token))) return;
  await client.expire(key, 10);
  await work();
}
`,
      output: `${nr}export async function run(key: string, token: string) {
  if (!(await client.set(key, token, { NX: true, EX: 10 }))) return;
  await work();
}
`,
    },
    {
      name: 'SETNX then SETEX: the TTL comes in a second command',
      message: ['given one by a separate SETEX'],
      code: `${io}export async function grabReport(day: string, owner: string) {
  if (!(await redis.setnx(\`lock:report:\${day}\`, owner))) return false;
  await redis.setex(\`lock:report:\${day}\`, 120, owner);
  return true;
}
`,
      output: `${io}export async function grabReport(day: string, owner: string) {
  if (!(await redis.set(\`lock:report:\${day}\`, owner, 'EX', 120, 'NX'))) return false;
  return true;
}
`,
    },
    {
      name: 'node-redis setNX then pSetEx, fixed in node-redis syntax',
      message: ['given one by a separate PSETEX'],
      code: `${nr}export async function grabExport(day: string, owner: string) {
  if (!(await client.setNX(\`lock:export:\${day}\`, owner))) return false;
  await client.pSetEx(\`lock:export:\${day}\`, 90_000, owner);
  return true;
}
`,
      output: `${nr}export async function grabExport(day: string, owner: string) {
  if (!(await client.set(\`lock:export:\${day}\`, owner, { NX: true, PX: 90_000 }))) return false;
  return true;
}
`,
    },
    {
      name: 'SET NX without TTL then PEXPIRE',
      code: `${io}export async function run(key: string) {
  const ok = await redis.set(key, 'x', 'NX');
  await redis.pexpire(key, 3000);
  return ok === 'OK';
}
`,
      output: `${io}export async function run(key: string) {
  const ok = await redis.set(key, 'x', 'PX', 3000, 'NX');
  return ok === 'OK';
}
`,
    },
    {
      name: 'SETNX result compared with 1: no fix (SET NX replies OK|null)',
      code: `${io}export async function run(key: string) {
  const ok = await redis.setnx(key, 'x');
  await redis.expire(key, 30);
  return ok === 1;
}
`,
      output: null,
    },
    {
      name: 'MULTI: EXPIRE runs even when SETNX failed',
      message: ['Inside MULTI', "re-arming the TTL of another holder's lock"],
      code: `${io}export async function run(key: string) {
  return redis.multi().setnx(key, 'x').expire(key, 30).exec();
}
`,
      output: null,
    },
    {
      name: 'pipeline variable',
      message: ['a pipeline is not even a transaction'],
      code: `${io}export async function run(key: string) {
  const p = redis.pipeline();
  p.setnx(key, 'x');
  p.expire(key, 30);
  return p.exec();
}
`,
    },
    {
      name: 'callback style (node_redis v3)',
      fileName: 'legacy.js',
      code: `const redis = require('redis').createClient();
function lock(key, cb) {
  redis.setnx(key, 'x', function (err, ok) {
    if (err || !ok) return cb(err, false);
    redis.expire(key, 30, function () { cb(null, true); });
  });
}
module.exports = { lock };
`,
    },
    {
      name: 'promise chain',
      code: `${io}export function run(key: string) {
  return redis.setnx(key, 'x').then((ok) => (ok ? redis.expire(key, 30) : 0));
}
`,
    },
    {
      name: 'client reached through this, call() and sendCommand',
      count: 2,
      code: `import Redis from 'ioredis';
import { createClient } from 'redis';
export class Locks {
  constructor(private redis: Redis, private client: ReturnType<typeof createClient>) {}
  async a(key: string) {
    await this.redis.call('SETNX', key, 'x');
    await this.redis.call('EXPIRE', key, '30');
  }
  async b(key: string) {
    await this.client?.sendCommand(['SETNX', key, 'x']);
    await this.client?.sendCommand(['EXPIRE', key, '30']);
  }
}
`,
    },
      {
      name: 'GLIDE set onlyIfDoesNotExist, then pexpire',
      code: `${glide}export async function run(id: string) {
  const ok = await valkey.set(\`lock:\${id}\`, 'x', { conditionalSet: 'onlyIfDoesNotExist' });
  await valkey.pexpire(\`lock:\${id}\`, 30000);
  if (ok) await work();
}
`,
      output: `${glide}export async function run(id: string) {
  const ok = await valkey.customCommand(['SET', \`lock:\${id}\`, 'x', 'NX', 'PX', String(30000)]);
  if (ok) await work();
}
`,
    },
      {
      name: 'GLIDE atomic Batch: the pexpire still runs when the acquire failed',
      message: ['Inside MULTI'],
      code: `${glideBatch}export async function run(key: string) {
  const tx = new Batch(true);
  tx.set(key, 'x', { conditionalSet: 'onlyIfDoesNotExist' }).pexpire(key, 30000);
  return valkey.exec(tx, true);
}
`,
      output: null,
    },
    {
      name: 'GLIDE non-atomic Batch chained on new',
      message: ['a pipeline is not even a transaction'],
      code: `${glideBatch}export async function run(key: string) {
  return valkey.exec(new Batch(false).set(key, 'x', { conditionalSet: 'onlyIfDoesNotExist' }).pexpire(key, 30000), false);
}
`,
      output: null,
    },
  ],
};
