// An edited open document is summarised only once another file depends on it (ProjectIndex.modelOf
// with summaryOnDemand): the first importer summarises it then, from its current text, and a file
// that others depend on is summarised on every edit, so they are told when its meaning changes.
// `lockwise check` analyses the same way (ProjectIndex.analyze with summaryOnDemand): whichever is
// analysed first, the helper module or its caller, it finds what summarising every file finds.
// (Every project test also runs both ways: harness.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSource } from '../../rules/analyze';
import { emptyConfig } from '../../rules/config';
import { memoryHost, type ProjectHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';

const HELPER = '/project/src/lock.ts';
const ROUTE = '/project/src/route.ts';
const locking = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function acquireLock(key: string) {
  return redis.set(key, randomUUID(), 'PX', 10000, 'NX');
}
`;
const notLocking = `export async function acquireLock(key: string) {
  return key.length > 0;
}
`;
const route = `import { acquireLock } from './lock';
export async function pay(id: string, charge: () => Promise<void>) {
  acquireLock('lock:pay:' + id);
  await charge();
}
`;

function project(texts: Map<string, string>) {
  const host: ProjectHost = { readFile: (p) => texts.get(p), fileExists: (p) => texts.has(p) };
  const changed: string[][] = [];
  const index = new ProjectIndex({ host, onMeaningChanged: (_path, affected) => changed.push([...affected]) });
  const edit = (path: string, text: string) => {
    texts.set(path, text);
    index.modelOf(path, text, parseSource(path, text), emptyConfig(), true);
  };
  const rules = (path: string) => index.analyze(path, texts.get(path)!).findings.map((f) => f.rule);
  return { index, edit, rules, changed };
}

test('summary on demand: an edited file nothing depends on is not summarised; its first importer reads its current text', () => {
  const texts = new Map([[HELPER, locking], [ROUTE, route]]);
  const { index, edit, rules, changed } = project(texts);
  // Summarised eagerly once (a code action's analysis), then edited with nobody depending on it.
  index.modelOf(HELPER, locking, parseSource(HELPER, locking), emptyConfig());
  assert.equal(index.has(HELPER), true);
  edit(HELPER, notLocking);
  assert.equal(index.has(HELPER), false, 'the edit left no summary, and none of the old text');
  assert.deepEqual(rules(ROUTE), [], 'the route sees the helper as it is now: no lock in it');
  // The route now depends on it: the next edit is summarised, and the route told.
  edit(HELPER, locking);
  assert.equal(index.has(HELPER), true);
  assert.deepEqual(changed, [[ROUTE]]);
  assert.deepEqual(rules(ROUTE), ['check-acquire-result']);
});

test('summary on demand: a file others depend on is summarised on every edit, and they are told', () => {
  const texts = new Map([[HELPER, locking], [ROUTE, route]]);
  const { index, edit, rules, changed } = project(texts);
  assert.deepEqual(rules(ROUTE), ['check-acquire-result']);
  edit(HELPER, notLocking);
  assert.equal(index.has(HELPER), true, 'summarised: the route depends on it');
  assert.deepEqual(changed, [[ROUTE]], 'the route is told its helper changed meaning');
  assert.deepEqual(rules(ROUTE), []);
});

// Large business functions with no lock word are blanked before parsing (engine/lock-text.ts); this
// one calls the file's own lock function, which only its summary says is one.
const business = Array.from({ length: 40 }, (_, i) => `  const total${i} = items.reduce((sum, item) => sum + item.price * ${i + 1}, 0);`).join('\n');
const ownHelperInBlankedCode = `import Redis from 'ioredis';
const redis = new Redis();
export async function grab(key: string) {
  return redis.set(key, 'owner', 'PX', 10000, 'NX');
}
export async function checkout(id: string, items: { price: number }[]) {
${business}
  grab('order:' + id);
  return total0;
}
`;

function analyzeInOrder(files: Record<string, string>, order: string[], summaryOnDemand: boolean) {
  const index = new ProjectIndex({ host: memoryHost(files) });
  const findings = order.map((path) => {
    const result = index.analyze(path, files[path], { config: emptyConfig(), summaryOnDemand });
    return result.findings.map((f) => `${path}:${files[path].slice(0, f.span.start).split('\n').length}: ${f.rule}`);
  });
  return { index, findings };
}

for (const order of [[HELPER, ROUTE], [ROUTE, HELPER]]) {
  test(`summary on demand in a batch: ${order.map((p) => p.slice(p.lastIndexOf('/') + 1)).join(' then ')} finds what summarising every file finds`, () => {
    const files = { [HELPER]: locking, [ROUTE]: route };
    const eager = analyzeInOrder(files, order, false);
    const onDemand = analyzeInOrder(files, order, true);
    assert.deepEqual(onDemand.findings, eager.findings);
    assert.ok(onDemand.findings.flat().includes(`${ROUTE}:3: check-acquire-result`), 'the route takes the helper\'s meaning');
    assert.equal(onDemand.index.has(HELPER), true, 'the route asked for the helper\'s summary');
    assert.equal(onDemand.index.has(ROUTE), false, 'nothing asked for the route\'s');
    assert.equal(eager.index.has(ROUTE), true);
  });
}

test('summary on demand in a batch: a file that calls its own lock function from code blanked before parsing is summarised all the same', () => {
  const path = '/project/src/checkout.ts';
  const files = { [path]: ownHelperInBlankedCode };
  const eager = analyzeInOrder(files, [path], false);
  assert.deepEqual(eager.findings, [[`${path}:47: check-acquire-result`]]);
  assert.deepEqual(analyzeInOrder(files, [path], true).findings, eager.findings);
});

// A module that wraps Redis commands keeps, for its summary, every declaration calling a method named
// like one (`get(`, `set(`): its own analysis, which no file has asked a summary of yet, blanks them; the summary
// it makes then is partial, and made again when an importer asks. Its wrapper is long enough to be
// blanked (short members always stay), and the module calls its own method, so it is summarised.
const SERVICE = '/project/src/cache.service.ts';
const JOB = '/project/src/job.ts';
const pricing = Array.from({ length: 12 }, (_, i) => `    const price${i} = rates.get(sku) ?? ${i};`).join('\n');
const cacheService = (ownCall: string) => `import Redis from 'ioredis';
export class CacheService {
  private readonly client = new Redis();
  async put(key: string, value: string, ...options: Array<string | number>) {
    // Every write of the service goes through here, so that the keys of all its callers are set the
    // same way and can be found again by the same prefix when the cache is flushed by an operator;
    // the options are the client's own, and are handed on as they are, whatever the caller wrote.
    return this.client.set(key, value, ...options);
  }
  quote(sku: string, rates: Map<string, number>) {
${pricing}
    return price0 + price11;
  }
  async refresh(id: string) {
    await this.client.del(\`stale:\${id}\`);
    await this.warm(id);${ownCall}
  }
  private async warm(id: string) {
    await this.client.get(\`order:\${id}\`);
  }
}
export const cache = new CacheService();
`;
const job = `import { cache } from './cache.service';
export async function runJob(id: string, work: () => Promise<void>) {
  await cache.put('lock:job:' + id, 'worker', 'NX');
  await work();
}
`;

for (const order of [[SERVICE, JOB], [JOB, SERVICE]]) {
  test(`summary on demand in a batch: a command-wrapper module and its caller, ${order.map((p) => p.slice(p.lastIndexOf('/') + 1)).join(' then ')}: the caller reads the wrapper`, () => {
    const files = { [SERVICE]: cacheService(''), [JOB]: job };
    const eager = analyzeInOrder(files, order, false);
    assert.ok(eager.findings.flat().some((f) => f.startsWith(`${JOB}:3: `)), 'the wrapped SET NX without a TTL is found in the caller');
    assert.deepEqual(analyzeInOrder(files, order, true).findings, eager.findings);
  });
}

test('summary on demand in a batch: a command-wrapper module that calls its own wrapper keeps it', () => {
  const files = { [SERVICE]: cacheService("\n    await this.put('lock:refresh:' + id, 'worker', 'NX');") };
  const eager = analyzeInOrder(files, [SERVICE], false);
  assert.ok(eager.findings.flat().some((f) => f.startsWith(`${SERVICE}:28: `)), 'the own wrapper call is a SET NX without a TTL');
  assert.deepEqual(analyzeInOrder(files, [SERVICE], true).findings, eager.findings);
});
