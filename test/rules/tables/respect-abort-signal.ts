import type { RuleCases } from '../harness';

const rl = `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
async function step(_signal?: AbortSignal): Promise<void> {}
`;

/** A project's own redlock context, whose using takes the settings after the routine. */
const ownRedlock = `async function step(_signal?: AbortSignal): Promise<void> {}
interface RedlockContext {
  using<T>(key: string, ms: number, routine: (signal: AbortSignal) => Promise<T>, settings?: { retryCount?: number }): Promise<T>;
}
declare const locks: { redlock(): RedlockContext };
`;

/** A check of whether the lock is free: take it with no retry and a routine that `does`, then report. */
const probe = (does: string) => `${rl}export async function isFree(name: string): Promise<boolean> {
  try {
    await redlock.using([\`lock:\${name}\`], 1000, { retryCount: 0 }, () => ${does});
  } catch {
    return false;
  }
  return true;
}
`;

export const respectAbortSignalCases: RuleCases = {
  valid: [
    { name: 'checks signal.aborted', code: `${rl}export async function run() {
  await redlock.using(['report'], 5000, async (signal) => {
    await step();
    if (signal.aborted) throw signal.error;
    await step();
  });
}
` },
    { name: 'forwards the signal', code: `${rl}export async function run() {
  await redlock.using(['report'], 5000, { retryCount: 3 }, async (signal) => step(signal));
}
` },
    { name: 'withLock routine that checks', code: `declare function withLock<T>(c: unknown, k: string, o: { ttlMs: number }, w: (s: AbortSignal) => Promise<T>): Promise<T>;
export async function run(redis: unknown) {
  await withLock(redis, 'lock:x', { ttlMs: 1000 }, async (signal) => {
    signal.throwIfAborted();
  });
}
` },
    { name: 'a probe of whether the lock is free, whose routine only hands back a settled promise: no step to stop', code: probe('Promise.resolve()') },
  ],
  invalid: [
    {
      name: 'the same probe whose routine runs a step inside the settled promise: that step goes on after a loss',
      message: ['does not take the AbortSignal'],
      code: probe('Promise.resolve(step())'),
      output: null,
    },
    {
      name: 'routine handed before the settings (a project redlock interface taking them last) does not take the signal',
      message: ['does not take the AbortSignal'],
      code: `${ownRedlock}export async function run() {
  await locks.redlock().using('report', 5000, async () => {
    await step();
    await step();
  }, { retryCount: 0 });
}
`,
      output: `${ownRedlock}export async function run() {
  await locks.redlock().using('report', 5000, async (signal) => {
    await step();
    signal.throwIfAborted();
    await step();
  }, { retryCount: 0 });
}
`,
    },
    {
      name: 'routine run by the redlock a method of the class makes (this.locks().using) does not take the signal',
      message: ['does not take the AbortSignal'],
      code: `import Redis from 'ioredis';
import Redlock from 'redlock';
async function step(_signal?: AbortSignal): Promise<void> {}
export class Exports {
  constructor(private readonly redis: Redis) {}
  private locks() {
    return new Redlock([this.redis], { retryJitter: 200 });
  }
  async run(id: string) {
    await this.locks().using([\`export:\${id}\`], 5000, async () => {
      await step();
      await step();
    });
  }
}
`,
      output: `import Redis from 'ioredis';
import Redlock from 'redlock';
async function step(_signal?: AbortSignal): Promise<void> {}
export class Exports {
  constructor(private readonly redis: Redis) {}
  private locks() {
    return new Redlock([this.redis], { retryJitter: 200 });
  }
  async run(id: string) {
    await this.locks().using([\`export:\${id}\`], 5000, async (signal) => {
      await step();
      signal.throwIfAborted();
      await step();
    });
  }
}
`,
    },
    {
      name: 'routine that does not take the signal',
      message: ['does not take the AbortSignal'],
      code: `${rl}export async function run() {
  await redlock.using(['report'], 5000, async () => {
    await step();
    await step();
  });
}
`,
      output: `${rl}export async function run() {
  await redlock.using(['report'], 5000, async (signal) => {
    await step();
    signal.throwIfAborted();
    await step();
  });
}
`,
    },
    {
      name: 'signal taken, never read',
      message: ['never reads its signal parameter'],
      code: `${rl}export async function run() {
  await redlock.using(['report'], 5000, async (signal) => {
    await step();
  });
}
`,
      output: null,
    },
    {
      name: 'withLock routine without the signal',
      code: `declare function withLock<T>(c: unknown, k: string, o: { ttlMs: number }, w: (s: AbortSignal) => Promise<T>): Promise<T>;
async function step(): Promise<void> {}
export async function run(redis: unknown) {
  await withLock(redis, 'lock:x', { ttlMs: 1000 }, async function () {
    await step();
    await step();
  });
}
`,
      output: `declare function withLock<T>(c: unknown, k: string, o: { ttlMs: number }, w: (s: AbortSignal) => Promise<T>): Promise<T>;
async function step(): Promise<void> {}
export async function run(redis: unknown) {
  await withLock(redis, 'lock:x', { ttlMs: 1000 }, async function (signal) {
    await step();
    signal.throwIfAborted();
    await step();
  });
}
`,
    },
  ],
};
