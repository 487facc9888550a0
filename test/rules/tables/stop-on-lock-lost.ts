import type { RuleCases } from '../harness';
import { EXTEND, io, nr } from './preludes';

/**
 * A lock object of a package the analyzer does not know (an organisation's shared library, declared
 * here so the table type-checks), renewed
 * by a setInterval watchdog whose catch `onFailure` runs.
 */
function packageLockWatchdog(onFailure: string, receiver = 'settlementLock'): string {
  return `interface PlatformLock { acquire(key: string, ttlMs: number): Promise<boolean>; extend(ttlMs: number): Promise<void>; release(): Promise<void> }
declare function createLock(options: { ttlMs: number }): PlatformLock;
const ${receiver} = createLock({ ttlMs: 15000 });
declare function settle(batch: string, signal?: AbortSignal): Promise<void>;
export async function runSettlement(batch: string) {
  if (!(await ${receiver}.acquire(\`settle:\${batch}\`, 15000))) return;
  const controller = new AbortController();
  const keepAlive = setInterval(async () => {
    try {
      await ${receiver}.extend(15000);
    } catch (err) {
      ${onFailure}
      clearInterval(keepAlive);
    }
  }, 5000);
  try {
    await settle(batch, controller.signal);
  } finally {
    clearInterval(keepAlive);
    await ${receiver}.release();
  }
}
`;
}

/**
 * A background renew loop (`while (running) { extend; sleep }`), started with `void` (a watchdog) or
 * awaited (the work itself), whose failed extend either stops the work or is only logged.
 */
function renewLoop(start: 'void' | 'await', onFailure: 'stops' | 'logs'): string {
  const params = onFailure === 'stops' ? 'lockKey: string, token: string, abort: (err: unknown) => void' : 'lockKey: string, token: string';
  const extend = onFailure === 'stops'
    ? `if ((await redis.eval(${EXTEND}, 1, lockKey, token, 30000)) !== 1) throw new Error('lost');`
    : `await redis.eval(${EXTEND}, 1, lockKey, token, 30000);`;
  const failed = onFailure === 'stops' ? `running = false;
        abort(err);` : `console.warn('renew failed', err);`;
  return `${io}export async function run(${params}) {
  let running = true;
  const renewer = async () => {
    while (running) {
      try {
        ${extend}
      } catch (err) {
        ${failed}
      }
      await new Promise((resolve) => setTimeout(resolve, 10000));
    }
  };
  ${start} renewer();
  try {
    await work();
  } finally {
    running = false;
  }
}
`;
}

/**
 * A setInterval watchdog that awaits its renewal `script` with `onError` appended and never reads the
 * reply, around the job; `declarations` come first.
 */
function awaitedRenewal(script: string, onError: string, declarations = ''): string {
  return `${io}${declarations}export async function withLock(lockKey: string, token: string, job: () => Promise<void>) {
  const timer = setInterval(async () => {
    await redis.eval(${script}, 1, lockKey, token, 30000)${onError};
  }, 10000);
  try {
    await job();
  } finally {
    clearInterval(timer);
  }
}
`;
}

/** A watchdog whose extend answers false from `.catch(() => false)`; `onLost` is the branch testing that answer. */
const answeredFalse = (onLost: string) => `${io}const EXTEND_SCRIPT = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end';
export class Sessions {
  private readonly sockets = new Map<string, { end(): void }>();
  keepAlive(userId: string, token: string): NodeJS.Timeout {
    return setInterval(async () => {
      const renewed = await redis.eval(EXTEND_SCRIPT, 1, \`lock:session:\${userId}\`, token, 30000).catch(() => false);
      if (!renewed) {
        console.warn('session lock lost', userId);
${onLost}
      }
    }, 10000);
  }
}
`;

