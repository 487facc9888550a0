// decide-redis-failure through a project helper in another file: which argument is the lock's key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject } from './harness';

// A gate object that locks a key built from the name it was given, and a withLock-like helper taking (name, routine, options).
const GATE_MODULE = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const FREE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export class Gate {
  private readonly me = randomUUID();
  private readonly name: string;
  constructor(name: string, private readonly ttl: number) {
    this.name = \`gate:\${name}\`;
  }
  async take(): Promise<boolean> {
    return (await redis.set(this.name, this.me, 'PX', this.ttl, 'NX')) === 'OK';
  }
  async takeWithin(maxMs: number): Promise<boolean> {
    const end = Date.now() + maxMs;
    while (Date.now() < end) {
      if (await this.take()) return true;
      await new Promise((done) => setTimeout(done, 20 + Math.random() * 30));
    }
    return false;
  }
  async give(): Promise<void> {
    await redis.eval(FREE, 1, this.name, this.me);
  }
}
export async function guarded<T>(name: string, routine: () => Promise<T>, options: { ttl?: number; maxMs?: number } = {}): Promise<T> {
  const { ttl = 10000, maxMs = 3000 } = options;
  const gate = new Gate(name, ttl);
  if (!(await gate.takeWithin(maxMs))) throw new Error('busy');
  try {
    return await routine();
  } finally {
    await gate.give();
  }
}
`;

test('decide-redis-failure names the key a helper locks, not its options argument', () => {
  const findings = analyzeProject({
    'src/locks/gate.ts': GATE_MODULE,
    'src/payout.ts': `import { guarded } from './locks/gate';
async function book(user: string): Promise<string> {
  return user;
}
export async function payout(user: string): Promise<string> {
  const run = () => book(user);
  try {
    return await guarded(\`payout:\${user}\`, run, { ttl: 15000, maxMs: 5000 });
  } catch {
    return run();
  }
}
`,
  }).filter((f) => f.rule === 'decide-redis-failure');
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  assert.equal(findings[0].file, 'src/payout.ts');
  assert.match(findings[0].message, /the acquire of `payout:\$\{user\}`/);
  assert.doesNotMatch(findings[0].message, /ttl/);
});

test('decide-redis-failure: a key fixed inside a helper is not read from the options of the helper around it', () => {
  const findings = analyzeProject({
    'src/locks/nightly.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const me = randomUUID();
async function takeNightly(maxMs: number): Promise<boolean> {
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    if ((await redis.set('lock:nightly', me, 'PX', 60000, 'NX')) === 'OK') return true;
    await new Promise((done) => setTimeout(done, 50 + Math.random() * 50));
  }
  return false;
}
export async function nightly<T>(routine: () => Promise<T>, options: { maxMs?: number } = {}): Promise<T> {
  const { maxMs = 3000 } = options;
  if (!(await takeNightly(maxMs))) throw new Error('busy');
  try {
    return await routine();
  } finally {
    await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, 'lock:nightly', me);
  }
}
`,
    'src/report.ts': `import { nightly } from './locks/nightly';
async function build(): Promise<number> {
  return 1;
}
export async function report(): Promise<number> {
  try {
    return await nightly(build, { maxMs: 5000 });
  } catch {
    return build();
  }
}
`,
  }).filter((f) => f.rule === 'decide-redis-failure');
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /the acquire of 'lock:nightly' fails/);
});
