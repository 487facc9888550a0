// A module is summarised only when a name a file uses can come from it: through a barrel, only the
// `export * from` modules whose text names what is asked; for the pre-check of a file with no lock
// code of its own (importsLockHelpers), only the modules it imports something from and uses, and of
// those only the names it uses. What a caller's calls mean stays the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';

const lockModule = (name: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
export async function ${name}(key: string) {
  return redis.set(key, randomUUID(), 'PX', 10000, 'NX');
}
`;
// A thin command wrapper: a caller with a lock word takes its meaning.
const wrapper = `import Redis from 'ioredis';
const redis = new Redis();
export function setValue(key: string, value: string, ttl: number) {
  return redis.set(key, value, 'PX', ttl, 'NX');
}
export function describeLock(key: string) {
  return 'lock ' + key;
}
`;

function project(files: Record<string, string>) {
  const texts = new Map(Object.entries(files));
  const host: ProjectHost = { readFile: (p) => texts.get(p), fileExists: (p) => texts.has(p) };
  return new ProjectIndex({ host });
}

test('through a barrel, only the modules that can export the imported name are summarised', () => {
  const index = project({
    '/p/locks/index.ts': "export * from './orders';\nexport * from './payments';\nexport * from './stock';\n",
    '/p/locks/orders.ts': lockModule('lockOrder'),
    '/p/locks/payments.ts': lockModule('lockPayment'),
    '/p/locks/stock.ts': lockModule('lockStock'),
  });
  const caller = `import { lockPayment } from './locks';
export async function pay(id: string, charge: () => Promise<void>) {
  lockPayment('lock:pay:' + id);
  await charge();
}
`;
  const rules = index.analyze('/p/pay.ts', caller).findings.map((f) => f.rule);
  assert.deepEqual(rules, ['check-acquire-result'], 'the call still takes the helper meaning');
  assert.equal(index.has('/p/locks/payments.ts'), true);
  assert.equal(index.has('/p/locks/orders.ts'), false, 'orders.ts never names lockPayment');
  assert.equal(index.has('/p/locks/stock.ts'), false);
});

test('a nested barrel is followed for the name; a module re-exporting with export * is never skipped by its text', () => {
  const index = project({
    '/p/index.ts': "export * from './locks';\nexport * from './other';\n",
    '/p/locks/index.ts': "export * from './payments';\n",
    '/p/locks/payments.ts': lockModule('lockPayment'),
    '/p/other.ts': lockModule('lockOther'),
  });
  const caller = "import { lockPayment } from './index';\nexport async function pay(id: string) {\n  lockPayment('lock:pay:' + id);\n}\n";
  assert.deepEqual(index.analyze('/p/pay.ts', caller).findings.map((f) => f.rule), ['check-acquire-result']);
  assert.equal(index.has('/p/other.ts'), false);
});

test('pre-check: re-exports and unused imports summarise nothing; a used name is looked up alone', () => {
  const index = project({
    '/p/redis-lock.ts': wrapper,
    '/p/locks.ts': lockModule('acquireLock'),
  });
  // A CommonJS barrel: re-exports a wrapper module, calls nothing.
  const barrel = '"use strict";\nconst tslib_1 = require("tslib");\ntslib_1.__exportStar(require("./redis-lock"), exports);\n';
  assert.equal(index.importsLockHelpers('/p/barrel.js', barrel), false);
  // Imports the lock module but never uses what it imports.
  const unused = "import { acquireLock } from './locks';\nexport const lockTimeoutMs = 5000;\n";
  assert.equal(index.importsLockHelpers('/p/unused.ts', unused), false);
  assert.equal(index.has('/p/redis-lock.ts'), false, 'a re-export does not summarise the module');
  assert.equal(index.has('/p/locks.ts'), false, 'an unused import does not summarise the module');
  // Uses a name of the wrapper module that wraps nothing; then one that does.
  const describes = "import { describeLock } from './redis-lock';\nexport const label = (k: string) => describeLock(k);\n";
  assert.equal(index.importsLockHelpers('/p/describe.ts', describes), false);
  const sets = "import { setValue } from './redis-lock';\nexport const lockIt = (k: string) => setValue('lock:' + k, 'x', 1000);\n";
  assert.equal(index.importsLockHelpers('/p/sets.ts', sets), true);
});

test('pre-check: a namespace binding is looked up by the members read off it, or whole when handed on', () => {
  const index = project({ '/p/redis-lock.ts': wrapper });
  const reads = (member: string) => `const lock_1 = require("./redis-lock");\nexports.run = (k) => lock_1.${member}(k);\n`;
  assert.equal(index.importsLockHelpers('/p/a.js', reads('describeLock')), false);
  assert.equal(index.importsLockHelpers('/p/b.js', reads('setValue')), true);
  const handedOn = 'const lock_1 = require("./redis-lock");\nexports.run = (k) => use(lock_1, k);\n';
  assert.equal(index.importsLockHelpers('/p/c.js', handedOn), true);
});