/** A redlock v5 lock renewed by a function that re-arms itself with setTimeout, `onFailure` in its catch. */
const selfArmingWatchdog = (onFailure: string) => `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
export async function publish(run: (signal: AbortSignal) => Promise<void>) {
  let lock = await redlock.acquire(['lock:publish'], 30000);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  async function extendLock() {
    try {
      lock = await lock.extend(30000);
    } catch (err) {
      ${onFailure}
      return;
    }
    timer = setTimeout(extendLock, lock.expiration - Date.now() - 5000);
  }
  timer = setTimeout(extendLock, 25000);
  try {
    await run(controller.signal);
  } finally {
    clearTimeout(timer);
    await lock.release();
  }
}
`;

/**
 * A lock service of a package the analyzer does not know that takes back the lock object it handed out
 * (`locks.extendLock(lock, ttl)`), renewed by a setInterval watchdog in a .js file; `onFailure` is its
 * rejection handler.
 */
const serviceLockWatchdog = (onFailure: string) => `async function importMailbox(app, mailbox, copy) {
  const ttl = 60000;
  const controller = new AbortController();
  const lock = await app.locks.waitAcquireLock(\`mailbox:\${mailbox}\`, ttl, 30000);
  if (!lock.success) throw new Error('mailbox busy');
  const renewal = setInterval(() => {
    app.locks
      .extendLock(lock, ttl)
      .catch((err) => {
        ${onFailure}
      });
  }, ttl / 2);
  try {
    await copy(mailbox, controller.signal);
  } finally {
    clearInterval(renewal);
    await app.locks.releaseLock(lock);
  }
}
module.exports = { importMailbox };
`;

/** A leader lease renewed under an owner check in a timer; `onLost` is the check's other branch. */
const leaderRenewal = (onLost: string) => `${io}export class Scheduler {
  private isLeader = false;
  constructor(private readonly me: string) {}
  start() {
    setInterval(async () => {
      if (!this.isLeader) return;
      try {
        const current = await redis.get('leader:scheduler');
        if (current === this.me) {
          await redis.pexpire('leader:scheduler', 15000);
        } else {
          ${onLost}
        }
      } catch {}
    }, 5000);
  }
  async tick(run: () => Promise<void>) {
    if (this.isLeader) await run();
  }
}
`;

