// Which files `lockwise check` reads: .gitignore at every level, skipped folders, config ignore
// globs, size and binary skips, explicitly named files.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkJson, makeTree, NO_LOCKS, SETNX_THEN_EXPIRE } from './cli-process';

test('honours .gitignore at every level and skips node_modules, dist, build, .git and declaration files', () => {
  const tree = makeTree({
    '.gitignore': 'generated/\n*.gen.ts\n',
    'src/lock.ts': SETNX_THEN_EXPIRE,
    'src/plain.js': NO_LOCKS,
    'src/skipped.gen.ts': SETNX_THEN_EXPIRE,
    'generated/lock.ts': SETNX_THEN_EXPIRE,
    // A deeper .gitignore wins: it ignores one more file and re-includes one the root ignores.
    'src/nested/.gitignore': 'secret.ts\n!keep.gen.ts\n',
    'src/nested/secret.ts': SETNX_THEN_EXPIRE,
    'src/nested/keep.gen.ts': SETNX_THEN_EXPIRE,
    'src/nested/plain.mts': NO_LOCKS,
    'node_modules/pkg/index.js': SETNX_THEN_EXPIRE,
    'dist/lock.js': SETNX_THEN_EXPIRE,
    'packages/app/build/lock.js': SETNX_THEN_EXPIRE,
    '.git/hooks/lock.js': SETNX_THEN_EXPIRE,
    'src/types.d.ts': 'export declare function lock(key: string): Promise<void>;\n',
    'README.md': 'redis.setnx(key, 1); redis.expire(key, 10)\n',
  });
  try {
    const { run, report } = checkJson([], tree.root);
    assert.equal(report.filesScanned, 4, run.stdout);
    assert.deepEqual(report.errors, []);
    assert.deepEqual([...new Set(report.findings.map((f) => f.file))].sort(), ['src/lock.ts', 'src/nested/keep.gen.ts']);
    assert.ok(report.findings.every((f) => f.rule === 'atomic-acquire'), run.stdout);
    assert.equal(run.status, 1);
  } finally {
    tree.remove();
  }
});

test('applies .gitignore files above the start folder up to the repository root', () => {
  const tree = makeTree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.gitignore': 'app/legacy/\n',
    'app/lock.ts': SETNX_THEN_EXPIRE,
    'app/legacy/lock.ts': SETNX_THEN_EXPIRE,
  });
  try {
    const { report } = checkJson(['app'], tree.root);
    assert.equal(report.filesScanned, 1);
    assert.deepEqual(
      report.findings.map((f) => f.file),
      ['app/lock.ts'],
    );
  } finally {
    tree.remove();
  }
});

test("uses each folder's nearest config: its ignore globs are relative to the config's folder", () => {
  const tree = makeTree({
    'lockwise.config.json': JSON.stringify({ ignore: ['fixtures/', '*.old.ts'] }),
    'fixtures/lock.ts': SETNX_THEN_EXPIRE,
    'src/lock.old.ts': SETNX_THEN_EXPIRE,
    'src/lock.ts': SETNX_THEN_EXPIRE,
    // A package with its own config (here in package.json): the root's globs no longer apply.
    'packages/app/package.json': JSON.stringify({ name: 'app', lockwise: { ignore: ['legacy/'], rules: { 'atomic-acquire': 'warning' } } }),
    'packages/app/legacy/lock.ts': SETNX_THEN_EXPIRE,
    'packages/app/lock.old.ts': SETNX_THEN_EXPIRE,
  });
  try {
    const { report } = checkJson([], tree.root);
    assert.equal(report.filesScanned, 2);
    const bySeverity = report.findings.map((f) => `${f.file} ${f.severity}`).sort();
    assert.deepEqual(bySeverity, ['packages/app/lock.old.ts warning', 'src/lock.ts error']);
  } finally {
    tree.remove();
  }
});

