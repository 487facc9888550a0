// A lock library's object made once in a project module and used from other files: its calls are the
// library's there too, whatever the importing file calls it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const cases: Array<{ name: string; files: Record<string, string>; expected: string[] }> = [
  {
    name: 'an ES module exports a Redlock under a name without a lock word',
    files: {
      'src/coordination.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
export const coordinator = new Redlock([new Redis()], { retryCount: 5, retryJitter: 100 });
`,
      'src/search/reindex.ts': `import { coordinator } from '../coordination';
declare function rebuild(): Promise<void>;
declare function publish(): Promise<void>;
export async function reindexOnce() {
  const held = await coordinator.acquire(['search:rebuild'], 30_000);
  await rebuild();
  await held.release();
}
export async function reindexUsing() {
  await coordinator.using(['search:rebuild'], 30_000, async (signal) => {
    await rebuild();
    await publish();
  });
}
export async function reindexLong() {
  let held = await coordinator.acquire(['search:rebuild'], 30_000);
  try {
    await rebuild();
    await held.extend(30_000);
    await publish();
  } finally {
    await held.release();
  }
}
`,
    },
    expected: ['src/search/reindex.ts: release-on-all-paths', 'src/search/reindex.ts: respect-abort-signal', 'src/search/reindex.ts: use-extended-lock'],
  },
  {
    name: 'a CommonJS module.exports = new Redlock(...), required whole, redlock v4 lock/unlock',
    files: {
      'lib/locking.js': `const Redlock = require('redlock');
const client = require('./client');
module.exports = new Redlock([client], { retryCount: 3 });
`,
      'lib/client.js': `const Redis = require('ioredis');
module.exports = new Redis();
`,
      'lib/reports.js': `const locking = require('./locking');
async function buildReport(id, render) {
  const handle = await locking.lock(\`report:\${id}\`, 5000);
  await render(id);
  await handle.unlock();
}
module.exports = { buildReport };
`,
    },
    expected: ['lib/reports.js: release-on-all-paths'],
  },
  {
    name: 'a singleton factory module named after redlock: its lock handles are released through unlock()',
    files: {
      'lib/redlock.js': `const Redlock = require('redlock');
let instance;
module.exports = { get(clients) { return instance || (instance = new Redlock(clients)); } };
`,
      'service.js': `const factory = require('./lib/redlock');
class TokenService {
  constructor(clients) { this.redlock = factory.get(clients); }
  async refresh(key, fetchToken) {
    const lock = await this.redlock.lock(\`token:\${key}:lock\`, 1000);
    await fetchToken(key);
    await lock.unlock();
  }
}
module.exports = { TokenService };
`,
    },
    expected: ['service.js: release-on-all-paths'],
  },
  {
    name: 'the same calls on an imported object that is not a lock library mean nothing',
    files: {
      'src/pool.ts': `import { Pool } from 'pg';
export const coordinator = new Pool();
`,
      'src/jobs.ts': `import { coordinator } from './pool';
export async function run(work: () => Promise<void>) {
  const client = await coordinator.acquire(['jobs'], 30_000);
  await work();
  await client.release();
}
`,
    },
    expected: [],
  },
];

for (const c of cases) {
  test(`library instance across files: ${c.name}`, () => {
    const findings = analyzeProject(c.files);
    assert.deepEqual(findingList(findings), [...c.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}
