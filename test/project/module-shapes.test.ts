// How a helper reaches its callers through the module system: objects that hold functions declared
// elsewhere, namespace re-exports, CommonJS spreads, and the monorepo's own packages by name (npm, yarn,
// pnpm and lerna workspaces, manifests that point at build output) and `#` subpath imports. Each
// project lists exactly the findings it must give; a bare name that is no project package stays
// unresolved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

// A lock module with three mistakes a caller can make and one of its own (the bare DEL).
const LOCKS = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const client = new Redis();
export async function takeLock(name: string, ms = 8000): Promise<boolean> {
  return (await client.set(name, randomUUID(), 'PX', ms, 'NX')) === 'OK';
}
export async function dropLock(name: string) {
  await client.del(name);
}
`;
const LOCAL_FUNCTIONS = LOCKS.replace(/export async function/g, 'async function');

/** A route that ignores the acquire's result and releases outside `finally`. */
const route = (imports: string, take: string, drop: string) => `${imports}
export async function refund(orderId: string, send: () => Promise<void>) {
  await ${take}(\`refund:\${orderId}\`);
  await send();
  await ${drop}(\`refund:\${orderId}\`);
}
`;
const mistakes = (routeFile: string, lockFile: string) => [`${lockFile}: owner-checked-release`, `${routeFile}: check-acquire-result`, `${routeFile}: release-on-all-paths`];
const json = (value: unknown) => JSON.stringify(value, null, 2);

interface Shape {
  name: string;
  files: Record<string, string>;
  expected: string[];
}

const shapes: Shape[] = [
  {
    name: 'an object of the module\'s own functions (shorthand), the default export',
    files: { 'src/locks.ts': `${LOCAL_FUNCTIONS}const mutex = { takeLock, dropLock };\nexport default mutex;\n`, 'src/refund.ts': route(`import mutex from './locks';`, 'mutex.takeLock', 'mutex.dropLock') },
    expected: mistakes('src/refund.ts', 'src/locks.ts'),
  },
  {
    name: 'an exported object that renames the module\'s functions',
    files: { 'src/locks.ts': `${LOCAL_FUNCTIONS}export const mutex = { acquire: takeLock, release: dropLock };\n`, 'src/refund.ts': route(`import { mutex } from './locks';`, 'mutex.acquire', 'mutex.release') },
    expected: mistakes('src/refund.ts', 'src/locks.ts'),
  },
  {
    name: 'an object of imported functions, exported from another module',
    files: { 'src/impl.ts': LOCKS, 'src/locks.ts': `import { takeLock, dropLock } from './impl';\nexport const mutex = { acquire: takeLock, release: dropLock };\n`, 'src/refund.ts': route(`import { mutex } from './locks';`, 'mutex.acquire', 'mutex.release') },
    expected: mistakes('src/refund.ts', 'src/impl.ts'),
  },
  {
    name: 'the object called in its own file',
    files: { 'src/locks.ts': `${LOCAL_FUNCTIONS}const mutex = { takeLock, dropLock };\n${route('', 'mutex.takeLock', 'mutex.dropLock')}` },
    expected: ['src/locks.ts: check-acquire-result', 'src/locks.ts: owner-checked-release', 'src/locks.ts: release-on-all-paths'],
  },
  {
    name: 'CommonJS: module.exports = an object variable',
    files: {
      'lib/locks.js': `const Redis = require('ioredis');
const { randomUUID } = require('crypto');
const client = new Redis();
async function takeLock(name) { return (await client.set(name, randomUUID(), 'PX', 8000, 'NX')) === 'OK'; }
async function dropLock(name) { await client.del(name); }
const mutex = { takeLock, dropLock };
module.exports = mutex;
`,
      'lib/refund.js': `const mutex = require('./locks');
exports.refund = async (orderId, send) => {
  await mutex.takeLock('refund:' + orderId);
  await send();
  await mutex.dropLock('refund:' + orderId);
};
`,
    },
    expected: ['lib/locks.js: owner-checked-release', 'lib/refund.js: check-acquire-result', 'lib/refund.js: release-on-all-paths'],
  },
  {
    name: 'a namespace re-export: export * as ns from',
    files: { 'src/impl.ts': LOCKS, 'src/index.ts': `export * as locking from './impl';\n`, 'src/refund.ts': route(`import { locking } from './index';`, 'locking.takeLock', 'locking.dropLock') },
    expected: mistakes('src/refund.ts', 'src/impl.ts'),
  },
  {
    name: 'a CommonJS barrel that spreads a require',
    files: {
      'lib/impl.js': `const Redis = require('ioredis');
const crypto = require('crypto');
const client = new Redis();
module.exports = {
  takeLock: async (name) => (await client.set(name, crypto.randomUUID(), 'PX', 8000, 'NX')) === 'OK',
  dropLock: async (name) => { await client.del(name); },
};
`,
      'lib/index.js': `module.exports = { ...require('./impl'), version: 2 };\n`,
      'lib/refund.js': `const { takeLock, dropLock } = require('./index');
exports.refund = async (orderId, send) => {
  await takeLock('refund:' + orderId);
  await send();
  await dropLock('refund:' + orderId);
};
`,
    },
    expected: ['lib/impl.js: owner-checked-release', 'lib/refund.js: check-acquire-result', 'lib/refund.js: release-on-all-paths'],
  },
  {
    name: 'npm workspaces: a package by name, its main pointing at a build the checkout does not have',
    files: {
      'package.json': json({ name: 'shop', private: true, workspaces: ['packages/*'] }),
      'packages/locking/package.json': json({ name: '@shop/locking', main: 'dist/index.js', types: 'dist/index.d.ts' }),
      'packages/locking/src/index.ts': LOCKS,
      'packages/payments/package.json': json({ name: '@shop/payments' }),
      'packages/payments/src/refund.ts': route(`import { takeLock, dropLock } from '@shop/locking';`, 'takeLock', 'dropLock'),
    },
    expected: mistakes('packages/payments/src/refund.ts', 'packages/locking/src/index.ts'),
  },
  {
    name: 'pnpm-workspace.yaml, conditional exports into dist',
    files: {
      'package.json': json({ name: 'shop', private: true }),
      'pnpm-workspace.yaml': `packages:\n  - "libs/*"\n  - 'apps/*' # the services\n`,
      'libs/locking/package.json': json({ name: 'locking', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.mjs', require: './dist/index.cjs' } } }),
      'libs/locking/src/index.ts': LOCKS,
      'apps/api/src/refund.ts': route(`import { takeLock, dropLock } from 'locking';`, 'takeLock', 'dropLock'),
    },
    expected: mistakes('apps/api/src/refund.ts', 'libs/locking/src/index.ts'),
  },
  {
    name: 'yarn workspaces { packages } with `**`, a deep subpath of a package',
    files: {
      'package.json': json({ name: 'shop', workspaces: { packages: ['modules/**'] } }),
      'modules/shared/redis/package.json': json({ name: 'shared-redis', main: 'lib/index.js' }),
      'modules/shared/redis/src/locks/take.ts': LOCKS,
      'services/refund.ts': route(`import { takeLock, dropLock } from 'shared-redis/locks/take';`, 'takeLock', 'dropLock'),
    },
    expected: mistakes('services/refund.ts', 'modules/shared/redis/src/locks/take.ts'),
  },
  {
    name: 'lerna.json packages',
    files: {
      'package.json': json({ name: 'shop' }),
      'lerna.json': json({ packages: ['pkgs/*'] }),
      'pkgs/lock-kit/package.json': json({ name: 'lock-kit', main: 'build/index.js' }),
      'pkgs/lock-kit/src/index.ts': LOCKS,
      'pkgs/app/src/refund.ts': route(`import { takeLock, dropLock } from 'lock-kit';`, 'takeLock', 'dropLock'),
    },
    expected: mistakes('pkgs/app/src/refund.ts', 'pkgs/lock-kit/src/index.ts'),
  },
  {
    name: 'package.json `imports`: a # subpath import',
    files: {
      'package.json': json({ name: 'shop', type: 'module', imports: { '#infra/*': './src/infra/*.js' } }),
      'src/infra/locks.ts': LOCKS,
      'src/refund.ts': route(`import { takeLock, dropLock } from '#infra/locks';`, 'takeLock', 'dropLock'),
    },
    expected: mistakes('src/refund.ts', 'src/infra/locks.ts'),
  },
  {
    name: 'trap: a bare name that is no package of the workspace is not followed',
    files: {
      'package.json': json({ name: 'shop', workspaces: ['packages/*'] }),
      'packages/payments/package.json': json({ name: '@shop/payments' }),
      'packages/payments/src/refund.ts': route(`import { takeLock, dropLock } from '@vendor/locking';`, 'takeLock', 'dropLock'),
      'node_modules/@vendor/locking/package.json': json({ name: '@vendor/locking', main: 'index.ts' }),
      'node_modules/@vendor/locking/index.ts': LOCKS,
    },
    expected: ['node_modules/@vendor/locking/index.ts: owner-checked-release'],
  },
];

for (const shape of shapes) {
  test(`module shape: ${shape.name}`, () => {
    const findings = analyzeProject(shape.files);
    assert.deepEqual(findingList(findings), [...shape.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}
