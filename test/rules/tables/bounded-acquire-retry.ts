import type { RuleCases } from '../harness';
import { io, RELEASE, waitingLock } from './preludes';

const pause = `const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
`;

export const boundedAcquireRetryCases: RuleCases = {
  valid: [
    { name: 'an endless loop drawing a fresh random key until one is free allocates an id, it waits for no holder', code: `${io}import { randomUUID } from 'node:crypto';
export async function allocateShortCode(url: string): Promise<string> {
  while (true) {
    const code = randomUUID().slice(0, 8);
    if (await redis.set(\`short:\${code}\`, url, 'NX')) return code;
  }
}
` },
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
    { name: 'the attempts counted in Redis (INCR), compared through a variable or a method of the same class', code: `${io}${pause}const MAX_ATTEMPTS = 5;
export class Locks {
  async take(key: string, token: string): Promise<boolean> {
    while (true) {
      if (await redis.set(key, token, 'PX', 30000, 'NX')) return true;
      const exhausted = (await redis.incr(\`attempts:\${key}\`)) > MAX_ATTEMPTS;
      if (exhausted) return false;
      await pause(100 + Math.random() * 100);
    }
  }
  async takeOrGiveUp(key: string, token: string): Promise<boolean> {
    while (true) {
      if (await redis.set(key, token, 'PX', 30000, 'NX')) return true;
      if (await this.exceeded(key)) return false;
      await pause(100 + Math.random() * 100);
    }
  }
  private async exceeded(key: string): Promise<boolean> {
    const n = await redis.incr(\`attempts:\${key}\`);
    return n > MAX_ATTEMPTS;
  }
}
` },
    { name: 'attempt-limited for loop', code: `${io}${pause}export async function take(key: string, token: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await pause(50 + Math.random() * 50);
  }
  return false;
}
` },
    { name: 'deadline in the condition', code: `${io}${pause}export async function take(key: string, token: string, waitMs: number) {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return true;
    await pause(50);
  }
  return false;
}
` },
    { name: 'while(true) with a bounded exit', code: `${io}${pause}export async function take(key: string, token: string) {
  let tries = 0;
  while (true) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return;
    if (++tries > 5) throw new Error('busy');
    await pause(100);
  }
}
` },
    { name: 'a worker loop that does not stop when it gets the lock is not a retry', code: `${io}${pause}export async function worker(token: string) {
  for (;;) {
    const ok = await redis.set('lock:poll', token, 'PX', 1000, 'NX');
    if (ok) await work();
    await pause(1000);
  }
}
` },
    { name: 'a callback-style retry that counts its tries', code: `${io}export function lock(key: string, token: string, done: (err: Error | null) => void) {
  let tries = 0;
  const tryLock = () => {
    redis.set(key, token, 'PX', 15000, 'NX', (err, locked) => {
      if (locked) return done(null);
      if (++tries > 100) return done(new Error('busy'));
      setTimeout(tryLock, 50 + Math.random() * 100);
    });
  };
  tryLock();
}
` },
    {
      name: 'a prototype method that calls itself again with one try fewer, and a bare call of another function of the same name',
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
function enter() { return null; }
function Gate(client) { this.client = client; }
Gate.prototype.enter = function (room, guest, triesLeft, done) {
  var that = this;
  that.client.set('gate:' + room, guest, 'PX', 4000, 'NX', function (err, reply) {
    if (err) return done(err);
    if (reply === 'OK') return done(null);
    if (triesLeft <= 0) return done(new Error('gate busy'));
    setTimeout(function () { that.enter(room, guest, triesLeft - 1, done); }, 20 + Math.random() * 40);
  });
};
Gate.prototype.peek = function (room, guest, done) {
  this.client.set('gate:' + room, guest, 'PX', 4000, 'NX', function (err, reply) {
    if (reply !== 'OK') enter();
    done(err, reply === 'OK');
  });
};
module.exports = Gate;
`,
    },
    {
      name: 'callback style: the function runs again only after its not-acquired guard returned, once its turn is done',
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
const redis = new Redis();
function nightlyRound(shift, worker, done) {
  redis.set('lock:shift:' + shift, worker, 'PX', 4000, 'NX', function (err, granted) {
    if (err) return done(err);
    if (!granted) return done(new Error('shift taken'));
    done(null);
    nightlyRound(shift, worker, done);
  });
}
module.exports = nightlyRound;
`,
    },
    { name: 'finite redlock retryCount', code: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: 10, retryDelay: 200 });
` },
    { name: 'a retry helper declared inside the acquire that passes on a growing attempt count', code: `${io}export async function grab(key: string, token: string, onLocked: () => void, attempt = 0): Promise<void> {
  const again = () => setTimeout(() => void grab(key, token, onLocked, attempt + 1), 50 + Math.random() * 100);
  try {
    if ((await redis.set(key, token, 'PX', 5000, 'NX')) === null) throw new Error('held');
    onLocked();
  } catch {
    again();
  }
}
` },
    {
      name: 'a loop left by the acquire or by a cancellation its caller sets (a timeout racing it)',
      code: `${io}${pause}export async function hold(key: string, token: string, cancellation: { cancelled: boolean }) {
  while (true) {
    if (cancellation.cancelled) throw new Error('gave up waiting for ' + key);
    if ((await redis.set(key, token, 'PX', 1000, 'NX')) === 'OK') break;
    await pause(50 + Math.random() * 50);
  }
}
`,
    },
    { name: 'a retry chained on a wait for the release message, counting its attempts', code: waitingLock(true) },
  ],
  invalid: [
    {
      name: 'a retry chained on a wait for the release message (.then(() => take again)), with no attempt limit',
      message: ['no attempt limit'],
      code: waitingLock(false),
    },
    {
      name: 'while (true) left only when the acquire succeeds: its TTL argument named timeout is no limit',
      message: ['This loop retries', 'no attempt limit'],
      code: `${io}${pause}export async function waitFor(lockKey: string, delayMs: number, timeout: number): Promise<void> {
  while (true) {
    if ((await redis.set(lockKey, 'w' + Math.random(), 'EX', timeout, 'NX')) === 'OK') {
      break;
    }
    await pause(delayMs + Math.random() * delayMs);
  }
}
`,
    },
    {
      name: 'recursion that hands its wait parameter back unchanged (a retry delay is no attempt count)',
      message: ['This recursion retries', 'no attempt limit'],
      code: `${io}${pause}export async function take(key: string, token: string, retryDelayMs: number): Promise<void> {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok) {
    await pause(retryDelayMs + Math.random() * 50);
    return take(key, token, retryDelayMs);
  }
}
`,
    },
    {
      name: 'a retry helper declared inside the acquire reschedules it with the same arguments (the wait and the TTL are no limits)',
      message: ['This recursion retries', 'no attempt limit'],
      code: `${io}export async function grab(key: string, token: string, ttlTimeout: number, retryDelay: number, onLocked: () => void): Promise<void> {
  function scheduleAgain() {
    setTimeout(() => {
      void grab(key, token, ttlTimeout, retryDelay, onLocked);
    }, retryDelay + Math.random() * retryDelay);
  }
  try {
    const reply = await redis.set(key, token, 'PX', ttlTimeout, 'NX');
    if (reply === null) throw new Error('held');
    onLocked();
  } catch {
    scheduleAgain();
  }
}
`,
    },
    {
      name: 'a wait loop whose condition is the failed acquire itself, with a constant value and no limit',
      message: ['no attempt limit'],
      code: `${io}${pause}export async function waitForUsageLock(id: string) {
  while (!(await redis.set(\`lock:usage:\${id}\`, '1', 'EX', 60, 'NX'))) {
    await pause(500);
  }
}
`,
    },
    {
      name: 'a flag that is not a bound does not bound the loop, nor does a method that compares nothing',
      count: 2,
      output: null,
      code: `${io}${pause}export class Locks {
  async take(key: string, token: string): Promise<boolean> {
    while (true) {
      if (await redis.set(key, token, 'PX', 30000, 'NX')) return true;
      const busy = (await redis.get(key)) !== null;
      if (!busy) continue;
      await pause(100 + Math.random() * 100);
    }
  }
  async takeOrWait(key: string, token: string): Promise<boolean> {
    while (true) {
      if (await redis.set(key, token, 'PX', 30000, 'NX')) return true;
      if (await this.closed()) return false;
      await pause(100 + Math.random() * 100);
    }
  }
  private async closed(): Promise<boolean> {
    return (await redis.get('app:state')) === 'closed';
  }
}
`,
    },
    {
      name: 'while (!acquired) spin',
      message: ['no attempt limit or deadline'],
      code: `${io}${pause}export async function take(key: string, token: string) {
  let acquired = null;
  while (!acquired) {
    acquired = await redis.set(key, token, 'PX', 1000, 'NX');
    if (!acquired) await pause(100);
  }
}
`,
    },
    {
      name: 'while (true) returning on success',
      code: `${io}${pause}export async function take(key: string, token: string) {
  while (true) {
    if (await redis.set(key, token, 'PX', 1000, 'NX')) return;
    await pause(100);
  }
}
`,
    },
    {
      name: 'recursion without an attempt count',
      message: ['recursion'],
      code: `${io}${pause}export async function take(key: string, token: string): Promise<void> {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok) {
    await pause(100);
    return take(key, token);
  }
}
`,
    },
    {
      name: 'callback style: the acquire\'s callback calls the function again from a setTimeout, with no limit',
      message: ['This recursion retries', 'no attempt limit'],
      code: `${io}export function lock(key: string, token: string, done: () => void): void {
  redis.set(key, token, 'PX', 3000, 'NX', (err, ok) => {
    if (ok) return done();
    setTimeout(() => lock(key, token, done), 50 + Math.random() * 100);
  });
}
`,
    },
    {
      name: 'a prototype method whose acquire callback calls it again through a saved `this`, with no limit',
      message: ['This recursion retries', 'no attempt limit'],
      fileName: 'case.js',
      code: `const Redis = require('ioredis');
function Gate(client) { this.client = client; }
Gate.prototype.enter = function (room, guest, done) {
  var that = this;
  that.client.set('gate:' + room, guest, 'PX', 4000, 'NX', function (err, reply) {
    if (err) return done(err);
    if (reply !== 'OK') return setTimeout(function () { that.enter(room, guest, done); }, 20 + Math.random() * 40);
    done(null);
  });
};
module.exports = Gate;
`,
    },
    {
      name: 'redlock retryCount: -1',
      message: ['retry the acquire forever'],
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: -1, retryDelay: 200 });
`,
      output: `import Redis from 'ioredis';
import Redlock from 'redlock';
export const redlock = new Redlock([new Redis()], { retryCount: 10, retryDelay: 200 });
`,
    },
    {
      name: 'redlock retryCount: -1 in a const options record spread into the constructor',
      message: ['retry the acquire forever'],
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const LOCK_OPTIONS = { retryCount: -1, retryDelay: 200 };
export const redlock = new Redlock([new Redis()], { ...LOCK_OPTIONS, retryJitter: 50 });
`,
      output: `import Redis from 'ioredis';
import Redlock from 'redlock';
const LOCK_OPTIONS = { retryCount: 10, retryDelay: 200 };
export const redlock = new Redlock([new Redis()], { ...LOCK_OPTIONS, retryJitter: 50 });
`,
    },
    {
      name: 'redis-semaphore acquireTimeout: Infinity',
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export const make = (redis: Redis) => new Mutex(redis, 'job', { acquireTimeout: Infinity, onLockLost: () => undefined });
`,
    },
  ],
};
