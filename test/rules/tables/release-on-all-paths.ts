import type { RuleCases } from '../harness';
import { COOLDOWN_WINDOW, io, nr, RELEASE, singleFlightMarker, sentOnceMarker, getSetMutex, pendingRecord, configuredDamper, nxSelfTest, expirySweep } from './preludes';

const rl = `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
async function work(): Promise<void> {}
`;

// A helper that logs the work's error and throws it on: the release after it is skipped.
const settleRethrows = `async function settle<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    console.error(err);
    throw err;
  }
}
`;

// A migration that returns early, under the given comment, when another worker already queued it.
const migrateReturningEarly = (comment: string) => `${io}declare function alreadyQueued(id: string): Promise<boolean>;
export async function migrate(id: string, token: string) {
  const key = \`lock:migrate:\${id}\`;
  if (!(await redis.set(key, token, 'EX', 3600, 'NX'))) return;
  try {
    if (await alreadyQueued(id)) {
      // ${comment}
      return;
    }
    await work();
    await redis.eval(${RELEASE}, 1, key, token);
  } catch {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`;

/**
 * A bounded retry loop whose round `opensHeld` (an `if (...) {` line, after its acquire) sets `held` and
 * breaks; a throw when not held, then the work in try/finally.
 */
function heldFlagLoop(opensHeld: string): string {
  return `${io}const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function updateAcl(path: string, token: string) {
  const key = \`lock:acl:\${path}\`;
  let held = false;
  for (let i = 0; i < 10; i++) {
${opensHeld}
      held = true;
      break;
    }
    await sleep(40 + Math.random() * 40);
  }
  if (!held) throw new Error('busy');
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`;
}

/** A merge under a lock whose acquire is retried by `loop` (the opening line of a loop that re-acquires). */
const mergeRetry = (loop: string) => `${io}declare function sleep(ms: number): Promise<void>;
declare function merge(name: string): Promise<void>;
export async function mergeUnderLock(name: string) {
  const key = \`lock:merge:\${name}\`;
  const token = crypto.randomUUID();
  let taken = await redis.set(key, token, 'PX', 10_000, 'NX');
  ${loop}
    await sleep(200 + Math.random() * 100);
    taken = await redis.set(key, token, 'PX', 10_000, 'NX');
  }
  if (!taken) return 'unavailable';
  try {
    await merge(name);
    return 'applied';
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`;

/** A case of the first switch in twoSwitchArchive: take the lock on `key`, archive under it, swallow its errors. */
const archiveCase = (label: string, key: string) => `    case '${label}':
      if (await redis.set(${key}, token, 'PX', 60_000, 'NX')) {
        locked = true;
        try {
          await archive(table);
        } catch (err) {
          console.error(err);
        }
      }
      break;`;

/** A case of the second switch: release the key first, then ask whether to go on. */
const releaseCase = (label: string, key: string) => `      case '${label}': {
        await redis.eval(${RELEASE}, 1, ${key}, token);
        if (await moreToArchive(table)) await requeue(table);
        break;
      }`;

const INVOICES_KEY = 'lockName(table)';
const REFUNDS_KEY = 'lockName(`${table}:${batch}`)';

/** Two switches on one value: the first takes each case's lock, the second (if one was taken) releases that case's key. */
const twoSwitchArchive = `${io}declare function archive(table: string): Promise<void>;
declare function moreToArchive(table: string): Promise<boolean>;
declare function requeue(table: string): Promise<void>;
const lockName = (scope: string) => \`\${scope}-archive-lock\`;
export async function runArchive(table: 'invoices' | 'refunds', batch: string, token: string) {
  let locked = false;
  switch (table) {
${archiveCase('invoices', INVOICES_KEY)}
${archiveCase('refunds', REFUNDS_KEY)}
  }
  if (locked) {
    switch (table) {
${releaseCase('invoices', INVOICES_KEY)}
${releaseCase('refunds', REFUNDS_KEY)}
    }
  }
}
`;

