// Inputs `lockwise check` cannot use are reported, never an internal error with a stack and never a hang:
// a config that is a folder or unreadable, an `ignore` glob that cannot be compiled (config errors, exit
// 2, naming the file and the glob), an unreadable .gitignore (reported like an unreadable source file,
// the rest is still checked) and a FIFO named on the command line (skipped, never read). Permissions are
// tested as the unprivileged user `nobody`, since root reads everything.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { makeTree, runCli, SETNX_THEN_EXPIRE, type JsonReport } from './cli-process';

const asRoot = process.getuid?.() === 0;

/** Runs the CLI as `nobody` (via setpriv) when the tests run as root, else as the current user. */
function runUnprivileged(args: string[], cwd: string) {
  const cli = [process.execPath, resolve('dist/cli.js'), ...args];
  const command = asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', ...cli] : cli;
  const run = spawnSync(command[0]!, command.slice(1), { cwd, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH } });
  if (run.error) throw run.error;
  return run;
}

/** Makes the tree readable (and its folders enterable) for everyone, as a checkout usually is. */
function openUp(root: string, paths: string[]): void {
  chmodSync(root, 0o755);
  for (const p of paths) chmodSync(join(root, p), 0o755);
}

test('a lockwise.config.json that is a folder is a config error naming it (exit 2), not an internal error', () => {
  const tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE });
  try {
    mkdirSync(join(tree.root, 'lockwise.config.json'));
    const run = runCli(['check'], tree.root);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^lockwise check: invalid configuration: .*lockwise\.config\.json: cannot read the file \(EISDIR: it is a folder\)\n$/);
    assert.doesNotMatch(run.stderr, /internal error|    at /);
  } finally {
    tree.remove();
  }
});

test('an unreadable lockwise.config.json is a config error naming it (exit 2)', () => {
  const tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE, 'lockwise.config.json': '{}' });
  try {
    openUp(tree.root, ['src', 'src/lock.ts']);
    chmodSync(join(tree.root, 'lockwise.config.json'), 0o000);
    const run = runUnprivileged(['check'], tree.root);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /lockwise\.config\.json: cannot read the file \(EACCES\)/);
    assert.doesNotMatch(run.stderr, /internal error|    at /);
  } finally {
    tree.remove();
  }
});

test('an ignore glob that cannot be compiled is a config error naming the glob', () => {
  const glob = '*a'.repeat(50_000);
  const tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE, 'lockwise.config.json': JSON.stringify({ ignore: ['generated/**', glob] }) });
  try {
    const run = runCli(['check'], tree.root);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /lockwise\.config\.json: the "ignore" glob "\*a\*a\*a.*… \(100000 characters\)" cannot be compiled \(Invalid regular expression/);
    assert.doesNotMatch(run.stderr, /internal error|    at /);
    assert.ok(run.stderr.length < 1000, 'the glob is not printed whole');
  } finally {
    tree.remove();
  }
});

test('an unreadable .gitignore is reported like an unreadable source file and the check goes on', () => {
  const tree = makeTree({ '.git/HEAD': 'ref: refs/heads/main\n', '.gitignore': 'ignored.ts\n', 'sub/.gitignore': 'x.ts\n', 'sub/lock.ts': SETNX_THEN_EXPIRE, 'ignored.ts': SETNX_THEN_EXPIRE, 'secret.ts': SETNX_THEN_EXPIRE });
  try {
    openUp(tree.root, ['.git', 'sub', 'sub/lock.ts', 'ignored.ts', '.gitignore']);
    chmodSync(join(tree.root, 'sub/.gitignore'), 0o000);
    chmodSync(join(tree.root, 'secret.ts'), 0o000);
    const run = runUnprivileged(['check', '--format', 'json'], tree.root);
    assert.equal(run.status, 2, run.stderr);
    const report = JSON.parse(run.stdout) as JsonReport;
    assert.deepEqual([...new Set(report.findings.map((f) => f.file))], ['sub/lock.ts'], 'sub/ is still checked; the root .gitignore still applies');
    const errors = report.errors.map((e) => `${e.file}: ${e.message}`).sort();
    assert.deepEqual(errors, ['secret.ts: cannot read the file (EACCES)', 'sub/.gitignore: cannot read the file (EACCES); its rules were not applied']);
  } finally {
    tree.remove();
  }
});

test('a FIFO named on the command line is reported and skipped, never read', () => {
  const tree = makeTree({ 'lock.ts': SETNX_THEN_EXPIRE });
  try {
    const made = spawnSync('mkfifo', [join(tree.root, 'p.ts')]);
    assert.equal(made.status, 0, String(made.stderr));
    const run = runCli(['check', 'p.ts', 'lock.ts'], tree.root);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /Skipped:\n  p\.ts: skipped: not a regular file \(a FIFO\)/);
    assert.match(run.stdout, /lock\.ts/);
  } finally {
    tree.remove();
  }
});
