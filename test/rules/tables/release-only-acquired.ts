import type { RuleCases } from '../harness';
import { io, nr, RELEASE } from './preludes';

/** A booking handler whose catch deletes the slot lock; `first` runs in the try before the acquire. */
const bookingCatch = (first: string) => `${io}declare const bookingSchema: { parse(body: unknown): { slot: string } };
export async function book(body: { slot: string }): Promise<number> {
  const lockKey = \`lock:slot:\${body.slot}\`;
  try {
${first}
    if (!(await redis.set(lockKey, 'held', 'EX', 5, 'NX'))) return 429;
    await work();
    await redis.del(lockKey);
    return 201;
  } catch {
    await redis.del(lockKey);
    return 500;
  }
}
`;

/** A refresh whose guard takes the lock unless `force`: `guard` is the test before the try. */
const forcedRefresh = (guard: string) => `${io}declare function fetchProfile(host: string): Promise<void>;
export async function refresh(host: string, force = false): Promise<void> {
  const key = \`refresh:lock:\${host}\`;
  if (${guard}) return;
  try {
    await fetchProfile(host);
  } finally {
    await redis.del(key);
  }
}
`;

export const releaseOnlyAcquiredCases: RuleCases = {
  valid: [
    { name: 'a guard that always takes the lock before the try and leaves when it is busy', code: forcedRefresh("!(await redis.set(key, '1', 'EX', 30, 'NX'))") },
    { name: 'a catch that deletes the lock, the acquire first in its try: only the errors of a held lock reach it', code: bookingCatch('    const started = Date.now();') },
    { name: 'a wait loop before the try that ends only once the acquire answered OK', code: `${io}export async function relay(token: string): Promise<void> {
  let held = await redis.set('lock:relayer', token, 'PX', 30000, 'NX');
  while (!held) {
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 100));
    held = await redis.set('lock:relayer', token, 'PX', 30000, 'NX');
  }
  try {
    await work();
  } finally {
    await redis.del('lock:relayer');
  }
}
` },
    { name: 'a migration script whose not-acquired branch ends the process before the try', code: `${io}export async function migrateOnce(token: string): Promise<void> {
  const ok = await redis.set('lock:migrations', token, 'EX', 60, 'NX');
  if (!ok) {
    console.log('another instance migrates');
    process.exit(0);
  }
  try {
    await work();
  } finally {
    await redis.del('lock:migrations');
  }
}
` },
    { name: 'a lock set without NX after the check, both before the try whose finally deletes it (exclusive-acquire\'s finding, not this one)', code: `${io}export async function rebuildIndex(): Promise<void> {
  if (await redis.get('lock:rebuild-index')) return;
  await redis.set('lock:rebuild-index', 'busy', 'EX', 600);
  try {
    await work();
  } finally {
    await redis.del('lock:rebuild-index');
  }
}
` },
    { name: 'a return after the plain SET inside the try: the finally deletes only the lock this call set', code: `${io}export async function rebuildIndex(skip: boolean): Promise<void> {
  try {
    await redis.set('lock:rebuild-index', 'busy', 'EX', 600);
    if (skip) return;
    await work();
  } finally {
    await redis.del('lock:rebuild-index');
  }
}
` },
    { name: 'locks taken in a loop that returns when one is busy, before the try whose finally releases them all', code: `${io}export async function settle(ids: string[], work: () => Promise<void>) {
  for (const id of ids) {
    if (!(await redis.set(\`lock:wager:\${id}\`, 'me', 'PX', 5000, 'NX'))) return 409;
  }
  try {
    await work();
    return 200;
  } finally {
    for (const id of ids) await redis.del(\`lock:wager:\${id}\`);
  }
}
` },
    { name: 'a finally that deletes only the keys pushed after their acquire succeeded (a loop over another list than the acquire loop)', code: `${io}export async function lockSeats(seats: string[], work: () => Promise<void>) {
  const requested = seats.map((s) => \`lock:seat:\${s}\`);
  const held: string[] = [];
  try {
    for (const key of requested) {
      if ((await redis.set(key, 'me', 'PX', 5000, 'NX')) !== 'OK') return false;
      held.push(key);
    }
    await work();
    return true;
  } finally {
    for (const key of held) await redis.del(key);
  }
}
` },
    { name: "the user's id as the token, acquired and tested before the try", code: `${nr}export async function run(code: string, userId: string) {
  if (!(await client.set(\`lock:coupon:\${code}\`, userId, { NX: true, PX: 30000 }))) return;
  try {
    await work();
  } finally {
    await client.eval(${RELEASE}, { keys: [\`lock:coupon:\${code}\`], arguments: [userId] });
  }
}
` },
    { name: 'acquire and test before the try', code: `${io}export async function run(id: string, token: string) {
  const key = \`lock:job:\${id}\`;
  if (!(await redis.set(key, token, 'PX', 30000, 'NX'))) return false;
  try {
    await work();
  } finally {
    await redis.del(key);
  }
  return true;
}
` },
    { name: 'in a loop, the not-acquired branch continues before the try', code: `${io}export async function drain(ids: string[], token: string) {
  for (const id of ids) {
    const key = \`lock:job:\${id}\`;
    const taken = await redis.set(key, token, 'PX', 30000, 'NX');
    if (!taken) {
      console.log('busy', id);
      continue;
    }
    try {
      await work();
    } finally {
      await redis.del(key);
    }
  }
}
` },
    { name: 'the finally tests the flag', code: `${io}export async function run(id: string, token: string) {
  let acquired = false;
  try {
    acquired = (await redis.set(\`lock:job:\${id}\`, token, 'PX', 30000, 'NX')) === 'OK';
    if (!acquired) return;
    await work();
  } finally {
    if (acquired) await redis.del(\`lock:job:\${id}\`);
  }
}
` },
    { name: 'a compare-and-delete release deletes nothing it does not own', code: `${nr}export async function run(id: string, token: string) {
  try {
    const ok = await client.set(\`lock:job:\${id}\`, token, { NX: true, PX: 30000 });
    if (!ok) return;
    await work();
  } finally {
    await client.eval(${RELEASE}, { keys: [\`lock:job:\${id}\`], arguments: [token] });
  }
}
` },
    { name: 'finish handler registered after the test', code: `import Redis from 'ioredis';
import type { ServerResponse } from 'node:http';
const redis = new Redis();
export async function handle(res: ServerResponse, id: string, token: string) {
  const ok = await redis.set(\`lock:cart:\${id}\`, token, 'PX', 5000, 'NX');
  if (!ok) {
    res.statusCode = 409;
    return res.end();
  }
  res.on('finish', () => void redis.del(\`lock:cart:\${id}\`));
  res.end('ok');
}
` },
    { name: 'redis-semaphore tryAcquire with release in finally (owner-checked)', code: `import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
export async function run(redis: Redis, id: string) {
  const mutex = new Mutex(redis, \`job:\${id}\`, { onLockLost: () => process.exit(1) });
  try {
    if (!(await mutex.tryAcquire())) return;
  } finally {
    await mutex.release();
  }
}
` },
    { name: 'a catch that rethrows the not-acquired error before releasing', code: `${io}class Busy extends Error {}
export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  try {
    if (!(await redis.set(key, '1', 'PX', 30000, 'NX'))) throw new Busy();
    await work();
    await redis.del(key);
  } catch (e) {
    if (e instanceof Busy) throw e;
    await redis.del(key);
    throw e;
  }
}
` },
    { name: 'a not-acquired path that returns from the try does not reach the catch', code: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  try {
    if (!(await redis.set(key, '1', 'PX', 30000, 'NX'))) return false;
    await work();
    await redis.del(key);
    return true;
  } catch (e) {
    await redis.del(key);
    throw e;
  }
}
` },
  ],
  invalid: [
    {
      name: 'a guard that takes the lock only when not forced (`!force && ...`): a forced run reaches the finally with no lock and deletes the holder\'s',
      message: ['also when the acquire did not run (`!force` skips it)'],
      output: null,
      code: forcedRefresh("!force && !(await redis.set(key, '1', 'EX', 30, 'NX'))"),
    },
    { name: 'a catch that deletes the lock, a validation before the acquire in its try: its error reaches the catch with no lock held', message: ['fails before the acquire', 'bookingSchema.parse'], code: bookingCatch('    bookingSchema.parse(body);') },
    { name: 'a catch that deletes the lock, awaited work before the acquire in its try', message: ['fails before the acquire', 'await work()'], code: bookingCatch('    await work();') },
    {
      name: 'a lock set without NX inside the try after a check that returns when it is held: the finally deletes the holder\'s lock on that return',
      message: ['lock:rebuild-index', 'leaves before'],
      code: `${io}async function rebuildRunning(): Promise<boolean> {
  return (await redis.exists('lock:rebuild-index')) === 1;
}
export async function rebuildIndex(): Promise<void> {
  try {
    if (await rebuildRunning()) return;
    await redis.setex('lock:rebuild-index', 600, 'busy');
    await work();
  } finally {
    await redis.del('lock:rebuild-index');
  }
}
`,
    },
    {
      name: 'the finally tests the key (was there one to lock), not whether it was taken',
      message: ['also when the acquire failed'],
      code: `${io}export async function onWebhook(body: { utr?: string }, settle: (utr: string) => Promise<void>) {
  let utr: string | undefined;
  try {
    utr = body.utr;
    if (!utr) return;
    const acquired = await redis.set(\`lock:utr:\${utr}\`, 'webhook', 'EX', 30, 'NX');
    if (!acquired) return;
    await settle(utr);
  } finally {
    if (utr) {
      await redis.del(\`lock:utr:\${utr}\`);
    }
  }
}
`,
    },
    {
      name: 'a not-acquired path that throws into a catch which deletes the key',
      message: ['This catch deletes', 'throws into it'],
      code: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  try {
    const ok = await redis.set(key, '1', 'PX', 30000, 'NX');
    if (!ok) throw new Error('busy');
    await work();
    await redis.del(key);
  } catch (e) {
    await redis.del(key);
    throw e;
  }
}
`,
      output: null,
      noFix: 'before the try',
    },
    {
      name: 'the answer declared before the try: the catch releases only if acquired',
      message: ['This catch deletes'],
      code: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  let ok: string | null = null;
  try {
    ok = await redis.set(key, '1', 'PX', 30000, 'NX');
    if (!ok) {
      throw new Error('busy');
    }
    await work();
    await redis.del(key);
  } catch (e) {
    await redis.del(key);
    throw e;
  }
}
`,
      output: `${io}export async function run(id: string) {
  const key = \`lock:job:\${id}\`;
  let ok: string | null = null;
  try {
    ok = await redis.set(key, '1', 'PX', 30000, 'NX');
    if (!ok) {
      throw new Error('busy');
    }
    await work();
    await redis.del(key);
  } catch (e) {
    if (ok) await redis.del(key);
    throw e;
  }
}
`,
    },
    {
      name: "a compare-and-delete in a finally the failed acquire reaches, with the user's id as the token",
      message: ['dto.userId', 'an id from the request', 'randomUUID'],
      code: `${io}export async function redeem(dto: { code: string; userId: string }) {
  const ok = await redis.set(\`lock:coupon:\${dto.code}\`, dto.userId, 'PX', 5000, 'NX');
  try {
    if (!ok) throw new Error('busy');
    await work();
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:coupon:\${dto.code}\`, dto.userId);
  }
}
`,
      output: `${io}export async function redeem(dto: { code: string; userId: string }) {
  const ok = await redis.set(\`lock:coupon:\${dto.code}\`, dto.userId, 'PX', 5000, 'NX');
  try {
    if (!ok) throw new Error('busy');
    await work();
  } finally {
    if (ok) await redis.eval(${RELEASE}, 1, \`lock:coupon:\${dto.code}\`, dto.userId);
  }
}
`,
    },
    {
      name: 'ioredis: not-acquired return goes through the finally',
      message: ['also when the acquire failed'],
      code: `${io}export async function run(id: string, token: string) {
  let ok: string | null = null;
  try {
    ok = await redis.set(\`lock:job:\${id}\`, token, 'PX', 30000, 'NX');
    if (!ok) return;
    await work();
  } finally {
    await redis.del(\`lock:job:\${id}\`);
  }
}
`,
      output: `${io}export async function run(id: string, token: string) {
  let ok: string | null = null;
  try {
    ok = await redis.set(\`lock:job:\${id}\`, token, 'PX', 30000, 'NX');
    if (!ok) return;
    await work();
  } finally {
    if (ok) await redis.del(\`lock:job:\${id}\`);
  }
}
`,
    },
    {
      name: 'node-redis v5: throw on not acquired inside the try',
      output: null,
      code: `${nr}export async function run(id: string, token: string) {
  try {
    const ok = await client.set(\`lock:job:\${id}\`, token, { condition: 'NX', expiration: { type: 'PX', value: 30000 } });
    if (ok !== 'OK') throw new Error('busy');
    await work();
  } finally {
    await client.del(\`lock:job:\${id}\`);
  }
}
`,
    },
    {
      name: 'acquired before the try, tested inside it',
      code: `${io}export async function run(id: string, token: string) {
  const got = await redis.setnx(\`lock:sync:\${id}\`, token);
  await redis.pexpire(\`lock:sync:\${id}\`, 30000);
  try {
    if (!got) return;
    await work();
  } finally {
    await redis.del(\`lock:sync:\${id}\`);
  }
}
`,
      output: `${io}export async function run(id: string, token: string) {
  const got = await redis.setnx(\`lock:sync:\${id}\`, token);
  await redis.pexpire(\`lock:sync:\${id}\`, 30000);
  try {
    if (!got) return;
    await work();
  } finally {
    if (got) await redis.del(\`lock:sync:\${id}\`);
  }
}
`,
    },
    {
      name: "res.on('finish') registered before the test",
      message: ['registered before'],
      code: `import Redis from 'ioredis';
import type { ServerResponse } from 'node:http';
const redis = new Redis();
export async function handle(res: ServerResponse, id: string, token: string) {
  res.on('finish', () => void redis.del(\`lock:cart:\${id}\`));
  const ok = await redis.set(\`lock:cart:\${id}\`, token, 'PX', 5000, 'NX');
  if (!ok) {
    res.statusCode = 409;
    return res.end();
  }
  res.end('ok');
}
`,
    },
    {
      name: 'through a helper acquire, with a bare DEL in finally',
      config: { helpers: { acquire: ['tryLock'], release: [], extend: [] } },
      code: `${io}declare function tryLock(key: string, ttlMs: number): Promise<boolean>;
export async function run(id: string) {
  const key = \`lock:import:\${id}\`;
  try {
    const locked = await tryLock(key, 30000);
    if (!locked) return;
    await work();
  } finally {
    await redis.del(key);
  }
}
`,
    },
  ],
};
