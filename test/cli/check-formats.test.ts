// The three output formats of `lockwise check`, each parsed back and checked field by field.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { allRules } from '../../rules/index';
import { lineStarts } from '../../rules/positions';
import { ruleDocUrl } from '../../rules/rule';
import { checkJson, makeTree, NO_LOCKS, runCli, SETNX_THEN_EXPIRE, type JsonReport, type Tree } from './cli-process';

let tree: Tree;
before(() => {
  tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE, 'src/plain.ts': NO_LOCKS, 'big.js': `//${'x'.repeat(2 * 1024 * 1024)}` });
});
after(() => tree.remove());

/** The text a 1-based, end-exclusive range covers. */
function textAt(text: string, r: { line: number; column: number; endLine: number; endColumn: number }): string {
  const starts = lineStarts(text);
  return text.slice(starts[r.line - 1] + r.column - 1, starts[r.endLine - 1] + r.endColumn - 1);
}

test('json: the documented shape, 1-based positions, files relative to the current folder', () => {
  const { report } = checkJson([], tree.root);
  assert.deepEqual(Object.keys(report), ['version', 'filesScanned', 'filesAnalyzed', 'durationMs', 'findings', 'errors']);
  assert.equal(report.version, 1);
  assert.equal(report.filesScanned, 3);
  assert.ok(Number.isInteger(report.durationMs) && report.durationMs >= 0);
  assert.ok(report.filesAnalyzed >= 1 && report.filesAnalyzed <= 2, 'the lock file is parsed; the skipped one is not');
  assert.deepEqual(report.errors.map((e) => e.file), ['big.js']);

  assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
  const [finding] = report.findings;
  assert.deepEqual(Object.keys(finding), ['file', 'rule', 'severity', 'line', 'column', 'endLine', 'endColumn', 'message', 'related', 'fixes']);
  assert.equal(finding.file, 'src/lock.ts');
  assert.equal(finding.rule, 'atomic-acquire');
  assert.equal(finding.line, SETNX_THEN_EXPIRE.split('\n').findIndex((l) => l.includes('setnx')) + 1);
  assert.match(textAt(SETNX_THEN_EXPIRE, finding), /setnx/);
  assert.ok(finding.message.length > 20);
  assert.equal(finding.related.length, 1, 'the EXPIRE is the other half');
  assert.match(textAt(SETNX_THEN_EXPIRE, finding.related[0]), /expire/);

  // From inside src/, the same file is just "lock.ts".
  const inner = checkJson(['.'], join(tree.root, 'src'));
  assert.deepEqual(inner.report.findings.map((f) => f.file), ['lock.ts']);
});

test('json: applying a fix at the reported positions removes the finding', () => {
  const project = makeTree({ 'lock.ts': SETNX_THEN_EXPIRE });
  try {
    const { report } = checkJson([], project.root);
    const fix = report.findings[0]?.fixes[0];
    assert.ok(fix, 'atomic-acquire offers a fix');
    assert.deepEqual(Object.keys(fix.edits[0]), ['line', 'column', 'endLine', 'endColumn', 'newText']);
    const starts = lineStarts(SETNX_THEN_EXPIRE);
    const offset = (line: number, column: number) => starts[line - 1] + column - 1;
    let fixed = SETNX_THEN_EXPIRE;
    for (const e of [...fix.edits].sort((a, b) => offset(b.line, b.column) - offset(a.line, a.column))) {
      fixed = fixed.slice(0, offset(e.line, e.column)) + e.newText + fixed.slice(offset(e.endLine, e.endColumn));
    }
    writeFileSync(join(project.root, 'lock.ts'), fixed);
    const recheck: JsonReport = checkJson([], project.root).report;
    assert.deepEqual(recheck.findings.filter((f) => f.rule === 'atomic-acquire'), [], fixed);
  } finally {
    project.remove();
  }
});

