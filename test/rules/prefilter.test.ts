// The text pre-check (rules/engine/prefilter.ts) decides which files are parsed at all, so it must
// never turn away lock code. Every piece of code the project knows to be lock code is analysed here
// without it: each rule table case (input and fixed output), each file of examples/ and each code
// block of rules/*.md. Whatever produces a finding, a lock site (the Redis Locks view) or a
// "Convert to withLock" region must pass the pre-check with the same helper names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSource } from '../../rules/analyze';
import { emptyConfig } from '../../rules/config';
import { mightHoldLockCode } from '../../rules/engine/prefilter';
import { lockRegionsIn } from '../../rules/regions';
import { analyzeWithSites } from '../../rules/sites';
import { docInputs, exampleInputs, tableInputs, type Input } from './helpers/known-lock-code';

/** What the analyzer finds in the code when nothing is filtered: findings, lock sites, withLock regions. */
function lockCodeIn(input: Input): string[] {
  let sourceFile = parseSource(input.fileName, input.code);
  const { findings, sites } = analyzeWithSites(sourceFile, input.config);
  sourceFile = parseSource(input.fileName, input.code);
  const regions = lockRegionsIn(sourceFile, input.config);
  return [...findings.map((f) => f.rule), ...sites.map((s) => `lock site ${s.kind}`), ...regions.map(() => 'withLock region')];
}

function assertPassed(inputs: Input[], minimum: number): void {
  const withLockCode = inputs.filter((input) => lockCodeIn(input).length > 0);
  // The loaders really found the inputs, and most of them are lock code.
  assert.ok(withLockCode.length >= minimum, `only ${withLockCode.length} inputs with lock code`);
  const missed = withLockCode
    .filter((input) => !mightHoldLockCode(input.code, input.config.helpers))
    .map((input) => `${input.where}: ${lockCodeIn(input).join(', ')}`);
  assert.deepEqual(missed, [], 'lock code the pre-check turns away');
}

test('every rule table input with lock code passes the pre-check', () => {
  assertPassed(tableInputs(), 90);
});

test('every example file with lock code passes the pre-check', () => {
  assertPassed(exampleInputs(), 10);
});

test('every rule doc example with lock code passes the pre-check', () => {
  assertPassed(docInputs(), 22);
});

// Shapes the engine reads that no table, example or doc holds, one per clause of the pre-check.
const MORE_LOCK_CODE: Record<string, string> = {
  'a Lua release that removes the holder from a zset, then the whole zset': `import Redis from 'ioredis';
const redis = new Redis();
export async function leave(name: string, id: string) {
  await redis.eval("redis.call('zrem', KEYS[1], ARGV[1]) return redis.call('del', KEYS[1])", 1, \`semaphore:\${name}\`, id);
}
`,
  'an injected redlock, neither imported nor named Redlock': `exports.report = async (redlock, id) => {
  await redlock.using([\`report:\${id}\`], 5000, async () => {
    await build(id);
  });
};
`,
  'redlock imported under another name': `import * as locks from 'redlock';
import Redis from 'ioredis';
export const locker = new locks.default([new Redis()], { retryCount: -1 });
`,
  'a global Redlock, not imported': `const redlock = new Redlock([client], { retryCount: -1 });
module.exports = redlock;
`,
  'a redis-semaphore class through a namespace': `const RS = require('redis-semaphore');
exports.mutex = (client, id) => new RS.Mutex(client, \`job:\${id}\`);
`,
  // Only comment blocks that open a line are skipped: "/*" inside a string opens nothing.
  'a "/*" glob in a string before the lock code': `import Redis from 'ioredis';
const redis = new Redis();
export const LOCKED_ROUTES = ['/orders/*', '/admin/*'];
export async function lockOrder(id: string, token: string) {
  return redis.set(\`lock:order:\${id}\`, token, 'NX');
}
/* end of the lock helpers */
`,
  'a DEL called by element access': `import Redis from 'ioredis';
const redis = new Redis();
export async function releaseLock(name: string) {
  await redis['del'](\`lock:\${name}\`);
}
`,
};

test('shapes no table holds pass the pre-check too', () => {
  const inputs = Object.entries(MORE_LOCK_CODE).map(([where, code]) => ({ where, fileName: where.includes('import') ? 'a.ts' : 'a.js', code, config: emptyConfig() }));
  for (const input of inputs) assert.notDeepEqual(lockCodeIn(input), [], `${input.where} is lock code`);
  assertPassed(inputs, inputs.length);
});

test('the pre-check is a text test: configured helper names let a file through', () => {
  const code = 'export async function run() {\n  await takeLock("report");\n}\n';
  assert.equal(mightHoldLockCode(code, emptyConfig().helpers), false);
  assert.equal(mightHoldLockCode(code, { acquire: ['takeLock'], release: [], extend: [] }), true);
});

// What made most of the 118 bench corpus files it passed parsed for nothing: Redis client and queue
// libraries that name every command and option in doc comments and command tables, and lock words
// near unrelated deletes. None is lock code, and none may pass.
const NOT_LOCK_CODE: Record<string, string> = {
  'options named in a doc comment': `/**
 * Sets the value. @param mode - 'NX' (only if absent) or 'XX' (only if present); see also SETNX and DEL.
 */
export function store(cache: Map<string, string>, key: string, value: string) {
  cache.set(key, value);
}
`,
  'a command table keyed by command name': `export const COMMANDS = {
  "setnx": { arity: 3, flags: ["write", "denyoom"] },
  "del": { arity: -2, flags: ["write"] },
  "pexpire": { arity: -3, flags: ["write", "fast"] },
};
export const lockFree = true;
`,
  'lock words with an ordinary delete': `// Unlocks the editor, then deletes the draft.
export function unlockEditor(drafts: Map<string, string>, id: string) {
  drafts.delete(id);
}
`,
  '"nx", "del" and "eval" inside other words and comments': `import { Lynx } from './lynx';
// eval: the model runs in the sphinx pipeline; xx marks unknown digits; del is the Spanish "of the"
export const larynx = new Lynx().evaluate({ modelo: 'del norte', mask: 'xx-xx' });
`,
  'a Map with a lock-named key and no Redis command': `const locks = new Map<string, number>();
export function lockOrder(id: string) {
  locks.set(\`lock:\${id}\`, Date.now());
}
`,
};

for (const [name, code] of Object.entries(NOT_LOCK_CODE)) {
  test(`turned away: ${name}`, () => {
    assert.deepEqual(lockCodeIn({ where: name, fileName: 'a.ts', code, config: emptyConfig() }), [], 'the analyzer finds nothing either');
    assert.equal(mightHoldLockCode(code, emptyConfig().helpers), false);
  });
}
