// `lockwise check` over several analysis workers reports exactly what one worker reports, in the same
// order: each worker builds its own project model, so a helper's callers get the same meaning whichever
// worker analyses them. The tree holds enough text (about 9 MB, most of it comments) for the pool to
// start three workers; how many started is read from the CPU profiles Node writes, one per thread.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { checkJson, makeTree, runCli, type Tree } from './cli-process';

const MODULES = 12;
const CALLERS = 8;
/** Comment padding: text that costs the pool a worker's share without adding lock code. */
const PADDING = `// ${'business logic that is not lock code. '.repeat(40)}\n`.repeat(50);

function files(): Record<string, string> {
  const tree: Record<string, string> = { 'src/redis.ts': `import Redis from 'ioredis';\nexport const redis = new Redis();\n` };
  for (let m = 0; m < MODULES; m++) {
    tree[`src/locks/lock-${m}.ts`] = `import { redis } from '../redis';
export async function acquire${m}(key: string) {
  return redis.set('lock:${m}:' + key, 'worker', 'PX', 5000, 'NX');
}
export async function release${m}(key: string) {
  await redis.del('lock:${m}:' + key);
}
${PADDING}`;
    for (let c = 0; c < CALLERS; c++) {
      // Odd callers ignore the acquire's answer: a finding only the project model can make.
      tree[`src/jobs/job-${m}-${c}.ts`] = `import { acquire${m}, release${m} } from '../locks/lock-${m}';
export async function job(id: string, work: () => Promise<void>) {
  ${c % 2 ? '' : 'if (!('}await acquire${m}(id)${c % 2 ? '' : ')) return'};
  await work();
  await release${m}(id);
}
${PADDING}`;
    }
  }
  return tree;
}

let tree: Tree;
before(() => {
  tree = makeTree(files());
});
after(() => tree.remove());

const findings = (args: string[]) => {
  const { run, report } = checkJson(['src', ...args], tree.root);
  assert.equal(run.status, 1, run.stderr);
  return { findings: report.findings, errors: report.errors, analyzed: report.filesAnalyzed };
};

test('check: three workers report what one worker reports, in the same order', () => {
  const one = findings(['--jobs', '1']);
  const three = findings(['--jobs', '3']);
  assert.deepEqual(three, one);
  // Every caller is analysed and the odd ones are found through the helper in another file.
  assert.equal(one.analyzed, MODULES * (CALLERS + 1));
  const unchecked = one.findings.filter((f) => f.rule === 'check-acquire-result').map((f) => f.file);
  assert.equal(unchecked.length, MODULES * (CALLERS / 2));
  assert.ok(unchecked.every((f) => /job-\d+-[1357]\.ts$/.test(f)), unchecked.join(', '));
});

test('check: the pool starts as many workers as --jobs allows when there is work for them', () => {
  const threads = (jobs: string, root = tree.root) => {
    const dir = mkdtempSync(join(tmpdir(), 'lockwise-prof-'));
    try {
      const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, resolve('dist/cli.js'), 'check', '--jobs', jobs, 'src'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal(run.status, 1, run.stderr);
      return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).length;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // The main thread and the workers.
  assert.equal(threads('3'), 4);
  assert.equal(threads('1'), 2);
  // One small lock file: a second worker would cost more to start than the file takes.
  const small = makeTree({ 'src/lock.ts': files()['src/locks/lock-0.ts'].replace('../redis', './redis'), 'src/redis.ts': files()['src/redis.ts'] });
  try {
    assert.equal(threads('3', small.root), 2);
  } finally {
    small.remove();
  }
});

test('check: --no-project over several workers matches one worker too', () => {
  assert.deepEqual(findings(['--no-project', '--jobs', '3']), findings(['--no-project', '--jobs', '1']));
});

test('check: --jobs must be a whole number of at least 1', () => {
  for (const bad of ['0', '1.5', 'many']) {
    const run = runCli(['check', '--jobs', bad, 'src'], tree.root);
    assert.equal(run.status, 2, bad);
    assert.match(run.stderr, /--jobs expects a whole number >= 1/);
  }
  // A negative number reads as an option: Node's parser refuses it as ambiguous, also with exit 2.
  assert.equal(runCli(['check', '--jobs', '-1', 'src'], tree.root).status, 2);
});

// From its hundredth file the walk starts the analysis worker before any file needs it (check.ts).
test('check: a large tree starts its worker early; without lock code the worker is stopped, with it the findings are the same', () => {
  const plain: Record<string, string> = {};
  for (let i = 0; i < 150; i++) plain[`src/m${String(i).padStart(3, '0')}.ts`] = `export const value${i} = ${i} * 2;\n`;
  const clean = makeTree(plain);
  try {
    const { run, report } = checkJson(['src'], clean.root);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual({ findings: report.findings, errors: report.errors, scanned: report.filesScanned }, { findings: [], errors: [], scanned: 150 });
  } finally {
    clean.remove();
  }
  // The one lock file is walked last, after the worker has started.
  const late = makeTree({ ...plain, 'src/zz-lock.ts': files()['src/locks/lock-0.ts'].replace('../redis', './redis'), 'src/redis.ts': files()['src/redis.ts'] });
  try {
    const { run, report } = checkJson(['src'], late.root);
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.findings.map((f) => `${f.file}:${f.rule}`), ['src/zz-lock.ts:unique-token', 'src/zz-lock.ts:owner-checked-release']);
  } finally {
    late.remove();
  }
});
