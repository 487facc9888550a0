// A once-only claim made through the project's own command wrappers: the GET check in one helper, the
// plain SET in another (in the same class or another file), called one after the other by a guard.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const latch = `import Redis from 'ioredis';
export class JobLatch {
  constructor(private readonly store: Redis) {}
  guard(options: { name: string; seconds: number }, job: () => Promise<void>) {
    const { name, seconds } = options;
    return async () => {
      const idle = await this.isIdle(name);
      if (!idle) return;
      await this.occupy(name, seconds);
      await job();
    };
  }
  private async isIdle(name: string) {
    const held = await this.store.get(name);
    return held === null;
  }
  private async occupy(name: string, seconds: number) {
    await this.store.set(name, seconds);
  }
}
`;

test('a guard whose GET check and plain SET are private methods: one claim in two round trips, without a TTL', () => {
  const findings = analyzeProject({ 'src/job-latch.ts': latch });
  assert.deepEqual(findingList(findings), ['src/job-latch.ts: exclusive-acquire'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /claim made in two round trips/);
  assert.match(findings[0].message, /sets no TTL/);
  assert.equal(findings[0].related.length, 1, 'the separate check is pointed at');
});

test('the check and the SET in a store module of their own, the guard in a job file', () => {
  const findings = analyzeProject({
    'src/store.ts': `import Redis from 'ioredis';
export class Store {
  private readonly client = new Redis();
  async missing(key: string) {
    return (await this.client.exists(key)) === 0;
  }
  async put(key: string, value: string, seconds: number) {
    return this.client.set(key, value, 'EX', seconds);
  }
}
`,
    'src/nightly.ts': `import { Store } from './store';
const store = new Store();
export async function nightlyLockedRun(run: () => Promise<void>) {
  if (!(await store.missing('nightly:lock'))) return;
  await store.put('nightly:lock', 'taken', 600);
  await run();
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/nightly.ts: exclusive-acquire'], findings.map((f) => f.message).join('\n'));
  assert.doesNotMatch(findings[0].message, /sets no TTL/);
});

test('a cache read through the same wrappers, filled with the value it computed after the miss, is no claim', () => {
  const findings = analyzeProject({
    'src/job-latch.ts': latch.replace('await this.occupy(name, seconds);\n      await job();', 'const fresh = await job();\n      await this.occupy(name, fresh as unknown as number);\n      await job();'),
  });
  assert.deepEqual(findingList(findings), []);
});
