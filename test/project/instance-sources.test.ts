// Where a caller gets its lock service instance from, besides `new` and injection by constructor type:
// a singleton accessor (`Locks.getInstance()`, annotated or not), a function that hands back a module's
// shared instance, and a DI container's lookup by class (typedi, NestJS moduleRef, tsyringe). Each
// project lists exactly the findings it must give.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const SERVICE = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class Locks {
  private static shared?: Locks;
  private readonly redis = new Redis();
  static getInstance(): Locks {
    if (!Locks.shared) Locks.shared = new Locks();
    return Locks.shared;
  }
  async take(name: string): Promise<boolean> {
    return (await this.redis.set(name, randomUUID(), 'PX', 4000, 'NX')) === 'OK';
  }
  async drop(name: string) {
    await this.redis.del(name);
  }
}
`;

/** A job that ignores the acquire's result and releases outside `finally`, through `locks`. */
const job = (imports: string, obtain: string, receiver = 'locks') => `${imports}
export async function rebuildIndex(shard: number, rebuild: () => Promise<void>) {
${obtain}  await ${receiver}.take(\`index:\${shard}\`);
  await rebuild();
  await ${receiver}.drop(\`index:\${shard}\`);
}
`;
// `drop` forwards one DEL: a thin wrapper, whose bare DEL is each caller's finding.
const MISTAKES = ['src/jobs/index.ts: check-acquire-result', 'src/jobs/index.ts: owner-checked-release', 'src/jobs/index.ts: release-on-all-paths'];

interface Case {
  name: string;
  files: Record<string, string>;
  expected: string[];
}

const cases: Case[] = [
  { name: 'a singleton accessor called in the chain', files: { 'src/locks.ts': SERVICE, 'src/jobs/index.ts': job(`import { Locks } from '../locks';`, '', 'Locks.getInstance()') }, expected: MISTAKES },
  { name: 'a singleton accessor stored in a local', files: { 'src/locks.ts': SERVICE, 'src/jobs/index.ts': job(`import { Locks } from '../locks';`, '  const locks = Locks.getInstance();\n') }, expected: MISTAKES },
  {
    name: 'an unannotated JavaScript accessor that fills a static field with new',
    files: {
      'src/locks.js': `const Redis = require('ioredis');
const { randomUUID } = require('crypto');
class Locks {
  static instance() {
    if (!this.current) this.current = new Locks();
    return this.current;
  }
  constructor() { this.redis = new Redis(); }
  async take(name) { return (await this.redis.set(name, randomUUID(), 'PX', 4000, 'NX')) === 'OK'; }
  async drop(name) { await this.redis.del(name); }
}
module.exports = { Locks };
`,
      'src/jobs/index.js': `const { Locks } = require('../locks');
exports.rebuildIndex = async (shard, rebuild) => {
  const locks = Locks.instance();
  await locks.take('index:' + shard);
  await rebuild();
  await locks.drop('index:' + shard);
};
`,
    },
    expected: ['src/jobs/index.js: check-acquire-result', 'src/jobs/index.js: owner-checked-release', 'src/jobs/index.js: release-on-all-paths'],
  },
  {
    name: 'a function that hands back the module\'s shared instance, without an annotation',
    files: { 'src/locks.ts': `${SERVICE}const shared = new Locks();\nexport function locking() {\n  return shared;\n}\n`, 'src/jobs/index.ts': job(`import { locking } from '../locks';`, '  const locks = locking();\n') },
    expected: MISTAKES,
  },
  {
    name: 'an async factory annotated Promise<Locks>',
    files: { 'src/locks.ts': `${SERVICE}export async function connectLocks(): Promise<Locks> {\n  return Locks.getInstance();\n}\n`, 'src/jobs/index.ts': job(`import { connectLocks } from '../locks';`, '  const locks = await connectLocks();\n') },
    expected: MISTAKES,
  },
  { name: 'typedi: Container.get(Class)', files: { 'src/locks.ts': SERVICE, 'src/jobs/index.ts': job(`import { Container } from 'typedi';\nimport { Locks } from '../locks';`, '  const locks = Container.get(Locks);\n') }, expected: MISTAKES },
  { name: 'NestJS: moduleRef.get(Class) in the chain', files: { 'src/locks.ts': SERVICE, 'src/jobs/index.ts': job(`import { Locks } from '../locks';\ndeclare const moduleRef: { get<T>(type: new () => T): T };`, '', 'moduleRef.get(Locks)') }, expected: MISTAKES },
  { name: 'tsyringe: container.resolve(Class)', files: { 'src/locks.ts': SERVICE, 'src/jobs/index.ts': job(`import { container } from 'tsyringe';\nimport { Locks } from '../locks';`, '  const locks = container.resolve(Locks);\n') }, expected: MISTAKES },
  {
    name: 'methods destructured from the shared instance, at module level and in the function',
    files: {
      'src/locks.ts': `${SERVICE}export const shared = new Locks();\n`,
      'src/jobs/index.ts': `import { shared } from '../locks';
const { take } = shared;
export async function rebuildIndex(shard: number, rebuild: () => Promise<void>) {
  const { drop } = shared;
  await take(\`index:\${shard}\`);
  await rebuild();
  await drop(\`index:\${shard}\`);
}
`,
    },
    expected: MISTAKES,
  },
  {
    name: 'trap: a destructured function of a plain object is no lock call',
    files: {
      'src/locks.ts': SERVICE,
      'src/jobs/index.ts': `const tools = { take: (name: string) => name.length, drop: (name: string) => name };
export async function rebuildIndex(shard: number, rebuild: () => Promise<void>) {
  const { take, drop } = tools;
  take(\`index:\${shard}\`);
  await rebuild();
  drop(\`index:\${shard}\`);
}
`,
    },
    expected: [],
  },
  {
    name: 'trap: the accessor of a class with no lock work, and a get() of a constant, give nothing',
    files: {
      'src/metrics.ts': `export class Metrics {\n  private static one = new Metrics();\n  static getInstance(): Metrics { return Metrics.one; }\n  take(name: string) { return name.length; }\n  drop(name: string) { return name; }\n}\n`,
      'src/jobs/index.ts': job(`import { Metrics } from '../metrics';\nconst KEY = 'index';\ndeclare const cache: Map<string, Metrics>;`, '  const locks = cache.get(KEY) ?? Metrics.getInstance();\n'),
    },
    expected: [],
  },
];

for (const c of cases) {
  test(`instance source: ${c.name}`, () => {
    const findings = analyzeProject(c.files);
    assert.deepEqual(findingList(findings), [...c.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}
