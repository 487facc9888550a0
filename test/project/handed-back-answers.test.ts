// An acquire helper that hands back a release function or a lock object answers "busy" through it: a
// release function that is null then, or an object field set from the acquire's reply. A caller that
// only calls the function, or never reads the field, runs its work whether or not it holds the lock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const client = `import Redis from 'ioredis';
export const redis = new Redis();
`;

const RELEASE = `'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end'`;

// Hands back a release function, or null when another process holds the lock.
const closureOrNull = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
export async function takeLock(name: string): Promise<(() => Promise<void>) | null> {
  const key = \`lock:\${name}\`;
  const token = randomUUID();
  const taken = await redis.set(key, token, 'PX', 30000, 'NX');
  if (!taken) return null;
  return async () => {
    await redis.eval(${RELEASE}, 1, key, token);
  };
}
`;

// Hands back a release function, and throws when the lock is busy.
const closureOrThrow = closureOrNull.replace("if (!taken) return null;", "if (!taken) throw new Error('busy');");

// Hands back an object whose `held` field says whether the lock was taken.
const lockObject = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
export interface Held { held: boolean; release(): Promise<void> }
export async function lockJob(job: string, ttlMs: number): Promise<Held> {
  const key = \`lock:job:\${job}\`;
  const token = randomUUID();
  const reply = await redis.set(key, token, 'PX', ttlMs, 'NX');
  return {
    held: reply === 'OK',
    release: async () => {
      await redis.eval(${RELEASE}, 1, key, token);
    },
  };
}
`;

// The same object, but null when another process holds the lock: testing the object is the test.
const lockObjectOrNull = lockObject
  .replace('Promise<Held>', 'Promise<Held | null>')
  .replace("return {\n    held: reply === 'OK',", "if (reply !== 'OK') return null;\n  return {\n    held: true,");

// Answers with an object whose \`acquired\` is true once taken and false otherwise (and on an error).
const resultObject = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
export interface TryResult { acquired: boolean; lockId?: string; reason?: string }
export async function tryJobLock(job: string): Promise<TryResult> {
  const key = \`lock:job:\${job}\`;
  const lockId = randomUUID();
  try {
    const reply = await redis.set(key, lockId, 'PX', 60000, 'NX');
    if (reply === 'OK') return { acquired: true, lockId };
    return { acquired: false, reason: 'held' };
  } catch {
    return { acquired: false, reason: 'redis error' };
  }
}
export async function freeJobLock(job: string, lockId: string) {
  await redis.eval(${RELEASE}, 1, \`lock:job:\${job}\`, lockId);
}
`;

interface Shape {
  name: string;
  files: Record<string, string>;
  expected: string[];
}

const work = 'declare function rebuild(): Promise<void>;\n';

/** A caller that takes the lock through `take`, tests it with `guard` (or not), and releases in a finally. */
const caller = (imports: string, name: string, take: string, guard: string, release: string) => `${imports}
${work}export async function ${name}() {
  ${take}
${guard ? `  ${guard}\n` : ''}  try {
    await rebuild();
  } finally {
    ${release}
  }
}
`;

// Hands back the token, or null when busy; its release skips an empty token.
const tokenOrNull = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
export async function acquireLock(name: string): Promise<string | null> {
  const token = randomUUID();
  return (await redis.set(\`lock:\${name}\`, token, 'PX', 30000, 'NX')) === 'OK' ? token : null;
}
export async function releaseLock(name: string, token: string | null): Promise<void> {
  if (token) await redis.eval(${RELEASE}, 1, \`lock:\${name}\`, token);
}
`;

const shapes: Shape[] = [
  {
    name: 'a token that is null when busy, only handed to the release that skips an empty one',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': tokenOrNull,
      'src/report.ts': caller("import { acquireLock, releaseLock } from './lock';", 'nightly', "const token = await acquireLock('report');", '', "await releaseLock('report', token);"),
    },
    expected: ['src/report.ts: check-acquire-result'],
  },
  {
    name: 'a token that is null when busy, tested only to decide whether to release (if, &&, !== null), after the work ran',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': tokenOrNull,
      'src/report.ts': `${caller("import { acquireLock, releaseLock } from './lock';", 'nightly', "const token = await acquireLock('report');", '', "if (token) await releaseLock('report', token);")}
export async function weekly() {
  const token = await acquireLock('weekly');
  try {
    await rebuild();
  } finally {
    token && (await releaseLock('weekly', token));
  }
}
export async function monthly() {
  const token = await acquireLock('monthly');
  await rebuild();
  if (token !== null) {
    await releaseLock('monthly', token);
  }
}
`,
    },
    expected: ['src/report.ts: check-acquire-result', 'src/report.ts: check-acquire-result', 'src/report.ts: check-acquire-result', 'src/report.ts: release-on-all-paths'],
  },
  {
    name: 'a token tested to release in one branch and to stop in the other is tested before the work',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': tokenOrNull,
      'src/report.ts': `${work}import { acquireLock, releaseLock } from './lock';
export async function nightly() {
  const token = await acquireLock('report');
  if (!token) return;
  try {
    await rebuild();
  } finally {
    if (token) await releaseLock('report', token);
  }
}
`,
    },
    expected: [],
  },
  {
    name: 'the same token tested before the work (or as the loop\'s assignment), or handed on to other code as well as to the release',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': tokenOrNull,
      'src/report.ts': `${caller("import { acquireLock, releaseLock } from './lock';", 'nightly', "const token = await acquireLock('report');", 'if (!token) return;', "await releaseLock('report', token);")}declare function audit(token: string | null): Promise<void>;
export async function waited() {
  let token: string | null;
  for (let tries = 0; !(token = await acquireLock('wait')); tries++) {
    if (tries > 5) throw new Error('busy');
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
  }
  try {
    await rebuild();
  } finally {
    await releaseLock('wait', token);
  }
}
export async function audited() {
  const token = await acquireLock('audit');
  try {
    await audit(token);
  } finally {
    await releaseLock('audit', token);
  }
}
`,
    },
    expected: [],
  },
  {
    name: 'a release function that is null when busy, only called after the work',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': closureOrNull,
      'src/report.ts': caller("import { takeLock } from './lock';", 'nightly', "const release = await takeLock('report');", '', 'await release?.();'),
    },
    expected: ['src/report.ts: check-acquire-result'],
  },
  {
    name: 'the same release function tested before the work',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': closureOrNull,
      'src/report.ts': caller("import { takeLock } from './lock';", 'nightly', "const release = await takeLock('report');", 'if (!release) return;', 'await release();'),
    },
    expected: [],
  },
  {
    name: 'a release function from a helper that throws when busy: calling it is all there is to do',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': closureOrThrow,
      'src/report.ts': caller("import { takeLock } from './lock';", 'nightly', "const release = await takeLock('report');", '', 'await release();'),
    },
    expected: [],
  },
  {
    name: 'a lock object whose held field is never read',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': lockObject,
      'src/jobs.ts': caller("import { lockJob } from './lock';", 'run', "const lock = await lockJob('rebuild', 60000);", '', 'await lock.release();'),
    },
    expected: ['src/jobs.ts: check-acquire-result'],
  },
  {
    name: 'the same lock object tested, or handed back to the caller',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': lockObject,
      'src/jobs.ts': `${caller("import { lockJob } from './lock';", 'run', "const lock = await lockJob('rebuild', 60000);", 'if (!lock.held) return;', 'await lock.release();')}export async function forCaller(job: string) {
  const lock = await lockJob(job, 60000);
  return lock;
}
`,
    },
    expected: [],
  },
  {
    name: 'an answer object whose acquired field is never read: only its lockId, for the release',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': resultObject,
      'src/jobs.ts': `import { freeJobLock, tryJobLock } from './lock';
${work}export async function run() {
  const result = await tryJobLock('rebuild');
  try {
    await rebuild();
  } finally {
    if (result.lockId) await freeJobLock('rebuild', result.lockId);
  }
}
export async function checked() {
  const result = await tryJobLock('rebuild');
  if (!result.acquired || !result.lockId) return;
  try {
    await rebuild();
  } finally {
    await freeJobLock('rebuild', result.lockId);
  }
}
`,
    },
    expected: ['src/jobs.ts: check-acquire-result'],
  },
  {
    name: 'an answer object tested for itself (`if (!result)`): it comes back whether or not the lock was taken',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': resultObject,
      'src/jobs.ts': caller("import { freeJobLock, tryJobLock } from './lock';", 'run', "const result = await tryJobLock('rebuild');", 'if (!result) return;', "await freeJobLock('rebuild', result.lockId!);"),
    },
    expected: ['src/jobs.ts: check-acquire-result'],
  },
  {
    name: 'a lock object tested for itself in a ternary, its held field never read',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': lockObject,
      'src/jobs.ts': `import { lockJob } from './lock';
${work}export async function run() {
  const lock = await lockJob('rebuild', 60000);
  return lock ? rebuild().finally(() => lock.release()) : undefined;
}
`,
    },
    expected: ['src/jobs.ts: check-acquire-result'],
  },
  {
    name: 'the answer object tested for itself and for its acquired field',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': resultObject,
      'src/jobs.ts': caller("import { freeJobLock, tryJobLock } from './lock';", 'run', "const result = await tryJobLock('rebuild');", 'if (!result || !result.acquired) return;', "await freeJobLock('rebuild', result.lockId!);"),
    },
    expected: [],
  },
  {
    name: 'a lock object that is null when busy, tested for itself',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': lockObjectOrNull,
      'src/jobs.ts': caller("import { lockJob } from './lock';", 'run', "const lock = await lockJob('rebuild', 60000);", 'if (!lock) return;', 'await lock.release();'),
    },
    expected: [],
  },
];

