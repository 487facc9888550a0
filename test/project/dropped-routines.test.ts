// A project's withLock-like helper that calls its routine without awaiting it, before its release: an
// async routine handed to it outlives the lock. Seen only at the call, where the routine is async.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeProject, findingList } from './harness';

/** The lock helper, `call` being how it runs the routine inside its try. */
const helper = (call: string, param = 'task') => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export async function runExclusive(key, ${param}) {
  const token = randomUUID();
  const taken = await redis.set(key, token, 'PX', 30000, 'NX');
  if (!taken) return false;
  try {
    ${call}
  } finally {
    await redis.eval(RELEASE, 1, key, token);
  }
  return true;
}
`;

const JOB = `import { runExclusive } from './lock.js';
async function rebuildIndex(db) { await db.rebuild(); }
export async function nightly(db) {
  await runExclusive('lock:nightly', async () => {
    await db.rebuild();
  });
  await runExclusive('lock:reindex', () => rebuildIndex(db));
  await runExclusive('lock:count', () => db.countSync());
}
`;

test('an async routine handed to a helper that does not await it is await-locked-work at the call', () => {
  const findings = analyzeProject({ 'src/lock.js': helper('task();'), 'src/job.js': JOB });
  // The async arrow, and the arrow handing back an async function's work; not the plain count.
  assert.deepEqual(findings.map((f) => /'lock:\w+'/.exec(f.message)?.[0]), ["'lock:nightly'", "'lock:reindex'"], findings.map((f) => f.message).join('\n'));
  const [finding] = findings;
  assert.equal(finding.rule, 'await-locked-work');
  assert.match(finding.message, /`runExclusive` calls this async routine without awaiting it/);
  assert.ok(finding.related?.some((r) => r.file?.endsWith('src/lock.js') && r.range?.line === 9), JSON.stringify(finding.related));
});

test('a routine named by an async function of the file counts as async', () => {
  const job = `import { runExclusive } from './lock.js';
async function rebuildIndex() { await Promise.resolve(); }
const compact = async () => { await Promise.resolve(); };
export async function nightly() {
  await runExclusive('lock:reindex', rebuildIndex);
  await runExclusive('lock:compact', compact);
}
`;
  const findings = analyzeProject({ 'src/lock.js': helper('task();'), 'src/job.js': job });
  assert.deepEqual(findingList(findings), ['src/job.js: await-locked-work', 'src/job.js: await-locked-work']);
});

test('a helper that awaits, returns or voids its routine, or a routine that is not async, is not reported', () => {
  for (const call of ['await task();', 'return await task();', 'void task();', 'const result = await task(); console.log(result);']) {
    const findings = analyzeProject({ 'src/lock.js': helper(call), 'src/job.js': JOB });
    assert.deepEqual(findingList(findings), [], `${call}\n${findings.map((f) => f.message).join('\n')}`);
  }
  const syncOnly = `import { runExclusive } from './lock.js';
export function tally(db) {
  return runExclusive('lock:count', () => db.countSync());
}
`;
  assert.deepEqual(findingList(analyzeProject({ 'src/lock.js': helper('task();'), 'src/job.js': syncOnly })), []);
});

test('a routine typed as async work and not awaited is reported once, in the helper', () => {
  const typed = helper('task();', 'task: () => Promise<void>').replace(/key, task: /, 'key: string, task: ');
  const findings = analyzeProject({ 'src/lock.ts': typed, 'src/job.ts': JOB.replace('./lock.js', './lock') });
  assert.deepEqual(findingList(findings), ['src/lock.ts: await-locked-work'], findings.map((f) => f.message).join('\n'));
});

test('a runner the helper schedules on a timer is the helper\'s own work: its dropped routine is found at the call', () => {
  const scheduler = `import Redlock from 'redlock';
export const everyInterval = (redis, key, ttl, task, interval) => {
  const redlock = new Redlock([redis], { retryCount: 0 });
  const tick = async () => {
    try {
      const lock = await redlock.acquire([key], ttl);
      try {
        task();
      } finally {
        await lock.release();
      }
    } catch (err) {
      console.warn('busy', err);
    }
  };
  interval ? setInterval(tick, interval) : setTimeout(tick, 0);
};
`;
  const caller = `import { everyInterval } from './schedule.js';
export function startSweeper(redis, db) {
  everyInterval(redis, 'lock:sweep', 30000, async () => {
    await db.sweep();
  }, 60000);
  everyInterval(redis, 'lock:count', 30000, () => db.countSync(), 60000);
}
`;
  const findings = analyzeProject({ 'src/schedule.js': scheduler, 'src/sweeper.js': caller });
  assert.deepEqual(findingList(findings), ['src/sweeper.js: await-locked-work'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /`everyInterval` calls this async routine without awaiting it, so its release of 'lock:sweep'/);
});

test('a heartbeat the helper schedules beside its own acquire is that lock\'s watchdog, no extend of its callers; runs of it started in a loop and left to run are no set of locks', () => {
  const worker = `import Redis from 'ioredis';
const redis = new Redis();
export const runBuild = async (data, job) => {
  const { buildId } = data;
  const lockKey = \`build:lock:\${buildId}\`;
  if (!(await redis.set(lockKey, buildId, 'EX', 600, 'NX'))) return;
  const controller = new AbortController();
  const beat = setInterval(async () => {
    try {
      if (job) await job.extendLock(job.token, 300000);
      if ((await redis.get(lockKey)) !== buildId) throw new Error('lost');
      await redis.expire(lockKey, 600);
    } catch (err) {
      controller.abort();
    }
  }, 30000);
  try {
    return await compile(buildId, controller.signal);
  } finally {
    clearInterval(beat);
  }
};
async function compile(id, signal) { return { id, signal }; }
`;
  const recovery = `import { runBuild } from './worker.js';
const logger = { error: (...args) => console.error(...args) };
export const resumeOrphans = async () => {
  try {
    for (const build of await listBuilds()) {
      if (Date.now() - build.updatedAt > 60000) {
        runBuild({ buildId: build.id }).catch((err) => logger.error({ err, id: build.id }, 'resume failed'));
      }
    }
  } catch (err) {
    logger.error({ err }, 'scan failed');
  }
};
setInterval(resumeOrphans, 60000);
async function listBuilds() { return []; }
`;
  // The recovery loop beside the helper (in its file) or in another file.
  const sameFile = worker + recovery.replace(/^import .*\n/, '');
  const layouts: Record<string, string>[] = [{ 'src/worker.js': worker, 'src/recovery.js': recovery }, { 'src/worker.js': sameFile }];
  for (const files of layouts) {
    const findings = analyzeProject(files);
    // The GET-compare before the EXPIRE is two round trips: the helper's own finding, the only one.
    assert.deepEqual(findingList(findings), ['src/worker.js: owner-checked-extend'], findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));
  }
});
