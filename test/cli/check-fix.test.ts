// `lockwise check --fix` / `--fix-dry-run` on a copy of examples/: a dry run prints a patch that
// applies and writes nothing; --fix applies only the unattended-safe fixes; --fix --unsafe leaves no
// finding, and the fixed code still type-checks with the repository's compiler settings (tsc --noEmit).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { allRules } from '../../rules/index';
import { checkJson, runCli } from './cli-process';

let root: string;

/** examples/ copied outside the repository (its .gitignore does not apply), with the repository's packages. */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lockwise-fix-'));
  cpSync('examples', root, { recursive: true });
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'), 'dir');
  const { compilerOptions } = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as { compilerOptions: Record<string, unknown> };
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src', 'types'] }));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function sources(dir = join(root, 'src')): Record<string, string> {
  return Object.fromEntries(readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

function tscErrors(): string {
  const run = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { encoding: 'utf8', timeout: 120_000 });
  return run.status === 0 ? '' : `${run.stdout}${run.stderr}`;
}

test('--fix-dry-run prints a unified diff that patch applies, and writes nothing', () => {
  const before = sources();
  const run = runCli(['check', '.', '--fix-dry-run'], root);
  assert.equal(run.status, 1, 'findings remain without --unsafe');
  assert.deepEqual(sources(), before, 'a dry run changes no file');
  assert.match(run.stdout, /^--- a\/src\/billing\/renewal-watchdog\.ts\n\+\+\+ b\/src\/billing\/renewal-watchdog\.ts\n@@ -\d+,\d+ \+\d+,\d+ @@/);
  assert.match(run.stderr, /would apply \d+ fixes/);
  writeFileSync(join(root, 'fixes.patch'), run.stdout);
  const patch = spawnSync('patch', ['-p1', '-i', 'fixes.patch'], { cwd: root, encoding: 'utf8' });
  assert.equal(patch.status, 0, patch.stdout + patch.stderr);
  // The patched tree is what --fix writes.
  const patched = sources();
  const fix = runCli(['check', '.', '--fix'], root);
  assert.equal(fix.status, 1);
  assert.deepEqual(sources(), patched, '--fix after the patch finds nothing more to fix');
});

test('--fix applies only the fixes of rules marked safe unattended', () => {
  const unattended = new Set(allRules.filter((r) => r.unattendedFixes).map((r) => r.id));
  const first = checkJson(['.'], root).report.findings;
  const run = runCli(['check', '.', '--fix'], root);
  assert.equal(run.status, 1, run.stderr);
  const left = checkJson(['.'], root).report.findings;
  const fixedRules = new Set(first.map((f) => f.rule).filter((rule) => !left.some((l) => l.rule === rule)));
  assert.ok(fixedRules.size > 0, 'some rule is fixed away');
  for (const rule of fixedRules) assert.ok(unattended.has(rule), `${rule} was fixed but is not marked unattended`);
  for (const f of left) assert.ok(!f.fixes.some((x) => x.unattended), `${f.rule} left with an unattended fix`);
  assert.equal(tscErrors(), '');
});

test('--fix --unsafe leaves in the examples only findings that have no automatic fix, and they still type-check', () => {
  assert.equal(tscErrors(), '', 'the examples type-check before');
  const before = checkJson(['.'], root).report.findings;
  assert.ok(before.some((f) => f.fixes.length > 0) && before.some((f) => f.noFix), 'the examples hold both kinds');
  const run = runCli(['check', '.', '--fix', '--unsafe'], root);
  assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
  const after = checkJson(['.'], root).report.findings;
  assert.deepEqual(after.filter((f) => f.fixes.length > 0).map((f) => `${f.file}:${f.line} ${f.rule}`), [], 'every fixable finding is fixed');
  assert.ok(after.length > 0 && after.every((f) => f.noFix), after.map((f) => `${f.file}:${f.line} ${f.rule}`).join('\n'));
  assert.equal(tscErrors(), '');
});

test('--fix and --fix-dry-run refuse contradictory options', () => {
  assert.equal(runCli(['check', '.', '--fix', '--fix-dry-run'], root).status, 2);
  assert.equal(runCli(['check', '.', '--unsafe'], root).status, 2);
  assert.equal(runCli(['check', '.', '--fix-dry-run', '--format', 'json'], root).status, 2);
});

test('--format pretty lists the local doc of every rule that fired', () => {
  const run = runCli(['check', '.', '--show-fixes'], root);
  const docs = run.stdout.slice(run.stdout.indexOf('Rule docs:'));
  const listed = [...docs.matchAll(/^ {2}([a-z-]+): (\/.+\.md)$/gm)];
  assert.deepEqual(listed.map((m) => m[1]), allRules.map((r) => r.id), 'every rule fires in the examples');
  for (const [, rule, path] of listed) assert.equal(readFileSync(path, 'utf8').startsWith(`# ${rule}`), true, path);
});