for (const shape of shapes) {
  test(`handed-back answer: ${shape.name}`, () => {
    const findings = analyzeProject(shape.files);
    assert.deepEqual(findingList(findings), [...shape.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}

// Hands back a lock object once taken, or null when another process holds the lock.
const objectOrNull = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
export class Seats {
  async tryHold(seat: string, ms = 3000): Promise<{ key: string; unlock(): Promise<void> } | null> {
    const key = \`lock:seat:\${seat}\`;
    const token = randomUUID();
    if ((await redis.set(key, token, 'PX', ms, 'NX')) !== 'OK') return null;
    return { key, unlock: async () => { await redis.eval(${RELEASE}, 1, key, token); } };
  }
}
`;

test('a lock object that is null when busy, tested only to decide whether to call its unlock after the work', () => {
  const findings = analyzeProject({
    'src/redis.ts': client,
    'src/seats.ts': objectOrNull,
    'src/book.ts': `import { Seats } from './seats';
declare function reserve(seat: string): Promise<void>;
export async function book(seats: Seats, seat: string) {
  const held = await seats.tryHold(seat);
  try {
    await reserve(seat);
  } finally {
    if (held) await held.unlock();
  }
}
export async function bookChecked(seats: Seats, seat: string) {
  const held = await seats.tryHold(seat);
  if (!held) throw new Error('seat is being booked');
  try {
    await reserve(seat);
  } finally {
    await held.unlock();
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/book.ts: check-acquire-result'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /tested only to decide whether to release/);
  assert.match(findings[0].message, /the reply is null/);
});

test('an acquire helper retrying until a deadline, handing the token back once acquired and throwing when time is up, leaves its caller nothing to test', () => {
  const service = (giveUp: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export class Imports {
  private async acquireCreateLock(projectId: string): Promise<string | null> {
    const token = randomUUID();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if ((await redis.set(\`lock:import:\${projectId}\`, token, 'PX', 30000, 'NX')) === 'OK') return token;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 100));
    }
    ${giveUp}
  }
  private async releaseCreateLock(projectId: string, token: string): Promise<void> {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, \`lock:import:\${projectId}\`, token);
  }
  async create(projectId: string, run: () => Promise<void>): Promise<void> {
    const token = await this.acquireCreateLock(projectId);
    try {
      await run();
    } finally {
      await this.releaseCreateLock(projectId, token!);
    }
  }
}
`;
  const throws = analyzeProject({ 'src/imports.ts': service("throw new Error('an import is in progress');") });
  assert.deepEqual(throws.filter((f) => f.rule === 'check-acquire-result'), [], throws.map((f) => f.message).join('\n'));
  const answersNull = analyzeProject({ 'src/imports.ts': service('return null;') });
  assert.deepEqual(answersNull.filter((f) => f.rule === 'check-acquire-result').map((f) => f.file), ['src/imports.ts'], answersNull.map((f) => f.message).join('\n'));
});

test('a lock handed back as data ({ key, token }) and released by a helper reading lock.key: work before the try skips that release', () => {
  const worker = (between: string) => `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
const client = createClient();
const acquireConnectionLock = async (connectionId: string) => {
  const key = \`lock:conn:\${connectionId}\`;
  const token = randomUUID();
  if ((await client.set(key, token, { NX: true, EX: 900 })) !== 'OK') return null;
  return { key, token };
};
const releaseConnectionLock = async (lock: { key: string; token: string }) => {
  await client.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', { keys: [lock.key], arguments: [lock.token] });
};
declare function recordRun(id: string): Promise<string>;
declare function sync(id: string): Promise<void>;
export const syncConnection = async (connectionId: string) => {
  const lock = await acquireConnectionLock(connectionId);
  if (!lock) return;
${between}
  try {
    await sync(connectionId);
  } finally {
    await releaseConnectionLock(lock);
  }
};
`;
  const skipped = analyzeProject({ 'src/worker.ts': worker('  await recordRun(connectionId);') });
  assert.deepEqual(findingList(skipped), ['src/worker.ts: release-on-all-paths'], skipped.map((f) => f.message).join('\n'));
  const clean = analyzeProject({ 'src/worker.ts': worker('') });
  assert.deepEqual(findingList(clean), [], clean.map((f) => f.message).join('\n'));
});

test('a helper answering `taken ? releaseLock : null` (a release function it declares) hands back its release: work between the test and that call skips it', () => {
  const findings = analyzeProject({
    'src/redis.ts': client,
    'src/notifications.ts': `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
declare function deliver(id: string): Promise<void>;
async function claimTask(id: string): Promise<(() => Promise<void>) | null> {
  const key = \`notify-lock:\${id}\`;
  const token = randomUUID();
  const taken = await redis.set(key, token, 'EX', 60, 'NX');
  const releaseLock = async () => {
    await redis.eval(${RELEASE}, 1, key, token);
  };
  return taken ? releaseLock : null;
}
export async function onMessage(id: string): Promise<void> {
  const release = await claimTask(id);
  if (release) {
    await deliver(id);
    await release();
  }
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/notifications.ts: release-on-all-paths'], findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));
});
