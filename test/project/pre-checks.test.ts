// The text pre-check that decides which files without lock code of their own may call a project lock
// helper (rules/project/pre-checks.ts): a lock word counts in code, not in a comment that opens a line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayCallLockHelpers } from '../../rules/project/pre-checks';

const calls = [
  `import { acquireLock } from './redis-lock';\nexport const run = (id: string) => acquireLock(id);\n`,
  `import { take } from './coordination';\nconst lockKey = 'jobs:nightly';\nexport const run = () => take(lockKey);\n`,
  `const { coordinator } = require('./infra');\nexports.run = async () => { await coordinator.acquire('nightly'); };\n`,
  // A lock word after code on the same line, and a block comment closing before code on its line.
  `import { cache } from './cache';\nexport const run = () => cache.del('k'); // lock\nconst release = cache.unlock; /* x */ export { release };\n`,
];
const noCalls = [
  `import { Cache } from './cache';\n// optimistic lock: retried by the caller\nexport const run = (c: Cache) => c.get('k');\n`,
  `import { Pool } from './pool';\n/**\n * @example\n * const lease = await sentinel.acquire();\n */\nexport const lease = (p: Pool) => p.take();\n`,
  // Lock words but no import: nothing in another file to call.
  `const lockKey = 'jobs:nightly';\nexport const key = () => lockKey;\n`,
];

test('a file with a lock word in code and an import may call a project lock helper', () => {
  for (const text of calls) assert.equal(mayCallLockHelpers(text), true, text);
});

test('a lock word only in comments that open a line, or no import, calls no lock helper', () => {
  for (const text of noCalls) assert.equal(mayCallLockHelpers(text), false, text);
});