test('sarif: a 2.1.0 log with every rule described and results GitHub code scanning accepts', () => {
  const run = runCli(['check', '--format', 'sarif'], tree.root);
  assert.equal(run.status, 1);
  const log = JSON.parse(run.stdout);
  assert.equal(log.version, '2.1.0');
  assert.match(log.$schema, /sarif-2\.1\.0/);
  assert.equal(log.runs.length, 1);
  const [sarifRun] = log.runs;
  const driver = sarifRun.tool.driver;
  assert.equal(driver.name, 'Lockwise');
  assert.deepEqual(
    driver.rules.map((r: { id: string }) => r.id),
    allRules.map((r) => r.id),
  );
  assert.ok(driver.rules.length > 0, 'the rules are registered');
  for (const rule of driver.rules) {
    assert.ok(rule.shortDescription.text && rule.fullDescription.text && rule.help.text, rule.id);
    assert.equal(rule.helpUri, ruleDocUrl(rule.id));
    assert.ok(['error', 'warning', 'note'].includes(rule.defaultConfiguration.level), rule.id);
  }
  assert.equal(sarifRun.originalUriBaseIds['%SRCROOT%'].uri, `${pathToFileURL(tree.root).href}/`);

  assert.equal(sarifRun.results.length, 1);
  for (const result of sarifRun.results) {
    assert.equal(driver.rules[result.ruleIndex].id, result.ruleId);
    assert.ok(['error', 'warning', 'note'].includes(result.level));
    assert.ok(result.message.text.length > 0);
    const location = result.locations[0].physicalLocation;
    assert.deepEqual(location.artifactLocation, { uri: 'src/lock.ts', uriBaseId: '%SRCROOT%' });
    assert.match(textAt(SETNX_THEN_EXPIRE, regionRange(location.region)), /setnx/);
    assert.ok(Object.values(result.partialFingerprints).every((v) => typeof v === 'string' && v.length > 0));
    for (const related of result.relatedLocations ?? []) {
      assert.ok(Number.isInteger(related.id) && related.message.text && related.physicalLocation.region.startLine >= 1);
    }
    for (const fix of result.fixes ?? []) {
      assert.ok(fix.description.text);
      for (const change of fix.artifactChanges) {
        assert.equal(change.artifactLocation.uri, 'src/lock.ts');
        for (const r of change.replacements) {
          assert.ok(r.deletedRegion.startLine >= 1 && typeof r.insertedContent.text === 'string');
        }
      }
    }
  }
  const [invocation] = sarifRun.invocations;
  assert.equal(invocation.executionSuccessful, true);
  assert.deepEqual(
    invocation.toolExecutionNotifications.map((n: { level: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) => [
      n.level,
      n.locations[0].physicalLocation.artifactLocation.uri,
    ]),
    [['note', 'big.js']],
  );
});

function regionRange(region: { startLine: number; startColumn: number; endLine: number; endColumn: number }) {
  return { line: region.startLine, column: region.startColumn, endLine: region.endLine, endColumn: region.endColumn };
}

test('pretty: grouped by file with a code frame, plain when piped, fixes on request', () => {
  const run = runCli(['check', '--show-fixes'], tree.root);
  assert.equal(run.status, 1);
  assert.doesNotMatch(run.stdout, /\u001b\[/, 'no colour when stdout is not a terminal');
  const lines = run.stdout.split('\n');
  const setnxLine = SETNX_THEN_EXPIRE.split('\n').findIndex((l) => l.includes('setnx')) + 1;
  assert.equal(lines[0], 'src/lock.ts');
  assert.match(lines[1], new RegExp(`^  ${setnxLine}:\\d+  error  .+  atomic-acquire$`));
  const frameLine = lines.findIndex((l) => l.startsWith(`    > ${setnxLine} |`) && l.includes('redis.setnx('));
  assert.ok(frameLine > 0, run.stdout);
  const carets = /\^+/.exec(lines[frameLine + 1]);
  assert.ok(carets, 'the span is underlined on the next line');
  assert.match(lines[frameLine].slice(carets.index, carets.index + carets[0].length), /setnx/);
  assert.ok(lines.some((l) => l.startsWith('    fix: ')), 'the fix is shown');
  assert.ok(lines.some((l) => /^\s+\+ .*set\(/.test(l)), 'with the added line');
  assert.match(run.stdout, /^1 problem \(1 error, 0 warnings, 0 info\) in 1 file$/m);
  assert.match(run.stdout, /^Skipped:\n {2}big\.js: skipped: /m);
  assert.match(run.stdout, /^3 files scanned, \d parsed, 1 skipped, \d+\.\d\d s$/m);
});

test('pretty: colour on a terminal unless NO_COLOR is set', () => {
  // `script` runs the CLI with a pseudo-terminal as its stdout.
  const inTerminal = (env: Record<string, string | undefined>): string => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(resolve('dist/cli.js'))} check`;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: tree.root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: undefined, ...env },
      timeout: 60_000,
    });
    if (run.error) throw run.error;
    return run.stdout;
  };
  const coloured = inTerminal({});
  assert.match(coloured, /\u001b\[31m/, 'errors in red');
  assert.match(coloured, /src\/lock\.ts/);
  assert.doesNotMatch(inTerminal({ NO_COLOR: '1' }), /\u001b\[/);
});
