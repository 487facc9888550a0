// A lock released twice on one path (in the try and again in its finally): the second release runs
// when the lock is free, and one without an owner check deletes whoever took it in between.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject } from './harness';

const LOCK_MODULE = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function takeLock(key: string, ttlMs: number): Promise<string | null> {
  const token = randomUUID();
  return (await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK' ? token : null;
}
export async function dropLock(key: string): Promise<void> {
  await redis.del(key);
}
export async function dropOwnLock(key: string, token: string): Promise<void> {
  await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token);
}
`;

const secondReleases = (files: Record<string, string>) =>
  analyzeProject(files).filter((f) => f.rule === 'owner-checked-release' && f.message.includes('second time'));

test('a helper whose DEL has no owner check, called in the try and again in the finally, is reported at the second call', () => {
  const found = secondReleases({
    'src/lock.ts': LOCK_MODULE,
    'src/orders.ts': `import { takeLock, dropLock } from './lock';
declare function ship(id: string): Promise<void>;
export async function shipOrder(id: string) {
  const key = \`lock:order:\${id}\`;
  if (!(await takeLock(key, 30_000))) return;
  try {
    await ship(id);
    await dropLock(key);
  } finally {
    await dropLock(key);
  }
}
`,
  });
  assert.deepEqual(found.map((f) => `${f.file}:${f.message.match(/dropLock/)?.[0]}`), ['src/orders.ts:dropLock']);
});

test('a bare DEL in the try and again in the finally: the finally one says it is the second release', () => {
  const found = secondReleases({
    'src/jobs.ts': `import Redis from 'ioredis';
const redis = new Redis();
declare function run(): Promise<void>;
export async function nightly(token: string) {
  if (!(await redis.set('lock:nightly', token, 'PX', 60_000, 'NX'))) return;
  try {
    await run();
    await redis.del('lock:nightly');
  } finally {
    await redis.del('lock:nightly');
  }
}
`,
  });
  assert.equal(found.length, 1);
  assert.ok(found[0].message.includes('whoever holds it'));
});

test('releasing twice through a helper that compares the token, or once in the finally, is not reported', () => {
  const found = secondReleases({
    'src/lock.ts': LOCK_MODULE,
    'src/orders.ts': `import { takeLock, dropLock, dropOwnLock } from './lock';
declare function ship(id: string): Promise<void>;
export async function shipOrder(id: string) {
  const key = \`lock:order:\${id}\`;
  const token = await takeLock(key, 30_000);
  if (!token) return;
  try {
    await ship(id);
    await dropOwnLock(key, token);
  } finally {
    await dropOwnLock(key, token);
  }
}
export async function shipOther(id: string) {
  const key = \`lock:order:\${id}\`;
  if (!(await takeLock(key, 30_000))) return;
  try {
    await ship(id);
  } finally {
    await dropLock(key);
  }
}
`,
  });
  assert.deepEqual(found, []);
});

test('a finally release guarded by a variable the try cleared (or marked released) runs only when the try did not release', () => {
  const found = secondReleases({
    'src/lock.ts': LOCK_MODULE,
    'src/orders.ts': `import { takeLock, dropLock } from './lock';
declare function ship(id: string): Promise<void>;
export async function shipOrder(id: string) {
  let heldKey: string | undefined;
  try {
    const key = \`lock:order:\${id}\`;
    if (!(await takeLock(key, 30_000))) return;
    heldKey = key;
    await ship(id);
    const releasing = heldKey;
    heldKey = undefined;
    await dropLock(releasing);
  } finally {
    if (heldKey) await dropLock(heldKey);
  }
}
export async function shipOther(id: string) {
  const key = \`lock:order:\${id}\`;
  if (!(await takeLock(key, 30_000))) return;
  let released = false;
  try {
    await ship(id);
    await dropLock(key);
    released = true;
  } finally {
    if (!released) await dropLock(key);
  }
}
`,
  });
  assert.deepEqual(found, []);
});

test('a guard the try sets only after the finally would run still leaves the second release reported', () => {
  const found = secondReleases({
    'src/lock.ts': LOCK_MODULE,
    'src/orders.ts': `import { takeLock, dropLock } from './lock';
declare function ship(id: string): Promise<void>;
export async function shipOrder(id: string) {
  const key = \`lock:order:\${id}\`;
  if (!(await takeLock(key, 30_000))) return;
  let shipped = false;
  try {
    await ship(id);
    await dropLock(key);
    shipped = true;
  } finally {
    if (shipped) await dropLock(key);
  }
}
`,
  });
  assert.equal(found.length, 1);
});

// A lock module handing back `{ acquired, unlock }`, whose unlock is written in the module.
const handingBack = (unlock: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function lockSubmission(key: string) {
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', 20_000, 'NX')) !== 'OK') return { acquired: false as const };
  return { acquired: true as const, unlock: () => ${unlock} };
}
`;

const submitRoute = `import { lockSubmission } from './lock';
declare function valid(id: string): Promise<boolean>;
declare function store(id: string): Promise<void>;
export async function submit(id: string): Promise<number> {
  const lock = await lockSubmission(\`submit:\${id}\`);
  if (!lock.acquired) return 429;
  try {
    if (!(await valid(id))) {
      lock.unlock();
      return 400;
    }
    await store(id);
    return 200;
  } finally {
    lock.unlock();
  }
}
`;

test('an unlock handed back by the lock module, whose DEL compares no token, called in the try and again in the finally after an await', () => {
  const route = submitRoute.replace('      lock.unlock();\n      return 400;', '      lock.unlock();\n      await store(\'rejected\');\n      return 400;');
  const found = secondReleases({ 'src/lock.ts': handingBack('void redis.del(key)'), 'src/submit.ts': route });
  const lastUnlock = route.lastIndexOf('lock.unlock()');
  assert.deepEqual(found.map((f) => `${f.file}:${f.span.start}`), [`src/submit.ts:${lastUnlock}`]);
  assert.match(found[0].message, /The release lockSubmission\(\.\.\.\) hands back deletes the key/);
});

test('the same unlock called twice in one tick (nothing awaited between): both DELs leave together, no holder comes between', () => {
  assert.deepEqual(secondReleases({ 'src/lock.ts': handingBack('void redis.del(key)'), 'src/submit.ts': submitRoute }), []);
});

test('the same route with a handed-back unlock that compares the token is not reported', () => {
  const found = secondReleases({
    'src/lock.ts': handingBack(`void redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token)`),
    'src/submit.ts': submitRoute,
  });
  assert.deepEqual(found, []);
});

test('the keys taken so far dropped when one is busy, then again by the finally: one list under two loop names', () => {
  const found = secondReleases({
    'src/lock.ts': LOCK_MODULE,
    'src/seats.ts': `import { takeLock, dropLock } from './lock';
declare function book(ids: string[]): Promise<void>;
export async function bookSeats(ids: string[]) {
  const held: string[] = [];
  try {
    for (const id of ids) {
      const key = \`seat:\${id}\`;
      if (!(await takeLock(key))) {
        for (const k of held) await dropLock(k);
        return false;
      }
      held.push(key);
    }
    await book(ids);
    return true;
  } finally {
    for (const key of held) await dropLock(key);
  }
}
`,
  });
  assert.deepEqual(found.map((f) => f.file), ['src/seats.ts']);
  assert.match(found[0].message, /already released it on line 9/);
});