export const releaseOnAllPathsCases: RuleCases = {
  valid: [
    {
      name: 'two switches on the same value, the second releasing each case\'s key first and then asking whether to go on: what throws after the release skips nothing',
      code: twoSwitchArchive,
    },
    nxSelfTest,
    configuredDamper,
    pendingRecord,
    {
      name: 'a retry loop after the acquire that runs only while the lock is not held (`!taken && i < 5`): its wait skips no release',
      code: mergeRetry('for (let i = 0; !taken && i < 5; i++) {'),
    },
    { name: 'the same retry as a while loop', code: mergeRetry('let attempts = 0;\n  while (!taken && attempts++ < 5) {') },
    {
      name: 'released at the end of the try and in a catch that rethrows, each behind its owner check (GET, compare, DEL)',
      code: `${io}declare function rebuild(id: string): Promise<number>;
export async function rebuildOnce(id: string, token: string): Promise<number> {
  const key = \`lock:rebuild:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return 0;
  try {
    const rows = await rebuild(id);
    if ((await redis.get(key)) === token) await redis.del(key);
    return rows;
  } catch (err) {
    if ((await redis.get(key)) === token) await redis.del(key);
    throw err;
  }
}
`,
    },
    {
      name: 'a read of what the awaited work wrote, returned unawaited from the try: it answers the caller, the work is done',
      code: `${io}declare function copyLegacyTotals(account: string): Promise<void>;
async function getTotals(account: string): Promise<number> {
  return Number(await redis.get(\`totals:\${account}\`));
}
export async function migrateTotals(account: string, token: string): Promise<number> {
  const key = \`lock:totals:\${account}\`;
  if (!(await redis.set(key, token, 'PX', 30_000, 'NX'))) return 0;
  try {
    await copyLegacyTotals(account);
    return getTotals(account);
  } finally {
    await redis.eval(UNLOCK, 1, key, token);
  }
}
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
`,
    },
    {
      name: 'an acquire helper handing its answer back, releasing in its catch only when asked to reclaim a SET that may have landed',
      code: `${io}export async function acquireLock(key: string, token: string, seconds: number, options?: { reclaimOnFailure?: boolean }): Promise<boolean> {
  try {
    const result = await redis.set(key, token, 'EX', seconds, 'NX');
    return result === 'OK';
  } catch (error) {
    if (options?.reclaimOnFailure) {
      await redis.eval(${RELEASE}, 1, key, token).catch(() => undefined);
    }
    throw error;
  }
}
`,
    },
    { name: 'a continue out of an inner loop, or a break out of a switch, inside the locked round does not skip its release', code: `${io}export async function tally(ids: string[], token: string, rows: string[][]) {
  for (const id of ids) {
    if ((await redis.set(\`lock:tally:\${id}\`, token, 'EX', 60, 'NX')) !== 'OK') continue;
    try {
      for (const row of rows) {
        if (row.length === 0) continue;
        switch (row[0]) {
          case 'skip':
            break;
          default:
            await work();
        }
      }
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:tally:\${id}\`, token);
    }
  }
}
` },
    { name: 'a retry loop setting a held flag in the branch its acquire opens, a throw when not held, then the work in try/finally', code: heldFlagLoop("    if ((await redis.set(key, token, 'EX', 5, 'NX')) === 'OK') {") },
    { name: 'a retry loop setting a held flag in the branch a test of the stored reply opens, a throw when not held, then the work in try/finally', code: heldFlagLoop("    const claimed = await redis.set(key, token, 'EX', 5, 'NX');\n    if (claimed === 'OK') {") },
    { name: 'a lock handed to .then((lock) => ...) whose work is in a try with the release in its finally', code: `import Redlock from 'redlock';
import Redis from 'ioredis';
declare function refetchAll(): Promise<void>;
const redlock = new Redlock([new Redis()], { retryCount: 0 });
export async function nightly(): Promise<void> {
  await redlock.acquire(['locks:nightly'], 60_000).then(async (lock) => {
    try {
      await refetchAll();
    } finally {
      await lock.release();
    }
  });
}
` },
    { name: 'a release in a .then of Bluebird\'s Promise.delay: a wait cannot reject, the release always runs', code: `import Redis from 'ioredis';
import Redlock from 'redlock';
declare const Bluebird: { delay(ms: number): Promise<void> };
declare function runJob(): Promise<void>;
const redlock = new Redlock([new Redis()], { retryCount: 0 });
export async function runOnce(): Promise<void> {
  const lock = await redlock.acquire(['locks:nightly'], 60_000);
  try {
    await runJob();
  } catch (err) {
    console.error('nightly run failed', err);
  }
  // keep the lock until the other instances gave up waiting, then let it go
  await Bluebird.delay(90_000).then(() => lock.release().catch((err: unknown) => console.warn('release failed', err)));
}
` },
    { name: 'the acquire and the work in a try whose catch only logs, the release after it: every exception reaches the release', code: `${io}export async function triggerNext(pipeline: string, token: string) {
  const key = \`lock:pipeline:\${pipeline}\`;
  try {
    if ((await redis.set(key, token, 'PX', 30000, 'NX')) !== 'OK') throw new Error('busy');
    await work();
  } catch (err) {
    console.error('trigger failed', err);
  }
  await redis.eval(${RELEASE}, 1, key, token);
}
` },
    { name: 'a return on the busy reply of SET ... GET (the value another holder wrote) leaves nothing held', code: getSetMutex },
    { name: 'an acquire in one branch of an if/else: the other branch, which returns, never runs after it', code: `${io}declare function takeLocal(id: string): boolean;
export async function run(id: string, token: string, shared: boolean) {
  let held = false;
  if (shared) {
    held = (await redis.set(\`lock:run:\${id}\`, token, 'PX', 5000, 'NX')) === 'OK';
    if (!held) return;
  } else {
    if (!takeLocal(id)) return;
  }
  try {
    await work();
  } finally {
    if (held) await redis.eval(${RELEASE}, 1, \`lock:run:\${id}\`, token);
  }
}
` },
    { name: 'a stampede lock whose answer is stored as `result !== null && result !== undefined`: the not-acquired branch returns the cached value', code: `${io}declare function sleep(ms: number): Promise<void>;
export async function cached(key: string, token: string, load: () => Promise<string>): Promise<string> {
  let acquired = false;
  try {
    const result = await redis.set(\`stampede-lock:\${key}\`, token, 'EX', 10, 'NX');
    acquired = result !== null && result !== undefined;
  } catch {
    // Redis down: load without the lock.
  }
  if (!acquired) {
    await sleep(100);
    const hit = await redis.get(key);
    if (hit !== null) return hit;
  }
  try {
    const fresh = await load();
    await redis.set(key, fresh, 'EX', 60);
    return fresh;
  } finally {
    if (acquired) await redis.eval(${RELEASE}, 1, \`stampede-lock:\${key}\`, token);
  }
}
` },
    { name: 'an acquire whose answer defaults to a handed-in one (`handed ?? (await set(...)) ?? undefined`), tested before the try', code: `${io}export async function run(id: string, token: string, handed?: string) {
  const held = handed ?? (await redis.set(\`lock:run:\${id}\`, token, 'PX', 5000, 'NX')) ?? undefined;
  if (!held) return { ok: false, error: 'already running' };
  try {
    await work();
    return { ok: true };
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:run:\${id}\`, token);
  }
}
` },
    { name: 'released on success and in the catch, each release in a try of its own that logs its failure', code: `${io}declare function prepare(id: string): Promise<string>;
export async function ready(id: string, token: string) {
  if (!(await redis.set(\`lock:sandbox:\${id}\`, token, 'PX', 90000, 'NX'))) return null;
  try {
    const box = await prepare(id);
    try {
      await redis.eval(${RELEASE}, 1, \`lock:sandbox:\${id}\`, token);
    } catch (err) {
      console.error('release failed', err);
    }
    return box;
  } catch (error) {
    try {
      await redis.eval(${RELEASE}, 1, \`lock:sandbox:\${id}\`, token);
    } catch (err) {
      console.error('release failed', err);
    }
    throw error;
  }
}
` },
    { name: "a cooldown window held in a let, kept when the work goes on and cleared only when it gives up", code: COOLDOWN_WINDOW },
    {
      name: 'checks between the acquire and the try that release the lock, then throw: they skip nothing',
      code: `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const games = new Map<string, { finished: boolean }>();
declare function play(id: string): Promise<void>;
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export async function act(id: string) {
  const token = randomUUID();
  if (!(await redis.set(\`lock:room:\${id}\`, token, 'PX', 5000, 'NX'))) throw new Error('busy');
  const game = games.get(id);
  if (!game) {
    await redis.eval(UNLOCK, 1, \`lock:room:\${id}\`, token);
    throw new Error('no such game');
  }
  if (game.finished) {
    await redis.eval(UNLOCK, 1, \`lock:room:\${id}\`, token);
    throw new Error('finished');
  }
  try {
    await play(id);
  } finally {
    await redis.eval(UNLOCK, 1, \`lock:room:\${id}\`, token);
  }
}
`,
    },
    {
      name: 'a flag set once the throwing acquire returned, tested before the try: its return is the not-acquired path',
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
declare function rebuild(id: string): Promise<void>;
export async function rebuildIndex(id: string): Promise<void> {
  const mutex = new Mutex(redis, \`lock:index:\${id}\`, { onLockLost: () => undefined });
  let held = false;
  try {
    await mutex.acquire();
    held = true;
  } catch (err) {
    console.error(err);
  }
  if (!held) return;
  try {
    await rebuild(id);
  } finally {
    await mutex.release();
  }
}
`,
    },
    { name: "an Express handler typed with NextFunction that forwards an error with return next(err) inside the try that releases in finally", code: `${io}type NextFunction = (err?: unknown) => void;
declare function charge(id: string): Promise<boolean>;
export async function pay(id: string, res: { json(v: unknown): void }, next: NextFunction) {
  const key = \`lock:pay:\${id}\`;
  if ((await redis.set(key, 'x', 'PX', 5000, 'NX')) !== 'OK') return;
  try {
    if (!(await charge(id))) return next(new Error('declined'));
    res.json({ ok: true });
  } finally {
    await redis.del(key);
  }
}
` },
    { name: 'locks taken in a loop before the try, released in a loop in the catch and after the work', code: `${io}export async function settle(ids: string[], work: () => Promise<void>) {
  for (const id of ids) {
    if ((await redis.set(\`lock:wager:\${id}\`, 'me', 'PX', 5000, 'NX')) !== 'OK') return false;
  }
  try {
    await work();
    for (const id of ids) await redis.del(\`lock:wager:\${id}\`);
    return true;
  } catch (e) {
    for (const id of ids) await redis.del(\`lock:wager:\${id}\`);
    throw e;
  }
}
` },
    {
      name: 'an Express handler (JavaScript) that answers busy with return next(err) on the not-acquired path, inside the try that releases in finally',
      fileName: 'wallet.js',
      code: `import Redis from 'ioredis';
const redis = new Redis();
const db = { async query(sql) {} };
export async function withdraw(req, res, next) {
  const key = \`lock:wallet:\${req.user}\`;
  let held = false;
  try {
    const ok = await redis.set(key, req.user, 'EX', 10, 'NX');
    if (!ok) {
      return next(new Error('busy'));
    }
    held = true;
    await db.query('UPDATE wallets SET balance = balance - 1');
    res.json({ ok: true });
  } catch (err) {
    next(err);
  } finally {
    if (held) await redis.del(key);
  }
}
`,
    },
    { name: 'acquire and work in one try, released after the work and, in the catch that rethrows, behind a test of the token', code: `${io}import { randomUUID } from 'node:crypto';
export async function exclusive<T>(key: string, op: () => Promise<T>): Promise<T> {
  let token: string | null = null;
  try {
    const mine = randomUUID();
    token = (await redis.set(key, mine, 'PX', 10000, 'NX')) === 'OK' ? mine : null;
    if (token) {
      const result = await op();
      await redis.eval(${RELEASE}, 1, key, token);
      return result;
    }
    throw new Error('busy');
  } catch (error) {
    if (token) {
      await redis.eval(${RELEASE}, 1, key, token);
    }
    throw error;
  }
}
` },
    { name: 'a redlock promise chain releasing in .finally of the work', code: `${rl}export function nightly() {
  return redlock.acquire(['nightly'], 5000).then((lock) => work().finally(() => lock.release()));
}
` },
    singleFlightMarker,
    sentOnceMarker,
    { name: "a wait on timers/promises' setTimeout (under any name) without an abort signal cannot throw", code: `import Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
const redis = new Redis();
async function work(): Promise<void> {}
export async function settle(id: string, token: string) {
  const key = \`lock:settle:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  await sleep(50);
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'a static method waiting through this.pause(ms), a static timer promise of its class, before the try', code: `${io}export class Poller {
  private static pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
  static async poll(token: string, work: () => Promise<void>) {
    if ((await redis.set('lock:poll', token, 'PX', 10000, 'NX')) !== 'OK') return;
    await this.pause(50);
    try {
      await work();
    } finally {
      await redis.eval(${RELEASE}, 1, 'lock:poll', token);
    }
  }
}
` },
    { name: 'a wait on a timer promise between the acquire and the try cannot throw: a sleep helper or an inline one', code: `${io}const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
function delay(ms: number) {
  return new Promise((r) => {
    setTimeout(r, ms);
  });
}
export async function settle(id: string, token: string) {
  const key = \`lock:settle:\${id}\`;
  while (!(await redis.set(key, token, 'PX', 30000, 'NX'))) await sleep(100 + Math.random() * 100);
  await sleep(5);
  await delay(5);
  await new Promise((r) => setTimeout(r, 5));
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'a MULTI acquire whose SETNX reply is destructured and guarded before the try', code: `${io}export async function settle(id: string, token: string) {
  const key = \`lock:settle:\${id}\`;
  const [[, got]] = (await redis.multi().setnx(key, token).pexpire(key, 30000).exec()) as [[Error | null, number], [Error | null, number]];
  if (!got) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'the redis-lock package: the done() it hands back called in a finally', typecheck: false, code: `const { promisify } = require('util');
const client = require('redis').createClient();
const lock = promisify(require('redis-lock')(client));
async function work() {}
async function sync(id) {
  const done = await lock(\`sync:\${id}\`, 10000);
  try {
    await work();
  } finally {
    await done();
  }
}
module.exports = { sync };
` },
    {
      name: 'chains from the acquire that release on rejection too, catch the work, or hand on no work',
      code: `${io}declare function rebuildIndex(shard: string): Promise<number>;
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export function viaFinally(shard: string, owner: string) {
  return redis.set(shard, owner, 'PX', 60_000, 'NX')
    .then((taken) => { if (taken !== 'OK') throw new Error('busy'); return rebuildIndex(shard); })
    .finally(() => redis.eval(UNLOCK, 1, shard, owner));
}
export function viaBothHandlers(shard: string, owner: string) {
  return redis.set(shard, owner, 'PX', 60_000, 'NX')
    .then((taken) => { if (taken !== 'OK') throw new Error('busy'); return rebuildIndex(shard); })
    .then(() => redis.eval(UNLOCK, 1, shard, owner), () => redis.eval(UNLOCK, 1, shard, owner));
}
export function workCaught(shard: string, owner: string) {
  return redis.set(shard, owner, 'PX', 60_000, 'NX')
    .then((taken) => { if (taken !== 'OK') throw new Error('busy'); return rebuildIndex(shard).catch(() => 0); })
    .then(() => redis.eval(UNLOCK, 1, shard, owner));
}
export function noWorkHandedOn(shard: string, owner: string) {
  return redis.set(shard, owner, 'PX', 60_000, 'NX')
    .then((taken) => { if (taken !== 'OK') throw new Error('busy'); return shard.length; })
    .then(() => redis.eval(UNLOCK, 1, shard, owner));
}
export function settledOnly(shard: string, owner: string) {
  return redis.set(shard, owner, 'PX', 60_000, 'NX')
    .then((taken) => {
      if (taken !== 'OK') return Promise.reject(new Error('busy'));
      return Promise.resolve(shard.length);
    })
    .then(() => redis.eval(UNLOCK, 1, shard, owner));
}
`,
    },
    { name: 'promise chains that release on rejection too: an onRejected handler, a .finally, a .catch before the .then', code: `${io}export function a(key: string, token: string) {
  return redis.set(key, token, 'PX', 5000, 'NX').then((ok) => {
    if (!ok) return null;
    return work().then(() => redis.eval(RELEASE_SCRIPT, 1, key, token), () => redis.eval(RELEASE_SCRIPT, 1, key, token));
  });
}
export function b(key: string, token: string) {
  return redis.set(key, token, 'PX', 5000, 'NX').then((ok) => {
    if (!ok) return null;
    return work().then(() => 'done').finally(() => redis.eval(RELEASE_SCRIPT, 1, key, token));
  });
}
export async function c(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 5000, 'NX'))) return;
  try {
    await work().then(() => redis.eval(RELEASE_SCRIPT, 1, key, token));
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, key, token);
  }
}
const RELEASE_SCRIPT = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
` },
    { name: 'the work started first and awaited inside the try, before the finally releases', code: `${io}export async function both(key: string, token: string, fn: () => Promise<void>) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  const pending = fn();
  try {
    await pending;
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'return await of the routine; a value from a plain function or from a routine typed synchronous', code: `${io}function label(key: string): string { return 'done:' + key; }
export async function withKey<T>(key: string, token: string, fn: () => Promise<T>, count: () => number): Promise<T | string | number> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) throw new Error('busy');
  try {
    if (key.endsWith(':dry')) return label(key);
    if (key.endsWith(':count')) return count();
    return await fn();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'SET NX GET: a truthy reply is the previous holder, so its throw is the not-acquired path', code: `${io}export async function run(token: string) {
  const holder = await redis.set('lock:job', token, 'EX', 30, 'NX', 'GET');
  if (holder) throw new Error('busy: held by ' + holder);
  try { await work(); } finally { await redis.eval(${RELEASE}, 1, 'lock:job', token); }
}
` },
    { name: 'the work through a helper that hands its error back, and a promise whose .catch handles the error', code: `${io}async function settle<T>(fn: () => Promise<T>): Promise<[unknown, T | undefined]> {
  try {
    return [null, await fn()];
  } catch (err) {
    return [err, undefined];
  }
}
const attempt = async <T>(p: Promise<T>): Promise<[unknown, T?]> => {
  try { return [null, await p]; } catch (err) { return [err]; }
};
export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  const [err] = await settle(() => work());
  const [err2] = await attempt(work());
  await work().catch((e: unknown) => console.error(e));
  await redis.eval(${RELEASE}, 1, key, token);
  if (err ?? err2) throw err ?? err2;
}
` },
    { name: 'the acquire compared with OK and stored: `const ok = (await set(...)) === OK`, then if (!ok) return', code: `${io}export async function run(key: string, token: string) {
  const ok = (await redis.set(key, token, 'PX', 1000, 'NX')) === 'OK';
  if (!ok) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    {
      name: 'retry loops whose wait runs only when the acquire failed: if (ok) break, if (!got) await, a stored comparison',
      code: `${io}const pause = (ms: number) => new Promise((r) => setTimeout(r, ms + Math.random() * ms));
async function tryTake(key: string, token: string): Promise<boolean> {
  return (await redis.set(key, token, 'PX', 1000, 'NX')) === 'OK';
}
export async function breaks(key: string, token: string) {
  let held = false;
  for (let round = 0; round < 4; round++) {
    held = (await redis.set(key, token, 'PX', 1000, 'NX')) === 'OK';
    if (held) break;
    await pause(50);
  }
  if (!held) return false;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
  return true;
}
export async function waitsWhenRefused(key: string, token: string) {
  let got = false;
  for (let round = 0; !got && round < 4; round++) {
    const reply = await redis.set(key, token, 'PX', 1000, 'NX');
    got = reply === 'OK';
    if (!got) await pause(50);
  }
  if (!got) throw new Error('busy');
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
export async function throughHelper(key: string, token: string) {
  let taken = false;
  for (let round = 0; round < 4; round++) {
    taken = await tryTake(key, token);
    if (taken) break;
    if (round === 3) throw new Error('busy');
    await pause(50 * (round + 1));
  }
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    { name: 'a guard of two failure tests of the lock joined by ||', code: `${io}export async function run(key: string, token: string) {
  const reply = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!reply || reply !== 'OK') return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    {
      name: 'a guard on a variable that is false only when the lock was not taken (an || with the success test)',
      code: `${io}export async function run(key: string, token: string, optimistic: boolean) {
  let reply: string | null = null;
  let unavailable = false;
  try {
    reply = await redis.set(key, token, 'PX', 1000, 'NX');
  } catch {
    unavailable = true;
  }
  const proceed = reply === 'OK' || (unavailable && optimistic);
  if (!proceed) return null;
  try {
    return await work();
  } finally {
    if (reply === 'OK') await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    { name: 'release in finally', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
` },
    { name: 'a lease: acquired and left to expire, never released', code: `${io}export async function daily() {
  if (!(await redis.set('lease:daily-report', 'x', 'EX', 3600, 'NX'))) return;
  await work();
}
` },
    { name: 'the lock handle is returned to the caller', code: `${rl}export async function take(id: string) {
  const lock = await redlock.acquire([\`order:\${id}\`], 5000);
  await work();
  if (Math.random() > 2) await lock.release();
  return lock;
}
` },
    { name: 'release in catch and after the try', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    await work();
  } catch (err) {
    await redis.eval(${RELEASE}, 1, key, token);
    throw err;
  }
  await redis.eval(${RELEASE}, 1, key, token);
}
` },
    { name: 'release at the end of the try and in its catch', code: `${io}export async function run(key: string, token: string): Promise<number> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return 409;
  try {
    await work();
    await redis.eval(${RELEASE}, 1, key, token);
    return 200;
  } catch (err) {
    await redis.eval(${RELEASE}, 1, key, token);
    return 500;
  }
}
` },
    { name: 'the work in a try whose catch logs and goes on to the release', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    await work();
  } catch (err) {
    console.error('work failed', err);
  }
  await redis.eval(${RELEASE}, 1, key, token);
}
` },
    { name: 'an ownership kept on success, released in the catch when taking over fails', code: `${io}export async function adopt(id: string, token: string) {
  if (!(await redis.set(\`lock:game:\${id}\`, token, 'PX', 60000, 'NX'))) return false;
  try {
    await work();
    return true;
  } catch (err) {
    await redis.eval(${RELEASE}, 1, \`lock:game:\${id}\`, token);
    return false;
  }
}
` },
    { name: 'an acquire helper that hands its token back when taken, and clears a stale lock otherwise', code: `${io}export async function take(key: string, token: string): Promise<string | undefined> {
  if (await redis.set(key, token, 'PX', 1000, 'NX')) return token;
  await work();
  await redis.del(key);
  return undefined;
}
` },
    { name: 'promise .finally', code: `${rl}export async function run() {
  const lock = await redlock.acquire(['report'], 5000);
  return work().finally(() => lock.release());
}
` },
    { name: 'nothing between the acquire and the release can throw', code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  const note = 'nothing here awaits';
  await redis.eval(${RELEASE}, 1, key, token);
  return note;
}
` },
    { name: 'an early return commented as keeping the lock on purpose (until its TTL, against duplicates)', code: migrateReturningEarly('Do not unlock: the TTL keeps a second migration from starting') },
  ],
  invalid: [
    {
      name: "a token the caller handed in (the job's id), passed to a database update between the acquire's check and the try that releases: the update can throw past the release",
      code: `${io}declare const db: { job: { update(args: object): Promise<void>; run(shop: string): Promise<void> } };
export async function processJob(shop: string, jobId: string) {
  const ok = await redis.set(\`lock:shop:\${shop}\`, jobId, 'PX', 60000, 'NX');
  if (!ok) return;
  await db.job.update({ where: { id: jobId }, data: { status: 'RUNNING' } });
  try {
    await db.job.run(shop);
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:shop:\${shop}\`, jobId);
  }
}
`,
    },
    {
      name: 'a lock from a redlock handed in as a parameter (known by its name), released at the end of the try: the early return and a throw skip it',
      fileName: 'case.js',
      message: ['the early `return;`'],
      code: expirySweep(`        if (!raw) return;
        await expire(JSON.parse(raw), id);
        await lock.unlock();`),
      output: expirySweep(`        if (!raw) return;
        await expire(JSON.parse(raw), id);
        await lock.unlock();`).replace(`        const raw = await redis.hget(hash, id);
        if (!raw) return;
        await expire(JSON.parse(raw), id);
        await lock.unlock();`, `        try {
          const raw = await redis.hget(hash, id);
          if (!raw) return;
          await expire(JSON.parse(raw), id);
        } finally {
          await lock.unlock();
        }`),
    },
    {
      name: 'a loop after the acquire that runs while the lock is held (`taken && i < 3`): its awaited work skips the release',
      message: ['warmUp'],
      code: `${io}declare function warmUp(i: number): Promise<void>;
declare function merge(name: string): Promise<void>;
export async function mergeUnderLock(name: string) {
  const key = \`lock:merge:\${name}\`;
  const token = crypto.randomUUID();
  const taken = await redis.set(key, token, 'PX', 10_000, 'NX');
  for (let i = 0; taken && i < 3; i++) {
    await warmUp(i);
  }
  if (!taken) return 'unavailable';
  try {
    await merge(name);
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'a continue between the acquire and the release in a loop body leaves that round holding the lock',
      message: ['the early `continue;` leaves this round of the loop'],
      code: `${io}declare function fetchPage(url: string): Promise<{ done: boolean }>;
export async function scrapeAll(urls: string[], token: string) {
  for (const url of urls) {
    if ((await redis.set(\`lock:scrape:\${url}\`, token, 'EX', 900, 'NX')) !== 'OK') continue;
    const page = await fetchPage(url);
    if (page.done) continue;
    await work();
    await redis.eval(${RELEASE}, 1, \`lock:scrape:\${url}\`, token);
  }
}
`,
    },
    {
      name: 'a catch releasing around only the first step (then continue), more awaited work after that try before the release',
      message: ['an exception from `await work()`'],
      code: `${io}declare function open(url: string): Promise<string>;
export async function scrapeAll(urls: string[], token: string) {
  for (const url of urls) {
    if ((await redis.set(\`lock:scrape:\${url}\`, token, 'EX', 900, 'NX')) !== 'OK') continue;
    let page: string;
    try {
      page = await open(url);
    } catch (err) {
      await redis.eval(${RELEASE}, 1, \`lock:scrape:\${url}\`, token);
      continue;
    }
    console.log(page);
    await work();
    await redis.eval(${RELEASE}, 1, \`lock:scrape:\${url}\`, token);
  }
}
`,
    },
    {
      name: 'a lock handed to .then(async (lock) => { await work(); return lock.release(); }): the work can throw past the release',
      message: ['an exception from `await refetchAll()`'],
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
declare function refetchAll(): Promise<void>;
const redlock = new Redlock([new Redis()], { retryCount: 0 });
export async function nightly(): Promise<void> {
  await redlock.acquire(['locks:nightly'], 60_000).then(async (lock) => {
    await refetchAll();
    return lock.release();
  });
}
`,
      output: null,
    },
    {
      name: 'an early return on an error answer after awaited work skips the release: the return is named, not the await',
      message: ['the early `return { error: rows.error };`'],
      code: `${io}declare const db: { query(sql: string): Promise<{ error?: string; rows: string[] }> };
export async function nightly(token: string) {
  if ((await redis.set('lock:nightly', token, 'PX', 60000, 'NX')) !== 'OK') return { skipped: true };
  const rows = await db.query('select id from jobs');
  if (rows.error) return { error: rows.error };
  await work();
  await redis.eval(${RELEASE}, 1, 'lock:nightly', token);
  return { done: rows.rows.length };
}
`,
    },
    {
      name: 'two functions each make their own `mutex`: the second is reported on its own key',
      message: ['lock:refund:'],
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
const redis = new Redis();
declare function charge(id: string): Promise<void>;
declare function refund(id: string): Promise<void>;
export async function chargeOrder(id: string) {
  const mutex = new Mutex(redis, \`lock:charge:\${id}\`, { onLockLost: () => undefined });
  await mutex.acquire();
  try {
    await charge(id);
  } finally {
    await mutex.release();
  }
}
export async function refundOrder(id: string) {
  const mutex = new Mutex(redis, \`lock:refund:\${id}\`, { onLockLost: () => undefined });
  await mutex.acquire();
  await refund(id);
  await mutex.release();
}
`,
    },
    {
      name: "timers/promises' setTimeout given an abort signal can reject: the release is skipped",
      message: ['sleep'],
      code: `import Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
const redis = new Redis();
async function work(): Promise<void> {}
export async function settle(id: string, token: string, signal: AbortSignal) {
  const key = \`lock:settle:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  await sleep(50, undefined, { signal });
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'a wait that can reject (its executor takes reject) between the acquire and the try still skips the release',
      message: ['pause'],
      code: `${io}declare const signal: AbortSignal;
const pause = (ms: number) => new Promise<void>((resolve, reject) => {
  signal.addEventListener('abort', () => reject(new Error('aborted')));
  setTimeout(resolve, ms);
});
export async function settle(id: string, token: string) {
  const key = \`lock:settle:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return;
  await pause(5);
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'a guard joined by || with a test of something else: its return also runs while the lock is held',
      message: ['the early `return;`'],
      code: `${io}export async function run(key: string, token: string, job?: string) {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok || !job) return;
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'a retry loop that breaks out once the lock is held, then awaits work before the try that releases',
      message: ['an exception from `await audit(key)`'],
      code: `${io}declare function audit(key: string): Promise<void>;
export async function run(key: string, token: string) {
  let held = false;
  for (let round = 0; round < 4; round++) {
    held = (await redis.set(key, token, 'PX', 1000, 'NX')) === 'OK';
    if (held) break;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  if (!held) return;
  await audit(key);
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'node-redis: the token handed to eval in { arguments: [token] } still goes to Redis, not away; the work can throw past the release',
      message: ['an exception from `await work()`'],
      code: `${nr}export async function rebuild(id: string, token: string) {
  const key = \`lock:rebuild:\${id}\`;
  if ((await client.set(key, token, { NX: true, PX: 30000 })) !== 'OK') return;
  await work();
  await client.eval(${RELEASE}, { keys: [key], arguments: [token] });
}
`,
      output: `${nr}export async function rebuild(id: string, token: string) {
  const key = \`lock:rebuild:\${id}\`;
  if ((await client.set(key, token, { NX: true, PX: 30000 })) !== 'OK') return;
  try {
    await work();
  } finally {
    await client.eval(${RELEASE}, { keys: [key], arguments: [token] });
  }
}
`,
    },
    {
      name: 'the redis-lock package: done() after the work, so a throw keeps the lock',
      typecheck: false,
      message: ['an exception from `await work()`'],
      code: `import redisLock from 'redis-lock';
import { createClient } from 'redis';
const lock = redisLock(createClient());
async function work(): Promise<void> {}
export async function sync(id: string) {
  const done = await lock(\`sync:\${id}\`);
  await work();
  await done();
}
`,
      output: `import redisLock from 'redis-lock';
import { createClient } from 'redis';
const lock = redisLock(createClient());
async function work(): Promise<void> {}
export async function sync(id: string) {
  const done = await lock(\`sync:\${id}\`);
  try {
    await work();
  } finally {
    await done();
  }
}
`,
    },
    {
      name: 'a promise chain that releases only in a .then of the work: a rejection skips it',
      message: ['only in a `.then` of `work()`', 'rejects'],
      output: null,
      noFix: '.finally()',
      code: `${io}export function run(key: string, token: string) {
  return redis.set(key, token, 'PX', 5000, 'NX').then((ok) => {
    if (!ok) return null;
    return work().then(() => redis.eval(RELEASE_SCRIPT, 1, key, token));
  });
}
const RELEASE_SCRIPT = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
`,
    },
    {
      name: 'a chain from the acquire whose .then hands the work on to the .then that releases: a rejection skips it',
      message: ['only in a `.then` of `rebuildIndex(shard)`', 'rejects'],
      output: null,
      noFix: '.finally()',
      code: `${io}declare function rebuildIndex(shard: string): Promise<number>;
export function reindex(shard: string, owner: string) {
  const key = \`lock:index:\${shard}\`;
  return redis.set(key, owner, 'PX', 60_000, 'NX')
    .then((taken) => {
      if (taken !== 'OK') throw new Error('shard busy');
      return rebuildIndex(shard);
    })
    .then((rows) => redis.eval(UNLOCK, 1, key, owner).then(() => rows));
}
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
`,
    },
    {
      name: 'a comment on the early return that says nothing about keeping the lock does not excuse it',
      message: ['early `return;`'],
      output: null,
      code: migrateReturningEarly('Nothing to do: another worker queued it'),
    },
    {
      name: 'a read that is the locked work itself, returned unawaited from the try: the finally releases before it ends',
      message: ['`return loadReport(day)` hands the work'],
      code: `${io}async function loadReport(day: string): Promise<string> {
  return (await redis.get(\`report:\${day}\`)) ?? '';
}
export async function reportOnce(day: string, token: string): Promise<string> {
  const key = \`lock:report:\${day}\`;
  if (!(await redis.set(key, token, 'PX', 30_000, 'NX'))) return '';
  try {
    return loadReport(day);
  } finally {
    await redis.eval(UNLOCK, 1, key, token);
  }
}
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
`,
      output: `${io}async function loadReport(day: string): Promise<string> {
  return (await redis.get(\`report:\${day}\`)) ?? '';
}
export async function reportOnce(day: string, token: string): Promise<string> {
  const key = \`lock:report:\${day}\`;
  if (!(await redis.set(key, token, 'PX', 30_000, 'NX'))) return '';
  try {
    return await loadReport(day);
  } finally {
    await redis.eval(UNLOCK, 1, key, token);
  }
}
const UNLOCK = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
`,
    },
    {
      name: 'a lock helper that returns the routine it was handed without awaiting it',
      message: ['`return fn()` hands the work', 'releases the lock on key at once, while the work still runs'],
      output: `${io}export async function withKey<T>(key: string, token: string, fn: () => Promise<T>): Promise<T> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) throw new Error('busy');
  try {
    return await fn();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
      code: `${io}export async function withKey<T>(key: string, token: string, fn: () => Promise<T>): Promise<T> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) throw new Error('busy');
  try {
    return fn();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'the work started, the lock released, and only then the work awaited',
      message: ['`handler.call(this, job)` starts the work and its promise is awaited only after the release'],
      output: `${io}export async function runExclusive(this: unknown, handler: (job: string) => Promise<number>, job: string): Promise<number> {
  const token = crypto.randomUUID();
  if (!(await redis.set('lock:' + job, token, 'EX', 30, 'NX'))) return 0;
  try {
    const pending = await handler.call(this, job);
    await redis.eval(${RELEASE}, 1, 'lock:' + job, token);
    return await pending;
  } catch (err) {
    await redis.eval(${RELEASE}, 1, 'lock:' + job, token);
    throw err;
  }
}
`,
      code: `${io}export async function runExclusive(this: unknown, handler: (job: string) => Promise<number>, job: string): Promise<number> {
  const token = crypto.randomUUID();
  if (!(await redis.set('lock:' + job, token, 'EX', 30, 'NX'))) return 0;
  try {
    const pending = handler.call(this, job);
    await redis.eval(${RELEASE}, 1, 'lock:' + job, token);
    return await pending;
  } catch (err) {
    await redis.eval(${RELEASE}, 1, 'lock:' + job, token);
    throw err;
  }
}
`,
    },
    {
      name: 'a method wrapper that returns the original method through apply',
      message: ['`return original.apply(this, args)`'],
      code: `${io}export function locked(key: string) {
  return (_target: object, _name: string, descriptor: PropertyDescriptor) => {
    const original = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    descriptor.value = async function (this: unknown, ...args: unknown[]) {
      const token = crypto.randomUUID();
      if (!(await redis.set(key, token, 'EX', 30, 'NX'))) return undefined;
      try {
        return original.apply(this, args);
      } finally {
        await redis.eval(${RELEASE}, 1, key, token);
      }
    };
  };
}
`,
    },
    {
      name: 'a helper whose catch rethrows does not protect the release',
      message: ['an exception from'],
      output: `${io}${settleRethrows}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    await settle(() => work());
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
      code: `${io}${settleRethrows}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  await settle(() => work());
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
    },
    {
      name: 'an early return in the acquired branch of if (ok), before the try-block release',
      message: ['the early `return \'done\';`'],
      code: `${io}export async function run(key: string, token: string) {
  try {
    const ok = await redis.set(key, token, 'PX', 1000, 'NX');
    if (ok) {
      if (await redis.exists('done')) return 'done';
    }
    await work();
    await redis.eval(${RELEASE}, 1, key, token);
    return 'ran';
  } catch (err) {
    await redis.eval(${RELEASE}, 1, key, token);
    throw err;
  }
}
`,
      output: `${io}export async function run(key: string, token: string) {
  try {
    const ok = await redis.set(key, token, 'PX', 1000, 'NX');
    try {
      if (ok) {
        if (await redis.exists('done')) return 'done';
      }
      await work();
    } finally {
      await redis.eval(${RELEASE}, 1, key, token);
    }
    return 'ran';
  } catch (err) {
    await redis.eval(${RELEASE}, 1, key, token);
    throw err;
  }
}
`,
    },
    {
      name: 'the work in a try whose catch rethrows, before the release',
      message: ['an exception from `await work()`'],
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    await work();
  } catch (err) {
    console.error('work failed', err);
    throw err;
  }
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
      output: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    try {
      await work();
    } catch (err) {
      console.error('work failed', err);
      throw err;
    }
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'release in the try and in its catch, but an early return in the try skips both',
      message: ['the early `return 204;`'],
      code: `${io}export async function run(key: string, token: string, empty: boolean): Promise<number> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return 409;
  try {
    if (empty) return 204;
    await work();
    await redis.eval(${RELEASE}, 1, key, token);
    return 200;
  } catch (err) {
    await redis.eval(${RELEASE}, 1, key, token);
    return 500;
  }
}
`,
      output: null,
    },
    {
      name: 'release in the try, and in its catch only for some errors',
      message: ['an exception from `await work()`'],
      code: `${io}export async function run(key: string, token: string): Promise<number> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return 409;
  try {
    await work();
    await redis.eval(${RELEASE}, 1, key, token);
    return 200;
  } catch (err) {
    if (err instanceof TypeError) await redis.eval(${RELEASE}, 1, key, token);
    return 500;
  }
}
`,
      output: null,
    },
    {
      name: 'awaited work between the acquire check and the try that releases',
      message: ['an exception from `await load(id)`'],
      code: `${io}async function load(id: string): Promise<string> { return id; }
export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  const token = crypto.randomUUID();
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  const data = await load(id);
  try {
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
  return data;
}
`,
      output: null,
    },
    {
      name: 'awaited work between acquire and release',
      message: ['an exception from `await work()`', 'Release in a finally block'],
      code: `${io}export async function run(key: string, token: string) {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok) return;
  await work();
  await work();
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
      output: `${io}export async function run(key: string, token: string) {
  const ok = await redis.set(key, token, 'PX', 1000, 'NX');
  if (!ok) return;
  try {
    await work();
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'early return skips the release',
      message: ['the early `return'],
      code: `${io}export async function run(key: string, token: string, skip: boolean) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  if (skip) return;
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
    },
    {
      name: 'a redlock promise chain: the lock handed to .then, released in a .then of the work (a .catch after it only logs)',
      message: ['released only in a `.then` of `work()`'],
      count: 2,
      code: `${rl}export function nightly() {
  return redlock.acquire(['nightly'], 5000).then((lock) => work().then(() => lock.release()));
}
export function weekly() {
  return redlock.acquire(['weekly'], 5000).then(function (lock) {
    return work()
      .then(() => lock.release())
      .catch((err) => console.error(err));
  });
}
`,
    },
    {
      name: 'redlock v5 acquire / release without finally',
      code: `${rl}export async function run(id: string) {
  const lock = await redlock.acquire([\`order:\${id}\`], 5000);
  await work();
  await lock.release();
}
`,
      output: `${rl}export async function run(id: string) {
  const lock = await redlock.acquire([\`order:\${id}\`], 5000);
  try {
    await work();
  } finally {
    await lock.release();
  }
}
`,
    },
    {
      name: 'redis-semaphore mutex',
      code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
async function work(): Promise<void> {}
export async function run(redis: Redis) {
  const mutex = new Mutex(redis, 'report', { onLockLost: () => undefined });
  await mutex.acquire();
  await work();
  await mutex.release();
}
`,
    },
    {
      name: 'a name declared in the section and used after the release: the rest of the block goes into the try',
      code: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  const result = await redis.get('data');
  await redis.eval(${RELEASE}, 1, key, token);
  return result;
}
`,
      output: `${io}export async function run(key: string, token: string) {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  try {
    const result = await redis.get('data');
    return result;
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'an early release before a return: the finally releases on that path too',
      code: `${io}export async function run(key: string, token: string): Promise<string | undefined> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return undefined;
  if (await redis.exists('done')) {
    await redis.eval(${RELEASE}, 1, key, token);
    return undefined;
  }
  const result = await redis.get('data');
  await work();
  await redis.eval(${RELEASE}, 1, key, token);
  return result ?? undefined;
}
`,
      output: `${io}export async function run(key: string, token: string): Promise<string | undefined> {
  if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return undefined;
  try {
    if (await redis.exists('done')) {
      return undefined;
    }
    const result = await redis.get('data');
    await work();
    return result ?? undefined;
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
}
`,
    },
    {
      name: 'acquire and release in different blocks: no fix, and the reason',
      code: `${io}export async function run(key: string, token: string, flag: boolean) {
  if (flag) {
    if (!(await redis.set(key, token, 'PX', 1000, 'NX'))) return;
  }
  await work();
  await redis.eval(${RELEASE}, 1, key, token);
}
`,
      output: null,
      noFix: 'different blocks',
    },
  ],
};
