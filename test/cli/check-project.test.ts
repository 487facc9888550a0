// `lockwise check` with the project-wide lock model: helpers in one file, their callers in others
// (with no lock code of their own), found through a barrel; related locations point across files.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkJson, makeTree, runCli, type Tree } from './cli-process';

let tree: Tree;
before(() => {
  tree = makeTree({
    'src/redis.ts': `import Redis from 'ioredis';\nexport const redis = new Redis();\n`,
    'src/lib/lock/redis-lock.ts': `import { redis } from '../../redis';
export async function acquireLock(key: string, ttl = 5000) {
  return redis.set(key, 'locked', 'PX', ttl, 'NX');
}
export async function releaseLock(key: string) {
  await redis.del(key);
}
`,
    'src/lib/index.ts': `export * from './lock/redis-lock';\n`,
    // No lock word, no Redis command: only the import says it uses a lock helper.
    'src/routes/pay.ts': `import { acquireLock as take, releaseLock as give } from '../lib';
export async function pay(id: string, charge: () => Promise<void>) {
  await take('order:' + id);
  await charge();
  await give('order:' + id);
}
`,
    'src/routes/plain.ts': `export const add = (a: number, b: number) => a + b;\n`,
  });
});
after(() => tree.remove());

test('check: findings at the call sites of a helper in another file, and once inside the helper', () => {
  const { run, report } = checkJson(['src'], tree.root);
  assert.equal(run.status, 1, run.stderr);
  const found = report.findings.map((f) => `${f.file} ${f.rule}`).sort();
  assert.deepEqual(found, [
    'src/lib/lock/redis-lock.ts owner-checked-release',
    'src/lib/lock/redis-lock.ts unique-token',
    'src/routes/pay.ts check-acquire-result',
    'src/routes/pay.ts release-on-all-paths',
  ]);
  const ignored = report.findings.find((f) => f.rule === 'check-acquire-result');
  assert.deepEqual(ignored?.related.map((r) => [r.file, r.line]), [['src/lib/lock/redis-lock.ts', 3]]);
  // The helper module and the caller; not the barrel (it re-exports, so calls nothing), plain.ts nor redis.ts.
  assert.equal(report.filesAnalyzed, 2);
});

test('check: SARIF relatedLocations name the helper file, pretty output prints its path', () => {
  const sarif = JSON.parse(runCli(['check', '--format', 'sarif', 'src'], tree.root).stdout);
  const result = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'check-acquire-result');
  assert.equal(result.relatedLocations[0].physicalLocation.artifactLocation.uri, 'src/lib/lock/redis-lock.ts');
  assert.equal(result.relatedLocations[0].physicalLocation.region.startLine, 3);
  const pretty = runCli(['check', 'src'], tree.root).stdout;
  assert.match(pretty, /src\/lib\/lock\/redis-lock\.ts:3:10 {2}the acquire inside take/);
});

test('check: a file with no lock word that calls an imported acquire (a Redlock made elsewhere, an acquire* helper) is analysed', () => {
  const words = makeTree({
    'src/coordination.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
export const coordinator = new Redlock([new Redis()]);
`,
    'src/claims.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class Claims {
  async acquireMatchOwnership(id: string, me: string) { return (await redis.set(\`claim:\${id}\`, me, 'EX', 10, 'NX')) === 'OK'; }
  async releaseMatchOwnership(id: string, me: string) { await redis.eval(RELEASE, 1, \`claim:\${id}\`, me); }
}
export const newOwner = () => randomUUID();
`,
    // Neither file says "lock": only their calls and imports lead to lock code.
    'src/search.ts': `import { coordinator } from './coordination';
export async function reindex(rebuild: () => Promise<void>) {
  const held = await coordinator.acquire(['search:rebuild'], 30_000);
  await rebuild();
  await held.release();
}
`,
    'src/arena.ts': `import { Claims, newOwner } from './claims';
export async function open(claims: Claims, id: string, run: () => Promise<void>) {
  const me = newOwner();
  if (!(await claims.acquireMatchOwnership(id, me))) return;
  await run();
  await claims.releaseMatchOwnership(id, me);
}
`,
  });
  try {
    const { report } = checkJson(['src'], words.root);
    assert.deepEqual(report.findings.map((f) => `${f.file} ${f.rule}`).sort(), ['src/arena.ts release-on-all-paths', 'src/search.ts release-on-all-paths']);
  } finally {
    words.remove();
  }
});

test('check: a caller of a service injected by an interface not named like a lock, that declares lock operations, is analysed', () => {
  const injected = makeTree({
    'package.json': '{ "name": "crawler" }',
    'src/queue/coordinator.ts': `export interface Handle { unlock(): Promise<void> }
export interface Coordinator {
  acquireLock(name: string, ttlMs: number): Promise<Handle | null>;
}
`,
    'src/queue/redis-coordinator.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Coordinator, Handle } from './coordinator';
const FREE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0';
export class RedisCoordinator implements Coordinator {
  constructor(private readonly redis: Redis) {}
  async acquireLock(name: string, ttlMs: number): Promise<Handle | null> {
    const id = randomUUID();
    if (!(await this.redis.set(\`lock:\${name}\`, id, 'PX', ttlMs, 'NX'))) return null;
    return { unlock: async () => { await this.redis.eval(FREE, 1, \`lock:\${name}\`, id); } };
  }
}
`,
    // Bound in a container elsewhere: the caller never imports the Redis class.
    'src/crawl/sitemap.ts': `import { inject, injectable } from 'inversify';
import type { Coordinator } from '../queue/coordinator';
@injectable()
export class SitemapJob {
  constructor(@inject('Coordinator') private readonly coordinator: Coordinator) {}
  async refresh(build: () => Promise<void>) {
    const held = await this.coordinator.acquireLock('sitemap', 60_000);
    if (!held) return;
    await build();
    await held.unlock();
  }
}
`,
  });
  try {
    const { report } = checkJson(['src'], injected.root);
    assert.deepEqual(report.findings.map((f) => `${f.file} ${f.rule}`), ['src/crawl/sitemap.ts release-on-all-paths']);
  } finally {
    injected.remove();
  }
});
