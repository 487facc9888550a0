import type { RuleCases } from '../harness';
import { io, nr, RELEASE, waitingLock } from './preludes';

const sleep = `const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
`;

/** A campaign for `leader:<name>` retried every `pollMs`, a share of the lease; `held` is what it does once acquired. */
const campaign = (held: string) => `import Redis from 'ioredis';
import Redlock from 'redlock';
export function campaign(redis: Redis, name: string, ttlSeconds: number, onLead: () => Promise<void>): () => void {
  const redlock = new Redlock([redis], { retryCount: 0 });
  const leaseMs = ttlSeconds * 1000;
  const pollMs = leaseMs / 5;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tryLead = async () => {
    try {
${held}    } catch {
      if (!stopped) timer = setTimeout(tryLead, pollMs);
    }
  };
  timer = setTimeout(tryLead, 0);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
`;

/** A standby: the leader renews its lease, the others try again every `pollMs`. */
const STANDBY = campaign(`      let lease = await redlock.acquire([\`leader:\${name}\`], leaseMs);
      const renew = async () => {
        if (stopped) return;
        try {
          lease = await lease.extend(leaseMs);
          timer = setTimeout(renew, leaseMs / 2);
        } catch {
          timer = setTimeout(tryLead, 0);
        }
      };
      timer = setTimeout(renew, leaseMs / 2);
      await onLead();
`);

/** The same retry of a lock that is taken for one run and released, never renewed. */
const RUN_ONCE = campaign(`      const lease = await redlock.acquire([\`leader:\${name}\`], leaseMs);
      try {
        await onLead();
      } finally {
        await lease.release();
      }
`);