export const stopOnLockLostCases: RuleCases = {
  valid: [
    {
      name: 'a leader renewal whose owner check records a lost lease in a flag the work reads (`else this.isLeader = false`)',
      code: leaderRenewal('this.isLeader = false;'),
    },
    {
      name: 'an AbortController aborted after racing the acquire against a timeout, in a lock with no renewal: no lost lock to signal',
      code: `${io}export async function lockUpload(id: string, token: string, timeoutMs: number): Promise<boolean> {
  const controller = new AbortController();
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs));
  const acquired = await Promise.race([redis.set(\`lock:upload:\${id}\`, token, 'PX', 30000, 'NX').then((reply) => reply === 'OK'), timeout]);
  controller.abort();
  return acquired;
}
`,
    },
    { name: "an extend answering false from .catch(() => false), tested after: its failed branch closes the session's socket", code: answeredFalse('        this.sockets.get(userId)?.end();\n        this.sockets.delete(userId);') },
    { name: 'a watchdog function that re-arms itself with setTimeout and aborts the work when the extend fails', code: selfArmingWatchdog('controller.abort(err);') },
    {
      name: 'a guarded branch in the watchdog that aborts the work when the extend fails',
      code: `${io}export class LeaseLocks {
  private timer?: NodeJS.Timeout;
  readonly lost = new AbortController();
  hold(key: string, token: string, ttlMs: number): void {
    this.timer = setInterval(async () => {
      const renewed = await redis.eval(${EXTEND}, 1, key, token, ttlMs);
      if (renewed !== 1) {
        if (this.timer) {
          clearInterval(this.timer);
          this.lost.abort(new Error(\`lease \${key} lost\`));
        }
      }
    }, ttlMs / 3);
  }
}
`,
    },
    { name: "a watchdog extending a lock object of an unknown package aborts the work's signal when the extend fails", code: packageLockWatchdog('controller.abort(err);') },
    { name: "a watchdog handing the lock object back to its service (`locks.extendLock(lock, ttl)`) aborts the work's signal when that fails", fileName: 'case.js', code: serviceLockWatchdog('controller.abort(err);') },
    { name: "a setInterval extending an object not named like a lock (a schema, a config) is no watchdog", code: packageLockWatchdog("console.error('extend failed', err);", 'settlementPlan') },
    {
      name: 'a false renewal answer thrown inside a try in the timer, whose catch aborts the work',
      code: `${io}export function keepWorking(lockKey: string, token: string, controller: AbortController) {
  return setInterval(async () => {
    try {
      if ((await redis.eval(${EXTEND}, 1, lockKey, token, 20000)) !== 1) throw new Error('lost');
    } catch (err) {
      controller.abort(err);
    }
  }, 15000);
}
`,
    },
    { name: 'a Set of lost locks the work checks', code: `${io}export class Locks {
  private readonly lostLocks = new Set<string>();
  watch(lockKey: string, token: string) {
    return setInterval(() => {
      redis.eval(${EXTEND}, 1, lockKey, token, 30000).catch(() => this.lostLocks.add(lockKey));
    }, 10000);
  }
  async step(lockKey: string) {
    if (this.lostLocks.has(lockKey)) throw new Error('lock lost');
    await work();
  }
}
` },
    { name: 'the watchdog aborts the work on a failed extend', code: `${io}export async function runLocked(lockKey: string, token: string, job: (signal: AbortSignal) => Promise<void>) {
  const controller = new AbortController();
  const timer = setInterval(async () => {
    const extended = await redis.eval(${EXTEND}, 1, lockKey, token, 30000);
    if (extended !== 1) controller.abort(new Error(\`lock \${lockKey} lost\`));
  }, 10000);
  try {
    await job(controller.signal);
  } finally {
    clearInterval(timer);
  }
}
` },
    { name: 'a flag the work reads', code: `import Redis from 'ioredis';
export class LockedBatch {
  private lockLost = false;
  constructor(private readonly redis: Redis) {}
  async run(lockKey: string, token: string, items: string[]) {
    const timer = setInterval(() => {
      this.redis.eval(${EXTEND}, 1, lockKey, token, 30000).catch(() => {
        this.lockLost = true;
      });
    }, 10000);
    try {
      for (const item of items) {
        if (this.lockLost) throw new Error('lock lost');
        await this.process(item);
      }
    } finally {
      clearInterval(timer);
    }
  }
  private async process(_item: string) {}
}
` },
    { name: 'onLockLost that stops the work', code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export function mutexFor(redis: Redis, id: string, controller: AbortController) {
  return new Mutex(redis, \`email:\${id}\`, { onLockLost: (err) => controller.abort(err) });
}
` },
    { name: 'a leader lease renewed with SET XX that steps down', code: `${nr}export function keepLeadership(me: string, stepDown: () => void) {
  return setInterval(async () => {
    const ok = await client.set('leader:scheduler', me, { XX: true, EX: 30 });
    if (!ok) stepDown();
  }, 10000);
}
` },
    { name: 'a background renew loop that stops the work when the extend fails', code: renewLoop('void', 'stops') },
    { name: 'a renew loop the caller awaits is the work itself, not a watchdog', code: renewLoop('await', 'logs') },
  ],
  invalid: [
    {
      name: 'a leader renewal whose owner check only logs a lost lease',
      code: leaderRenewal("console.warn('leadership lost');"),
    },
    { name: 'an extend answering false from .catch(() => false), tested after: its failed branch only logs', message: ['only logs'], code: answeredFalse('') },
    { name: 'a watchdog function that re-arms itself with setTimeout (handed by name) and only logs a failed extend', message: ['only logs'], code: selfArmingWatchdog('console.error(err);') },
    { name: "a setInterval watchdog extending a lock object of a package it does not know (an organisation's lock library) only logs the failure", code: packageLockWatchdog("console.error('extend failed', err);") },
    { name: 'a setInterval watchdog handing the lock object back to its service (`locks.extendLock(lock, ttl)`) only logs the failure', fileName: 'case.js', code: serviceLockWatchdog("console.warn('could not extend', err.message);") },
    {
      name: 'a watchdog method whose failed extend logs and calls a method named for stopping the renewal: the work is never told',
      message: ['only logs'],
      code: `${io}export class ExportLocks {
  private readonly renewals = new Map<string, NodeJS.Timeout>();
  startRenewal(key: string, token: string, ttlMs: number): void {
    const timer = setInterval(async () => {
      const extended = await redis.eval(${EXTEND}, 1, key, token, ttlMs);
      if (extended !== 1) {
        console.warn(\`renewal of \${key} failed, stopping renewal\`);
        this.stopRenewal(key);
      }
    }, ttlMs / 2);
    this.renewals.set(key, timer);
  }
  stopRenewal(key: string): void {
    clearInterval(this.renewals.get(key));
    this.renewals.delete(key);
  }
}
`,
    },
    {
      name: 'a watchdog on a lock handle whose failed extend logs and clears its own timer behind an if (timer) guard',
      message: ['only logs'],
      code: `${io}export class LeaseLocks {
  private timer?: NodeJS.Timeout;
  hold(key: string, token: string, ttlMs: number): void {
    this.timer = setInterval(async () => {
      const renewed = await redis.eval(${EXTEND}, 1, key, token, ttlMs);
      if (renewed !== 1) {
        console.warn(\`lease \${key} not renewed\`);
        if (this.timer) clearInterval(this.timer);
      }
    }, ttlMs / 3);
  }
}
`,
    },
    {
      name: "a watchdog whose extend's rejection is swallowed by .catch(() => undefined) and whose reply is never read",
      message: ['only logs'],
      code: awaitedRenewal(EXTEND, '.catch(() => undefined)'),
    },
    {
      name: "a watchdog renewing with a script that writes the holder's value again with SET EX when GET matches, its error only logged",
      message: ['only logs'],
      code: awaitedRenewal('REFRESH', '.catch((err) => console.error(err))', `const REFRESH = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) else return 0 end";\n`),
    },
    {
      name: "a watchdog whose extend error goes to a project function that only records it (handleLogError)",
      message: ['only logs'],
      code: awaitedRenewal(EXTEND, ".catch((err) => handleLogError(err as Error, 'renewal'))", 'declare function handleLogError(err: Error, where: string): void;\n'),
    },
    {
      name: 'a renew loop started without await whose failed extend is only logged',
      message: ['only logs'],
      code: renewLoop('void', 'logs'),
    },
    {
      name: 'a renew method of a class, started with void this.renewLoop(), that only logs',
      message: ['only logs'],
      code: `${io}export class Queue {
  private token: string | null = null;
  private stopped = false;
  private async renewLoop(key: string) {
    while (!this.stopped) {
      if (this.token) {
        const ok = await redis.eval(${EXTEND}, 1, key, this.token, 30000);
        if (ok !== 1) console.warn('lock lost');
      }
      await sleep(10000);
    }
  }
  async start(key: string) {
    void this.renewLoop(key);
    await work();
  }
}
async function sleep(ms: number) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
`,
    },
    {
      name: 'the failed extend is added to a Set of lost locks that nothing reads',
      count: 2,
      code: `${io}const lostLocks = new Set<string>();
export function keepLock(lockKey: string, token: string) {
  return setInterval(async () => {
    const ok = await redis.eval(${EXTEND}, 1, lockKey, token, 30000);
    if (!ok) lostLocks.add(lockKey);
  }, 10000);
}
export async function runLocked(lockKey: string, token: string) {
  const lost = new Map<string, number>();
  const timer = setInterval(() => {
    redis.eval(${EXTEND}, 1, lockKey, token, 30000).catch(() => {
      console.warn('lock lost');
      lost.set(lockKey, Date.now());
    });
  }, 10000);
  try {
    await work();
  } finally {
    clearInterval(timer);
    lost.delete(lockKey);
  }
}
`,
    },
    {
      name: 'ioredis watchdog: the catch only logs',
      message: ['only logs a failed extend', 'never hears'],
      code: `${io}export function startWatchdog(lockKey: string, token: string) {
  return setInterval(async () => {
    try {
      await redis.eval(${EXTEND}, 1, lockKey, token, 30000);
    } catch (err) {
      console.error('could not extend lock', err);
    }
  }, 10000);
}
`,
    },
    {
      name: 'node-redis watchdog: the failed answer sets a flag nothing reads',
      code: `${nr}let lockLost = false;
export function renewLock(lockKey: string, token: string) {
  return setInterval(async () => {
    const extended = await client.eval(${EXTEND}, { keys: [lockKey], arguments: [token, '30000'] });
    if (extended === 0) lockLost = true;
  }, 10000);
}
`,
    },
    {
      name: 'a local flag written by the timer and never read',
      code: `${io}export async function runLocked(lockKey: string, token: string) {
  let stopped = false;
  const timer = setInterval(() => {
    redis.eval(${EXTEND}, 1, lockKey, token, 30000).catch(() => {
      stopped = true;
    });
  }, 10000);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
}
`,
    },
    {
      name: 'the extend error is rethrown inside the timer',
      message: ['unhandled rejection'],
      code: `${io}export function keepLock(lockKey: string, token: string) {
  setInterval(async () => {
    try {
      await redis.eval(${EXTEND}, 1, lockKey, token, 30000);
    } catch (err) {
      throw new Error(\`lock \${lockKey} lost\`, { cause: err });
    }
  }, 10000);
}
`,
    },
    {
      name: 'a false renewal answer thrown inside the timer',
      message: ['unhandled rejection'],
      code: `${io}export function keepWorking(id: string, token: string, work: () => Promise<void>) {
  const renew = setInterval(async () => {
    const renewed = await redis.eval(${EXTEND}, 1, \`lock:worker:\${id}\`, token, 20000);
    if (!renewed) {
      throw new Error(\`lost the lock of \${id}\`);
    }
  }, 15000);
  return work().finally(() => clearInterval(renew));
}
`,
    },
    {
      name: 'redlock v5: lock.extend in a timer whose failure is only logged',
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
export async function report(build: () => Promise<void>) {
  let lock = await redlock.acquire(['lock:report'], 30000);
  const timer = setInterval(() => {
    lock.extend(30000).then((next) => { lock = next; }).catch((err) => console.warn(err));
  }, 10000);
  try {
    await build();
  } finally {
    clearInterval(timer);
    await lock.release();
  }
}
`,
    },
    {
      name: 'an AbortController for the lock whose signal goes nowhere',
      message: ['signal is never passed'],
      code: `${io}export async function runLocked(lockKey: string, token: string) {
  const controller = new AbortController();
  const timer = setInterval(async () => {
    const extended = await redis.eval(${EXTEND}, 1, lockKey, token, 30000);
    if (extended !== 1) controller.abort();
  }, 10000);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
}
`,
    },
    {
      name: 'redis-semaphore onLockLost that does nothing (() => undefined)',
      message: ['This onLockLost only logs'],
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export function mutexFor(redis: Redis, id: string) {
  return new Mutex(redis, \`email:\${id}\`, { onLockLost: () => undefined });
}
`,
    },
    {
      name: 'redis-semaphore onLockLost that only logs',
      message: ['This onLockLost only logs'],
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export function mutexFor(redis: Redis, id: string) {
  return new Mutex(redis, \`email:\${id}\`, { onLockLost: (err) => console.error('lost the email lock', err) });
}
`,
    },
    {
      name: 'through a helper extend: only logged',
      config: { helpers: { acquire: [], release: [], extend: ['extendLock'] } },
      code: `declare function extendLock(key: string, ttlMs: number): Promise<boolean>;
export function watch(key: string) {
  return setInterval(() => {
    extendLock(key, 30000).catch((err) => console.error(err));
  }, 10000);
}
`,
    },
  ],
};