test('reports files over 2 MB and binary files as skipped, and checks explicitly named files even when ignored', () => {
  const big = `// ${'x'.repeat(2 * 1024 * 1024)}\n${SETNX_THEN_EXPIRE}`;
  const binary = Buffer.concat([Buffer.from('const lock = 1;\n'), Buffer.from([0, 1, 2, 3]), Buffer.from(SETNX_THEN_EXPIRE)]);
  const tree = makeTree({
    '.gitignore': 'ignored.ts\n',
    'big.ts': big,
    'blob.js': binary,
    'ignored.ts': SETNX_THEN_EXPIRE,
    'notes.txt': SETNX_THEN_EXPIRE,
  });
  try {
    const walked = checkJson(['.'], tree.root);
    assert.equal(walked.run.status, 0, 'skipped files alone do not fail the run');
    assert.equal(walked.report.filesScanned, 2);
    assert.deepEqual(walked.report.findings, []);
    const skipped = Object.fromEntries(walked.report.errors.map((e) => [e.file, e.message]));
    assert.deepEqual(Object.keys(skipped).sort(), ['big.ts', 'blob.js']);
    assert.match(skipped['big.ts'], /^skipped: .*2 MB/);
    assert.match(skipped['blob.js'], /^skipped: binary/);

    const named = checkJson(['ignored.ts', 'notes.txt'], tree.root);
    assert.equal(named.report.filesScanned, 1);
    assert.deepEqual(
      named.report.findings.map((f) => f.file),
      ['ignored.ts'],
    );
    assert.deepEqual(named.report.errors, [{ file: 'notes.txt', message: 'skipped: not a JavaScript or TypeScript file' }]);
  } finally {
    tree.remove();
  }
});

test('leaves test files (and suites in a test folder, by their text) out of a walk unless the config says "tests": "check"; a test file named explicitly is checked', () => {
  const files = {
    'src/lock.ts': SETNX_THEN_EXPIRE,
    'src/lock.test.ts': SETNX_THEN_EXPIRE,
    'src/lock.spec.js': SETNX_THEN_EXPIRE,
    'src/__tests__/helpers.ts': SETNX_THEN_EXPIRE,
    'test/e2e/orders.e2e-spec.ts': SETNX_THEN_EXPIRE,
    // Jasmine, Mocha and Go-style suite names, inside a spec or test folder.
    'spec/lockSpec.js': SETNX_THEN_EXPIRE,
    'test/unit/lock_test.ts': SETNX_THEN_EXPIRE,
    'tests/LockTest.ts': SETNX_THEN_EXPIRE,
    'test/acceptance/js/FlushLockTests.js': SETNX_THEN_EXPIRE,
    // Anywhere, a script whose name starts with test- or test_.
    'src/test-lock.ts': SETNX_THEN_EXPIRE,
    // In a test folder, a file whose text is a suite (describe + a named it) is test code too.
    'test/redis.ts': `${SETNX_THEN_EXPIRE}describe('locks', () => {\n  it('takes the lock', () => runJob('1'));\n});\n`,
    // A folder named test is not enough to call a file test code, nor such a name outside one.
    'test/support/seed.ts': SETNX_THEN_EXPIRE,
    'src/openApiSpec.ts': SETNX_THEN_EXPIRE,
    'src/latest-lock.ts': SETNX_THEN_EXPIRE,
  };
  const skipping = makeTree(files);
  const checking = makeTree({ ...files, 'lockwise.config.json': JSON.stringify({ tests: 'check' }) });
  try {
    const filesOf = (report: { findings: Array<{ file: string }> }) => [...new Set(report.findings.map((f) => f.file))].sort();
    assert.deepEqual(filesOf(checkJson([], skipping.root).report), ['src/latest-lock.ts', 'src/lock.ts', 'src/openApiSpec.ts', 'test/support/seed.ts']);
    assert.deepEqual(filesOf(checkJson(['src/lock.test.ts'], skipping.root).report), ['src/lock.test.ts']);
    assert.deepEqual(filesOf(checkJson(['test/redis.ts'], skipping.root).report), ['test/redis.ts']);
    assert.deepEqual(filesOf(checkJson([], checking.root).report), Object.keys(files).sort());
  } finally {
    skipping.remove();
    checking.remove();
  }
});
