// The text pre-check that decides which files without lock code of their own may call a project lock
// helper (rules/project/pre-checks.ts): a lock word counts in code, not in a comment that opens a line.
// And the test that lets a batch analysis blank a command-wrapper module's possible wrappers: only when
// the code it keeps names none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayCallLockHelpers, namesAnyOf, wrapperSpans } from '../../rules/project/pre-checks';

const calls = [
  `import { acquireLock } from './redis-lock';\nexport const run = (id: string) => acquireLock(id);\n`,
  `import { take } from './coordination';\nconst lockKey = 'jobs:nightly';\nexport const run = () => take(lockKey);\n`,
  `const { coordinator } = require('./infra');\nexports.run = async () => { await coordinator.acquire('nightly'); };\n`,
  // A lock word after code on the same line, and a block comment closing before code on its line.
  `import { cache } from './cache';\nexport const run = () => cache.del('k'); // lock\nconst release = cache.unlock; /* x */ export { release };\n`,
  // No lock word: a store's put-if-absent with a finally, perhaps an in-flight claim deleted there.
  `import { putIfMissing, evict } from './store';\nexport async function run(id) {\n  if (!(await putIfMissing(id, 1, 60))) return;\n  try { await work(id); } finally { await evict(id); }\n}\n`,
];
const noCalls = [
  `import { Cache } from './cache';\n// optimistic lock: retried by the caller\nexport const run = (c: Cache) => c.get('k');\n`,
  `import { Pool } from './pool';\n/**\n * @example\n * const lease = await sentinel.acquire();\n */\nexport const lease = (p: Pool) => p.take();\n`,
  // Lock words but no import: nothing in another file to call.
  `const lockKey = 'jobs:nightly';\nexport const key = () => lockKey;\n`,
  // A store's put-if-absent with no finally: caching.
  `import { putIfMissing } from './store';\nexport const remember = (id) => putIfMissing(id, 1, 60);\n`,
];

test('a file with a lock word in code and an import may call a project lock helper', () => {
  for (const text of calls) assert.equal(mayCallLockHelpers(text), true, text);
});

test('a lock word only in comments that open a line, or no import, calls no lock helper', () => {
  for (const text of noCalls) assert.equal(mayCallLockHelpers(text), false, text);
});

// [blanked declaration, kept code, does the kept code name it (or is its name unreadable)?]
const named: Array<[string, string, boolean]> = [
  ['\n  async asyncPut(k: string) { return this.c.set(k) }', 'await this.asyncPut(x)', true],
  ['\n  async asyncPut(k: string) { return this.c.set(k) }', 'await this.put(x)', false],
  ['\n  /** doc */\n  private static async *gen(k) { return this.c.get(k) }', 'for (const x of this.gen(1))', true],
  ['\n  get total() { return this.c.get(1) }', 'return x.total', true],
  ['\n  get(key) { return this.c.get(key) }', 'await cache.get(k)', true],
  ['\n  get(key) { return this.c.get(key) }', 'await cache.fetch(k)', false],
  ['\n  #read(key) { return this.c.get(key) }', 'this.#read(k)', true],
  ['\nexport async function putValue(k) { return client.set(k, 1) }', 'putValue(1)', true],
  ['\n  exporter(k) { return this.c.set(k) }', 'this.exporter()', true],
  ['\n  exporter(k) { return this.c.set(k) }', 'this.er()', false],
  ['\n  [Symbol.iterator]() { return this.c.get(1) }', 'nothing', true],
];

test('a blanked possible wrapper counts as called when the kept code names it, or its name cannot be read', () => {
  for (const [span, kept, expected] of named) assert.equal(namesAnyOf(span, kept, [[0, span.length]]), expected, `${span.trim()} / ${kept}`);
});

test('only the blanked declarations that call a method named like a command may be wrappers', () => {
  const text = 'class A {\n  one() { return this.c.get(1) }\n  two() { return 2 }\n}';
  const one = text.indexOf('\n  one');
  const two = text.indexOf('\n  two');
  assert.deepEqual(wrapperSpans(text, [[one, two], [two, text.length - 1]]), [[one, two]]);
});