/** A hand-written Redlock quorum: one SET NX per node through Promise.all, retried three times after `wait`. */
const quorum = (wait: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class QuorumLock {
  private readonly nodes = [new Redis(6379), new Redis(6380), new Redis(6381)];
  async acquire(key: string, ttl: number): Promise<string> {
    const token = randomUUID();
    for (let attempt = 0; attempt < 3; attempt++) {
      const won = await Promise.all(this.nodes.map((node) => node.set(key, token, 'PX', ttl, 'NX')));
      if (won.filter((answer) => answer === 'OK').length >= 2) return token;
      await Promise.allSettled(this.nodes.map((node) => node.eval(${RELEASE}, 1, key, token)));
      await new Promise((resolve) => setTimeout(resolve, ${wait}));
    }
    throw new Error('busy');
  }
}
`;

/** A rebuild where the newest request wins: each caller announces its id, a refused one retries after a fixed 500 ms, only while still the newest when `superseded`. */
const newestWins = (superseded: boolean) => `${io}import { randomUUID } from 'node:crypto';
declare function rebuildIndex(): Promise<void>;
export async function requestRebuild(): Promise<'done' | 'superseded' | 'gave-up'> {
  const requestId = randomUUID();
  await redis.set('rebuild:newest', requestId, 'EX', 120);
  for (let round = 0; round < 30; round++) {
    if (await redis.set('lock:rebuild', requestId, 'PX', 60_000, 'NX')) {
      try {
        await rebuildIndex();
        return 'done';
      } finally {
        await redis.eval(${RELEASE}, 1, 'lock:rebuild', requestId);
      }
    }
${superseded ? `    const newest = await redis.get('rebuild:newest');
    if (newest !== requestId) {
      return 'superseded';
    }
` : ''}    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return 'gave-up';
}
`;

export const backoffBetweenRetriesCases: RuleCases = {
  valid: [
    {
      name: 'a poll of a queue whose Lua pops the next entry and claims its scope with SET NX: an empty answer is an empty queue, no holder to wait for',
      code: `${io}const DEQUEUE = \`
local id = redis.call('LPOP', KEYS[1])
if not id then return nil end
local scope = redis.call('HGET', KEYS[2], id)
if not redis.call('SET', 'scope-lock:' .. scope, id, 'PX', ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[1], id)
  return nil
end
return id
\`;
export async function nextEntry(deadline: number): Promise<string | null> {
  do {
    const id = await redis.eval(DEQUEUE, 2, 'queue', 'entry-scopes', 30_000);
    if (id) return String(id);
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 250));
  } while (true);
}
`,
    },
    {
      name: 'a loop that takes the lock for each round of work and leaves as soon as it is busy (`if (!ok) break`): no retry of a busy lock',
      code: `${io}declare function processNext(rowId: string): Promise<boolean>;
export async function drainRow(rowId: string, token: string) {
  const key = \`lock:row:\${rowId}\`;
  while (true) {
    const ok = await redis.set(key, token, 'PX', 30_000, 'NX');
    if (!ok) break;
    try {
      if (!(await processNext(rowId))) break;
    } finally {
      await redis.eval(${RELEASE}, 1, key, token);
    }
  }
}
`,
    },
    {
      name: "a retry that waits for the holder's release (`waitForRelease(key, 0)`), a wait of no known length: its arguments are no delay",
      code: `${io}declare function waitForRelease(key: string, graceMs: number): Promise<void>;
export async function lockRow(rowId: string, token: string, deadline: number): Promise<boolean> {
  const key = \`lock:row:\${rowId}\`;
  for (;;) {
    if (await redis.set(key, token, 'PX', 30_000, 'NX')) return true;
    if (Date.now() > deadline) return false;
    await waitForRelease(key, 0);
  }
}
`,
    },
    { name: 'a standby polling for a lease its holder renews, every share of the lease length', code: STANDBY },
    { name: 'a fixed wait of a caller that retries only while it is still the newest request (its own id under a shared key): one retrier, no lockstep', code: newestWins(true) },
    { name: 'a single pass over a pool of wallets, each round trying the next one: a scan of different keys, not a retry', code: `${io}const wallets = ['0xa', '0xb', '0xc'];
export async function pickWallet(token: string): Promise<string | undefined> {
  let i = Math.floor(Math.random() * wallets.length);
  let count = 0;
  while (count++ < wallets.length) {
    const wallet = wallets[i++ % wallets.length];
    if (await redis.set(\`lock:wallet:\${wallet}\`, token, 'PX', 30000, 'NX')) return wallet;
  }
  return undefined;
}
` },
    { name: 'a wait through a method of the class that polls with jitter: its argument is an id, not a delay', code: `${io}export class TokenRefresher {
  async refresh(id: string): Promise<string> {
    const key = \`refresh-lock:\${id}\`;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await redis.set(key, '1', 'EX', 20, 'NX')) {
        try {
          return await this.fetchToken(id);
        } finally {
          await redis.del(key);
        }
      }
      const fresh = await this.waitForFreshToken(id);
      if (fresh) return fresh;
    }
    throw new Error('no token');
  }
  private async waitForFreshToken(id: string): Promise<string | null> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const pause = 200 + Math.floor(Math.random() * 200);
      await new Promise((resolve) => setTimeout(resolve, pause));
      const token = await redis.get(\`token:\${id}\`);
      if (token) return token;
    }
    return null;
  }
  private async fetchToken(id: string): Promise<string> {
    return id;
  }
}
` },
    { name: 'a loop that draws a fresh random key each attempt (a nonce reserved with SET NX) retries no lock', code: `${io}import { randomBytes } from 'node:crypto';
export async function reserveNonce(payload: string): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const nonce = randomBytes(32).toString('base64url');
    const created = await redis.set(\`oauth:state:\${nonce}\`, payload, 'EX', 600, 'NX');
    if (created === 'OK') return nonce;
  }
  throw new Error('no unique nonce');
}
` },
    {
      name: 'setInterval timers that are no retry of the acquire: a poller that keeps ticking, one stopped by a shutdown flag',
      code: `${io}let shuttingDown = false;
export function startSweeper(holder: string) {
  const sweeper = setInterval(async () => {
    const granted = await redis.set('sweeper', holder, 'PX', 8000, 'NX');
    if (granted !== 'OK') return;
    await work();
  }, 1000);
  return sweeper;
}
export function startReporter(holder: string) {
  const reporter = setInterval(async () => {
    const granted = await redis.set('reporter', holder, 'PX', 8000, 'NX');
    if (shuttingDown) {
      clearInterval(reporter);
      return;
    }
    if (granted === 'OK') await work();
  }, 1000);
}
`,
    },
    {
      name: 'a prototype method whose acquire callback calls it again through a saved `this` after a random wait',
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
function Gate(client) { this.client = client; }
Gate.prototype.enter = function (room, guest, done) {
  var self = this;
  self.client.set('gate:' + room, guest, 'PX', 4000, 'NX', function (err, reply) {
    if (err) return done(err);
    if (reply !== 'OK') return setTimeout(function () { self.enter(room, guest, done); }, 25 + Math.random() * 50);
    done(null);
  });
};
module.exports = Gate;
`,
    },
    { name: 'a job that runs itself again after it released the lock it took (the not-acquired path returns) retries no acquire', code: `${io}import { randomUUID } from 'node:crypto';
export class Sync {
  async syncOne(id: string): Promise<void> {
    const key = \`lock:sync:\${id}\`;
    const token = randomUUID();
    if (!(await redis.set(key, token, 'PX', 60000, 'NX'))) return;
    let again = false;
    try {
      await work();
    } catch {
      again = true;
    }
    await redis.eval(${RELEASE}, 1, key, token);
    if (again) void this.syncOne(id);
  }
}
` },
    { name: 'an indexed loop over keys that leaves when one is busy takes another lock each time round: no retry', code: `${io}export async function lockAll(keys: string[], token: string): Promise<boolean> {
  for (let i = 0; i < keys.length; i++) {
    const ok = await redis.set(\`lock:seat:\${keys[i]}\`, token, 'PX', 10000, 'NX');
    if (ok !== 'OK') {
      for (let j = 0; j < i; j++) await redis.del(\`lock:seat:\${keys[j]}\`);
      return false;
    }
  }
  return true;
}
` },
    { name: 'jittered wait', code: `${io}${sleep}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await sleep(50 + Math.random() * 100);
  }
  return false;
}
` },
    { name: 'exponential backoff with jitter through a const', code: `${nr}${sleep}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 8; attempt++) {
    if (await client.set(key, token, { NX: true, PX: 1000 })) return true;
    const wait = Math.min(2000, 25 * 2 ** attempt) * (0.5 + Math.random());
    await sleep(wait);
  }
  return false;
}
` },
    { name: 'jitter added to a let before the wait', code: `${io}${sleep}export async function take(key: string, token: string) {
  let delay = 25;
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    delay = Math.min(1000, delay * 2) * (0.5 + Math.random());
    await sleep(delay);
  }
  return false;
}
` },
    { name: 'a delay computed by a method of the lock class that adds jitter', code: `${io}${sleep}export class RedisLock {
  constructor(private readonly retryMs: number) {}
  private retryDelay(): number {
    return this.retryMs / 2 + Math.random() * this.retryMs;
  }
  async take(key: string, token: string) {
    for (let attempt = 0; attempt < 10; attempt++) {
      if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
      await sleep(this.retryDelay());
    }
    return false;
  }
}
` },
    { name: 'a delay computed by a function we cannot see', code: `${io}${sleep}declare function backoffFor(attempt: number): number;
export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await sleep(backoffFor(attempt));
  }
  return false;
}
` },
    { name: 'a worker loop that waits a fixed interval is a poll, not a retry', code: `${io}${sleep}export async function worker(token: string) {
  for (;;) {
    const ok = await redis.set('lock:poll', token, 'PX', 1000, 'NX');
    if (ok) await work();
    await sleep(1000);
  }
}
` },
    { name: 'recursion with a jittered wait', code: `${io}${sleep}export async function take(key: string, token: string, attempts = 10): Promise<boolean> {
  if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
  if (attempts === 0) return false;
  await sleep(100 + Math.random() * 100);
  return take(key, token, attempts - 1);
}
` },
    { name: 'a callback-style retry scheduled with a jittered setTimeout', code: `${io}export function lock(key: string, token: string, done: (err: Error | null) => void, tries = 0): void {
  redis.set(key, token, 'PX', 1000, 'NX', (err, ok) => {
    if (err) return done(err);
    if (ok) return done(null);
    if (tries >= 10) return done(new Error('busy'));
    setTimeout(() => lock(key, token, done, tries + 1), 50 + Math.random() * 100);
  });
}
` },
    { name: 'a callback that runs itself again after it took the lock (the next batch) retries no acquire', code: `${io}export function drain(key: string, token: string): void {
  redis.set(key, token, 'PX', 1000, 'NX', (err, ok) => {
    if (ok) {
      setTimeout(drain, 1000, key, token);
    }
  });
}
` },
    { name: 'redlock with jitter', code: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: 10, retryDelay: 200, retryJitter: 100 });
` },
    { name: 'a retry helper declared inside the acquire that waits a jittered delay', code: `${io}export async function grab(key: string, token: string, onLocked: () => void, attempt = 0): Promise<void> {
  function scheduleAgain() {
    if (attempt < 20) setTimeout(() => void grab(key, token, onLocked, attempt + 1), 40 + Math.random() * 80);
  }
  if ((await redis.set(key, token, 'PX', 5000, 'NX')) === 'OK') onLocked();
  else scheduleAgain();
}
` },
    { name: 'a quorum acquire over several nodes (Promise.all of one SET NX per node) retried after a random wait', code: quorum('100 + Math.random() * 100') },
    { name: 'a retry chained on a wait for the release message waits for that message: no spin, and no fixed delay to judge', code: waitingLock(false) },
  ],
  invalid: [
    {
      name: 'the same announced id, but a refused caller retries after a fixed wait without asking whether it is still the newest',
      message: ['waits `500`'],
      code: newestWins(false),
      output: newestWins(false).replace('setTimeout(resolve, 500)', 'setTimeout(resolve, 250 + Math.random() * 500)'),
    },
    { name: 'a fixed retry of a lock taken for one run (no renewal): the losers retry in lockstep', message: ['waits `pollMs` between attempts'], code: RUN_ONCE, output: RUN_ONCE.replace('setTimeout(tryLead, pollMs)', 'setTimeout(tryLead, pollMs / 2 + Math.random() * pollMs)') },
    {
      name: 'a quorum acquire over several nodes (Promise.all of one SET NX per node) retried after a fixed wait',
      message: ['waits `250`'],
      code: quorum('250'),
    },
    {
      name: 'a wait that grows with the time waited so far (`Math.pow(1.5, elapsed / 100)`), capped, with no random part: waiters that started together wait alike',
      message: ['waits `waitTime`', 'no random part'],
      code: `${io}export async function acquire(key: string, ttl = 5000, timeout = 10000): Promise<string | null> {
  const token = crypto.randomUUID();
  const start = Date.now();
  while (Date.now() - start < timeout) {
    if ((await redis.set(\`lock:\${key}\`, token, 'PX', ttl, 'NX')) === 'OK') return token;
    const waitTime = Math.min(100 * Math.pow(1.5, Math.floor((Date.now() - start) / 100)), 500);
    await new Promise((resolve) => setTimeout(resolve, waitTime));
  }
  return null;
}
`,
    },
    {
      name: 'a wait that doubles up to a cap with no random part: the losers double together',
      message: ['no random part'],
      code: `import Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
const redis = new Redis();
export async function takeLock(key: string, token: string): Promise<boolean> {
  let delay = 50;
  for (let attempt = 0; attempt < 8; attempt++) {
    if ((await redis.set(key, token, 'PX', 10000, 'NX')) === 'OK') return true;
    await sleep(delay);
    delay = Math.min(delay * 2, 2000);
  }
  return false;
}
`,
    },
    {
      name: 'a recursion retry that draws a random token (randomUUID, Math.random().toString) but waits a fixed time',
      message: ['waits `2000`'],
      code: `${io}import { randomUUID } from 'node:crypto';
export async function refresh(attempt = 0): Promise<void> {
  if (attempt > 10) throw new Error('busy');
  const token = randomUUID() + Math.random().toString(36).slice(2);
  if (!(await redis.set('lock:oauth', token, 'EX', 90, 'NX'))) {
    await new Promise((r) => setTimeout(r, 2000));
    return refresh(attempt + 1);
  }
  await work();
}
`,
    },
    {
      name: 'a fresh token each attempt but the same key: still a retry of one lock, with no wait',
      message: ['no wait between attempts'],
      code: `${io}import { randomUUID } from 'node:crypto';
export async function take(job: string): Promise<string> {
  for (;;) {
    const token = randomUUID();
    if ((await redis.set(\`lock:job:\${job}\`, token, 'PX', 5000, 'NX')) === 'OK') return token;
  }
}
`,
    },
    {
      name: 'a setInterval that tries the acquire every 25 ms and clears itself once the lock is taken',
      message: ['This timer retries the acquire', 'every `25` ms'],
      output: null,
      code: `${io}export function waitForSlot(slot: string, holder: string): Promise<void> {
  return new Promise((resolve) => {
    const ticker = setInterval(async () => {
      const granted = await redis.set(\`slot:\${slot}\`, holder, 'PX', 8000, 'NX');
      if (granted === 'OK') {
        clearInterval(ticker);
        resolve();
      }
    }, 25);
  });
}
`,
    },
    {
      name: 'a setInterval whose node-style acquire callback clears it when the reply says taken',
      message: ['This timer retries the acquire', 'every `40` ms'],
      fileName: 'case.js',
      output: null,
      code: `const Redis = require('ioredis');
const redis = new Redis();
function waitForSlot(slot, holder, done) {
  const ticker = setInterval(() => {
    redis.set('slot:' + slot, holder, 'PX', 8000, 'NX', (err, reply) => {
      if (err) return;
      if (reply !== 'OK') return;
      clearInterval(ticker);
      done();
    });
  }, 40);
}
module.exports = waitForSlot;
`,
    },
    {
      name: 'a prototype method whose acquire callback calls it again through a saved `this` at once: a busy spin',
      message: ['This recursion retries', 'no wait between attempts'],
      fileName: 'case.js',
      output: null,
      code: `const Redis = require('ioredis');
function Gate(client) { this.client = client; }
Gate.prototype.enter = function (room, guest, done) {
  var self = this;
  self.client.set('gate:' + room, guest, 'PX', 4000, 'NX', function (err, reply) {
    if (err) return done(err);
    if (reply !== 'OK') return self.enter(room, guest, done);
    done(null);
  });
};
module.exports = Gate;
`,
    },
    {
      name: 'a retry helper declared inside the acquire reschedules it after a fixed delay',
      message: ['waits `pauseMs`', 'no random part'],
      code: `${io}export async function grab(key: string, token: string, pauseMs: number, onLocked: () => void, attempt = 0): Promise<void> {
  const scheduleAgain = () => {
    if (attempt < 20) setTimeout(() => void grab(key, token, pauseMs, onLocked, attempt + 1), pauseMs);
  };
  if ((await redis.set(key, token, 'PX', 5000, 'NX')) === 'OK') onLocked();
  else scheduleAgain();
}
`,
      output: `${io}export async function grab(key: string, token: string, pauseMs: number, onLocked: () => void, attempt = 0): Promise<void> {
  const scheduleAgain = () => {
    if (attempt < 20) setTimeout(() => void grab(key, token, pauseMs, onLocked, attempt + 1), pauseMs / 2 + Math.random() * pauseMs);
  };
  if ((await redis.set(key, token, 'PX', 5000, 'NX')) === 'OK') onLocked();
  else scheduleAgain();
}
`,
    },
    {
      name: 'ioredis busy spin',
      message: ['no wait between attempts', 'busy spin'],
      output: null,
      code: `${io}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
  }
  return false;
}
`,
    },
    {
      name: 'node-redis while (!ok) spin',
      code: `${nr}export async function take(key: string, token: string, deadline: number) {
  let ok = null;
  while (!ok && Date.now() < deadline) {
    ok = await client.set(key, token, { NX: true, PX: 1000 });
  }
  return ok === 'OK';
}
`,
    },
    {
      name: 'fixed wait, no jitter',
      message: ['waits `100`', 'lockstep'],
      code: `${io}${sleep}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await sleep(100);
  }
  return false;
}
`,
      output: `${io}${sleep}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await sleep(50 + Math.random() * 100);
  }
  return false;
}
`,
    },
    {
      name: 'a delay computed by a method of the lock class that only converts units',
      message: ['waits `interval`', 'lockstep'],
      code: `${io}${sleep}export class RedisLock {
  constructor(private readonly every: number, private readonly unit: 'ms' | 's') {}
  private retryInterval(): number {
    if (this.unit === 'ms') return this.every;
    return this.every * 1000;
  }
  async take(key: string, token: string) {
    const interval = this.retryInterval();
    for (let attempt = 0; attempt < 10; attempt++) {
      if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
      await sleep(interval);
    }
    return false;
  }
}
`,
      output: `${io}${sleep}export class RedisLock {
  constructor(private readonly every: number, private readonly unit: 'ms' | 's') {}
  private retryInterval(): number {
    if (this.unit === 'ms') return this.every;
    return this.every * 1000;
  }
  async take(key: string, token: string) {
    const interval = this.retryInterval();
    for (let attempt = 0; attempt < 10; attempt++) {
      if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
      await sleep(interval / 2 + Math.random() * interval);
    }
    return false;
  }
}
`,
    },
    {
      name: 'node-redis v5: fixed setTimeout through a const',
      code: `${nr}const RETRY_MS = 200;
export async function take(key: string, token: string) {
  for (let i = 0; i < 5; i++) {
    const ok = await client.set(key, token, { condition: 'NX', expiration: { type: 'PX', value: 1000 } });
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  return false;
}
`,
      output: `${nr}const RETRY_MS = 200;
export async function take(key: string, token: string) {
  for (let i = 0; i < 5; i++) {
    const ok = await client.set(key, token, { condition: 'NX', expiration: { type: 'PX', value: 1000 } });
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS / 2 + Math.random() * RETRY_MS));
  }
  return false;
}
`,
    },
    {
      name: 'recursion with no wait',
      message: ['This recursion retries'],
      code: `${io}export async function take(key: string, token: string, attempts = 10): Promise<boolean> {
  if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
  return attempts > 0 ? take(key, token, attempts - 1) : false;
}
`,
    },
    {
      name: 'recursion with a fixed wait',
      code: `${nr}${sleep}export async function take(key: string, token: string, attempts = 10): Promise<boolean> {
  if (await client.set(key, token, { NX: true, PX: 1000 })) return true;
  if (attempts === 0) return false;
  await sleep(250);
  return take(key, token, attempts - 1);
}
`,
      output: `${nr}${sleep}export async function take(key: string, token: string, attempts = 10): Promise<boolean> {
  if (await client.set(key, token, { NX: true, PX: 1000 })) return true;
  if (attempts === 0) return false;
  await sleep(125 + Math.random() * 250);
  return take(key, token, attempts - 1);
}
`,
    },
    {
      name: 'callback style: the acquire\'s callback schedules the function again with a fixed setTimeout',
      message: ['waits `options.retryDelay || 100`', 'no random part'],
      code: `${io}export function lock(key: string, token: string, options: { retryDelay?: number }, done: (err: Error | null) => void) {
  let tries = 0;
  const tryLock = () => {
    redis.set(key, token, 'PX', 15000, 'NX', (err, locked) => {
      if (err) return done(err);
      if (locked) return done(null);
      if (++tries > 100) return done(new Error('lock: exceeds retry count'));
      setTimeout(tryLock, options.retryDelay || 100);
    });
  };
  tryLock();
}
`,
      output: `${io}export function lock(key: string, token: string, options: { retryDelay?: number }, done: (err: Error | null) => void) {
  let tries = 0;
  const tryLock = () => {
    redis.set(key, token, 'PX', 15000, 'NX', (err, locked) => {
      if (err) return done(err);
      if (locked) return done(null);
      if (++tries > 100) return done(new Error('lock: exceeds retry count'));
      setTimeout(tryLock, (options.retryDelay || 100) / 2 + Math.random() * (options.retryDelay || 100));
    });
  };
  tryLock();
}
`,
    },
    {
      name: 'redlock retryJitter: 0',
      message: ['retryJitter: 0'],
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: 10, retryDelay: 200, retryJitter: 0 });
`,
      output: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: 10, retryDelay: 200, retryJitter: 100 });
`,
    },
    {
      name: 'a counted loop whose key does not depend on the counter retries one key',
      code: `${io}export async function take(id: string, token: string): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await redis.set(\`lock:job:\${id}\`, token, 'PX', 10000, 'NX')) return true;
  }
  return false;
}
`,
    },
    {
      name: 'through a helper acquire: a spin',
      config: { helpers: { acquire: ['tryLock'], release: [], extend: [] } },
      code: `declare function tryLock(key: string): Promise<boolean>;
export async function take(key: string) {
  while (!(await tryLock(key))) {
    // try again
  }
}
`,
    },
  ],
};
