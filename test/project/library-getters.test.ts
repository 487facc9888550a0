// A lock library object reached through a class getter (`static get lock(): Redlock`, then
// `this.lock.acquire(...)`): the class's methods are lock helpers, and their callers are judged with them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const cases: Array<{ name: string; files: Record<string, string>; expected: string[] }> = [
  {
    name: 'a static getter makes the Redlock lazily; a caller logs a failed acquire and carries on',
    files: {
      'src/locks/Coordinator.ts': `import Redlock, { type Lock } from 'redlock';
import Redis from 'ioredis';
export class Coordinator {
  static get lock(): Redlock {
    if (!this.instance) this.instance = new Redlock([new Redis()], { retryCount: 5, retryDelay: 200, retryJitter: 100 });
    return this.instance;
  }
  static async take(resource: string, ttl: number): Promise<Lock> {
    return this.lock.acquire([resource], ttl);
  }
  private static instance: Redlock;
}
`,
      'src/reports/build.ts': `import { Coordinator } from '../locks/Coordinator';
declare function render(id: string): Promise<void>;
export async function build(id: string) {
  let held;
  try {
    try {
      held = await Coordinator.take(\`report:\${id}\`, 10_000);
    } catch (err) {
      console.warn('no lock for report', id, err);
    }
    await render(id);
  } finally {
    if (held) await held.release();
  }
}
`,
    },
    expected: ['src/reports/build.ts: decide-redis-failure'],
  },
  {
    name: 'a getter declared to return a redis-semaphore Mutex; the release is not in a finally',
    files: {
      'src/ledger.ts': `import { Mutex } from 'redis-semaphore';
import Redis from 'ioredis';
declare const redis: Redis;
declare function post(entry: string): Promise<void>;
export class Ledger {
  private made?: Mutex;
  private get mutex(): Mutex {
    return this.made ?? (this.made = new Mutex(redis, 'ledger', { onLockLost: (err) => { throw err; } }));
  }
  async append(entry: string) {
    await this.mutex.acquire();
    await post(entry);
    await this.mutex.release();
  }
}
`,
    },
    expected: ['src/ledger.ts: release-on-all-paths'],
  },
  {
    name: 'a getter named lock that hands back an in-process lock is no Redis lock',
    files: {
      'src/queue.ts': `import AsyncLock from 'async-lock';
export class Queue {
  private readonly inner = new AsyncLock();
  get lock(): AsyncLock {
    return this.inner;
  }
  async push(item: string, write: (i: string) => Promise<void>) {
    const done = await this.lock.acquire('queue', 5000);
    await write(item);
    await done.release();
  }
}
`,
    },
    expected: [],
  },
];

for (const c of cases) {
  test(`library object through a getter: ${c.name}`, () => {
    const findings = analyzeProject(c.files);
    assert.deepEqual(findingList(findings), [...c.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}
