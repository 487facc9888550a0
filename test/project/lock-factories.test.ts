// Locks made by a project function that returns an object of functions (`createLock(key)` giving
// `{ acquire, release }`), and lock functions grouped in a TypeScript `namespace`: the caller's
// `lock.acquire()` is an acquire of the key the factory was called with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const client = `import Redis from 'ioredis';
export const redis = new Redis();
`;

const factory = `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export function createLock(name: string) {
  const token = randomUUID();
  const key = \`lock:\${name}\`;
  return {
    acquire: () => redis.set(key, token, 'PX', 5000, 'NX'),
    async release() {
      await redis.eval(RELEASE, 1, key, token);
    },
  };
}
`;

interface Shape {
  name: string;
  files: Record<string, string>;
  expected: string[];
}

const shapes: Shape[] = [
  {
    name: 'the object a factory returns: an ignored acquire and a release skipped by an exception',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': factory,
      'src/orders.ts': `import { createLock } from './lock';
export async function pay(orderId: string, charge: () => Promise<void>) {
  const lock = createLock(orderId);
  await lock.acquire();
  await charge();
  await lock.release();
}
`,
    },
    expected: ['src/orders.ts: check-acquire-result', 'src/orders.ts: release-on-all-paths'],
  },
  {
    name: 'a correct caller of the same factory gives nothing',
    files: {
      'src/redis.ts': client,
      'src/lock.ts': factory,
      'src/orders.ts': `import { createLock } from './lock';
export async function pay(orderId: string, charge: () => Promise<void>) {
  const lock = createLock(orderId);
  if (!(await lock.acquire())) return false;
  try {
    await charge();
    return true;
  } finally {
    await lock.release();
  }
}
`,
    },
    expected: [],
  },
  {
    name: 'lock functions in an exported namespace, called through the default export',
    files: {
      'src/redis.ts': client,
      'src/locks.ts': `import { randomUUID } from 'node:crypto';
import { redis } from './redis';
namespace locks {
  export async function acquire(key: string): Promise<string | null> {
    const token = randomUUID();
    return (await redis.set(key, token, 'PX', 5000, 'NX')) === 'OK' ? token : null;
  }
  export const release = async (key: string, token: string) =>
    redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, key, token);
}
export default locks;
`,
      'src/report.ts': `import locks from './locks';
export async function nightly(run: () => Promise<void>) {
  await locks.acquire('lock:report');
  await run();
}
`,
    },
    expected: ['src/report.ts: check-acquire-result'],
  },
  {
    name: 'a namespace factory whose object acquires, released by key after the work in a try/catch',
    files: {
      'src/redis.ts': `import Redis from 'ioredis';
export const connect = () => new Redis();
`,
      'src/mutex.ts': `import { connect } from './redis';
namespace mutex {
  export const TTL = 60;
  export const Lock = async (key: string) => {
    const redis = connect();
    return {
      async acquire() {
        return redis.set(key, 'locked', 'EX', TTL, 'NX');
      },
    };
  };
  export const release = async (key: string) => {
    const redis = connect();
    return redis.del(key);
  };
}
export default mutex;
`,
      'src/booking.ts': `import mutex from './mutex';
export async function book(slot: string, save: () => Promise<void>) {
  try {
    const lock = await mutex.Lock(\`slot:\${slot}\`);
    await lock.acquire();
    await save();
    await mutex.release(\`slot:\${slot}\`);
  } catch (e) {
    console.error(e);
  }
}
`,
    },
    expected: ['src/booking.ts: check-acquire-result', 'src/booking.ts: release-on-all-paths', 'src/mutex.ts: owner-checked-release', 'src/mutex.ts: unique-token'],
  },
];

for (const shape of shapes) {
  test(`lock factory: ${shape.name}`, () => {
    const findings = analyzeProject(shape.files);
    assert.deepEqual(findingList(findings), [...shape.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}
