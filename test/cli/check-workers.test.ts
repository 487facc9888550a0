// `lockwise check` over several analysis workers reports exactly what one worker reports, in the same
// order: each worker builds its own project model, so a helper's callers get the same meaning whichever
// worker analyses them. The tree holds enough text (about 1 MB) for the pool to start all its workers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkJson, makeTree, runCli, type Tree } from './cli-process';

const MODULES = 12;
const CALLERS = 8;
/** Comment padding: text that costs the pool a worker's share without adding lock code. */
const PADDING = `// ${'business logic that is not lock code. '.repeat(10)}\n`.repeat(25);

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
