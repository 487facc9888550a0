// `lockwise check --baseline` / `--update-baseline` on real files: recorded findings are suppressed and
// counted, survive lines moving, new findings still fail, fixed ones show up as stale entries; every
// format says so; SARIF's partialFingerprints are the baseline's fingerprints. Bad baselines exit 2.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkJson, makeTree, NO_LOCKS, runCli, SETNX_THEN_EXPIRE, type Tree } from './cli-process';

const BASELINE = 'lockwise-baseline.json';
let tree: Tree;
const write = (path: string, text: string) => writeFileSync(join(tree.root, path), text);

before(() => {
  tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE, 'src/plain.ts': NO_LOCKS });
});
after(() => tree.remove());

test('--update-baseline records every finding; --baseline then suppresses them', () => {
  const written = checkJson(['--update-baseline'], tree.root);
  assert.equal(written.run.status, 0, written.run.stderr);
  assert.deepEqual(written.report.baseline, { file: BASELINE, suppressed: 1, stale: 0, written: 1 });
  const file = JSON.parse(readFileSync(join(tree.root, BASELINE), 'utf8'));
  assert.equal(file.version, 1);
  assert.deepEqual(file.entries.map((e: { rule: string; file: string }) => [e.rule, e.file]), [['atomic-acquire', 'src/lock.ts']]);
  assert.match(file.entries[0].fingerprint, /^[0-9a-f]{32}:1$/);

  const checked = checkJson(['--baseline', BASELINE], tree.root);
  assert.equal(checked.run.status, 0, 'only baselined findings: CI passes');
  assert.deepEqual(checked.report.findings, []);
  assert.deepEqual(checked.report.baseline, { file: BASELINE, suppressed: 1, stale: 0 });
});

test('a moved finding still matches; a new one fails; a fixed one leaves a stale entry', () => {
  checkJson(['--update-baseline'], tree.root);
  write('src/lock.ts', `// moved down\n\n\n${SETNX_THEN_EXPIRE.replace('export async function runJob', '\n\nexport async function runJob')}`);
  const moved = checkJson(['--baseline', BASELINE], tree.root);
  assert.equal(moved.run.status, 0, JSON.stringify(moved.report.findings));
  assert.deepEqual(moved.report.baseline, { file: BASELINE, suppressed: 1, stale: 0 });

  write('src/new.ts', SETNX_THEN_EXPIRE.replace('runJob', 'runOtherJob'));
  const added = checkJson(['--baseline', BASELINE], tree.root);
  assert.equal(added.run.status, 1);
  assert.deepEqual(added.report.findings.map((f) => f.file), ['src/new.ts']);
  assert.equal(added.report.baseline?.suppressed, 1);

  write('src/lock.ts', NO_LOCKS);
  const fixed = checkJson(['--baseline', BASELINE], tree.root);
  assert.deepEqual(fixed.report.baseline, { file: BASELINE, suppressed: 0, stale: 1 });
  const pretty = runCli(['check', '--baseline', BASELINE], tree.root);
  assert.match(pretty.stdout, /Baseline lockwise-baseline\.json: 0 findings suppressed, 1 entry no longer matches \(run --update-baseline to drop it\)\./);

  // The same finding twice on identical lines: two entries, each matched once.
  write('src/lock.ts', SETNX_THEN_EXPIRE);
  write('src/new.ts', NO_LOCKS);
  checkJson(['--update-baseline'], tree.root);
  write('src/new.ts', SETNX_THEN_EXPIRE);
  const again = checkJson(['--baseline', BASELINE], tree.root);
  assert.deepEqual(again.report.findings.map((f) => f.file), ['src/new.ts'], 'a copy in another file is new');
  write('src/new.ts', NO_LOCKS);
});

test('SARIF carries the baseline counts and the same fingerprints', () => {
  write('src/lock.ts', SETNX_THEN_EXPIRE);
  checkJson(['--update-baseline'], tree.root);
  const entry = JSON.parse(readFileSync(join(tree.root, BASELINE), 'utf8')).entries[0];
  const plain = JSON.parse(runCli(['check', '--format', 'sarif'], tree.root).stdout);
  assert.equal(plain.runs[0].results[0].partialFingerprints['lockwiseFinding/v1'], entry.fingerprint);
  const sarif = JSON.parse(runCli(['check', '--format', 'sarif', '--baseline', BASELINE], tree.root).stdout);
  assert.deepEqual(sarif.runs[0].results, []);
  assert.deepEqual(sarif.runs[0].properties, { lockwiseBaseline: { file: BASELINE, suppressed: 1, stale: 0 } });
});

test('a missing or broken baseline is a clear error (exit 2), and is never overwritten unseen', () => {
  const missing = runCli(['check', '--baseline', 'nope.json'], tree.root);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /nope\.json: no such baseline file \(create it with --update-baseline\)/);

  write('broken.json', '{"version": 1, "entries": [{"rule": "x"}]}');
  const broken = runCli(['check', '--baseline', 'broken.json'], tree.root);
  assert.equal(broken.status, 2);
  assert.match(broken.stderr, /broken\.json: entry 0 needs non-empty "rule", "file" and "fingerprint" strings/);
  const update = runCli(['check', '--baseline', 'broken.json', '--update-baseline'], tree.root);
  assert.equal(update.status, 2);
  assert.equal(readFileSync(join(tree.root, 'broken.json'), 'utf8'), '{"version": 1, "entries": [{"rule": "x"}]}');

  write('notjson.json', '{ nope');
  assert.match(runCli(['check', '--baseline', 'notjson.json'], tree.root).stderr, /notjson\.json: not valid JSON/);
});
