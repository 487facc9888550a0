// The ESLint plugin under real ESLint (the npm package, flat config), loaded the way a user loads it:
// `import lockwise from 'lockwise/eslint-plugin'` through package.json "exports". Its messages must be
// `lockwise check --format json`'s, one for one, with the default parser and @typescript-eslint/parser.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import { allRules } from '../../rules/index';
import { ruleDocUrl } from '../../rules/rule';
import { lineStarts } from '../../rules/positions';
import { analyzeForEslint } from '../../eslint/analyze-for-eslint';
import { checkJson, makeTree, SETNX_THEN_EXPIRE, type JsonReport, type Tree } from '../cli/cli-process';

const ROOT = resolve('.');
const SETNX_JS = SETNX_THEN_EXPIRE.replace(': Promise<void>', '').replace('(id: string)', '(id)');
const CONFIG_DIR = join(ROOT, 'test/.tmp/eslint');
const CONFIG = join(CONFIG_DIR, 'eslint.config.mjs');

before(() => {
  mkdirSync(CONFIG_DIR, { recursive: true });
  writeFileSync(
    CONFIG,
    [
      "import lockwise from 'lockwise/eslint-plugin';",
      "import tsParser from '@typescript-eslint/parser';",
      'export default [',
      "  { files: ['**/*.ts'], languageOptions: { parser: tsParser } },",
      '  lockwise.configs.recommended,',
      '];',
      '',
    ].join('\n'),
  );
});
after(() => rmSync(CONFIG_DIR, { recursive: true, force: true }));

interface Comparable {
  file: string;
  rule: string;
  severity: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
}

const byPosition = (a: Comparable, b: Comparable) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule);

/** What `lockwise check` says, in ESLint's terms: a prefixed id, 2/1 severities, related locations appended. */
function expectedFrom(report: JsonReport, base: string): Comparable[] {
  return report.findings
    .map((f) => ({
      file: resolve(base, f.file),
      rule: `lockwise/${f.rule}`,
      severity: f.severity === 'error' ? 2 : 1,
      line: f.line,
      column: f.column,
      endLine: f.endLine,
      endColumn: f.endColumn,
      message: f.related.length === 0 ? f.message : `${f.message} Related: ${f.related.map((r) => `${r.line}:${r.column} ${r.message}`).join('; ')}`,
    }))
    .sort(byPosition);
}

async function lint(cwd: string, patterns: string[], overrideConfigFile: string | true = CONFIG, overrideConfig?: Linter.Config[]) {
  const eslint = new ESLint({ cwd, overrideConfigFile, overrideConfig });
  return eslint.lintFiles(patterns);
}

function actualFrom(results: ESLint.LintResult[]): Comparable[] {
  return results
    .flatMap((r) =>
      r.messages.map((m) => {
        assert.ok(!m.fatal, `${r.filePath}: ${m.message}`);
        return { file: r.filePath, rule: m.ruleId ?? '', severity: m.severity, line: m.line, column: m.column, endLine: m.endLine ?? 0, endColumn: m.endColumn ?? 0, message: m.message };
      }),
    )
    .sort(byPosition);
}

test('ESLint with @typescript-eslint/parser reports exactly what lockwise check reports on examples/', async () => {
  const { run, report } = checkJson(['examples'], ROOT);
  assert.equal(run.status, 1, run.stderr);
  const expected = expectedFrom(report, ROOT);
  assert.ok(expected.length >= 11, `the examples trigger every rule (${expected.length} findings)`);
  assert.deepEqual(new Set(expected.map((f) => f.rule)).size, allRules.length);

  const results = await lint(ROOT, ['examples/']);
  assert.ok(results.length >= 10, 'every example file was linted');
  assert.deepEqual(actualFrom(results), expected);
});

test('the default parser on JavaScript, and suggestions that are the CLI fixes', async () => {
  const tree: Tree = makeTree({ 'src/lock.js': SETNX_JS });
  try {
    const { report } = checkJson(['.'], tree.root);
    assert.equal(report.findings.length, 1);
    const results = await lint(tree.root, ['src/'], true, [
      (await import('lockwise/eslint-plugin' as string)).default.configs.recommended as Linter.Config,
    ]);
    assert.deepEqual(actualFrom(results), expectedFrom(report, tree.root));

    // Offered, never applied: no `fix`, the suggestion's edit gives the same text as the CLI's fix.
    const [message] = results[0].messages;
    assert.equal(message.fix, undefined);
    const text = readFileSync(join(tree.root, 'src/lock.js'), 'utf8');
    const suggestion = message.suggestions?.[0];
    const cliFix = report.findings[0].fixes[0];
    assert.ok(suggestion && cliFix);
    assert.equal(suggestion.desc, cliFix.title);
    const viaEslint = text.slice(0, suggestion.fix.range[0]) + suggestion.fix.text + text.slice(suggestion.fix.range[1]);
    const starts = lineStarts(text);
    const at = (line: number, column: number) => starts[line - 1] + column - 1;
    let viaCli = text;
    for (const e of [...cliFix.edits].sort((a, b) => at(b.line, b.column) - at(a.line, a.column))) {
      viaCli = viaCli.slice(0, at(e.line, e.column)) + e.newText + viaCli.slice(at(e.endLine, e.endColumn));
    }
    assert.equal(viaEslint, viaCli);
    assert.notEqual(viaEslint, text);
  } finally {
    tree.remove();
  }
});

test('rule meta: the doc URL, suggestions, and the recommended severities', async () => {
  const plugin = (await import('lockwise/eslint-plugin' as string)).default as ESLint.Plugin & { configs: { recommended: Linter.Config } };
  assert.deepEqual(Object.keys(plugin.rules ?? {}), allRules.map((r) => r.id));
  for (const rule of allRules) {
    const meta = (plugin.rules?.[rule.id] as { meta?: { docs?: { url?: string }; hasSuggestions?: boolean; fixable?: string } } | undefined)?.meta;
    assert.equal(meta?.docs?.url, ruleDocUrl(rule.id));
    assert.equal(meta?.hasSuggestions, true);
    assert.equal(meta?.fixable, undefined, 'no autofix');
    assert.equal(plugin.configs.recommended.rules?.[`lockwise/${rule.id}`], rule.defaultSeverity === 'error' ? 'error' : 'warn');
  }
});

test('a file the analyzer cannot take is one message, and the rest of the run goes on', async () => {
  const tree: Tree = makeTree({
    'deep.js': `${'{'.repeat(2000)}redis.setnx(k, 1); redis.expire(k, 1);${'}'.repeat(2000)}\n`,
    'lock.js': SETNX_JS,
  });
  try {
    const plugin = (await import('lockwise/eslint-plugin' as string)).default as { configs: { recommended: Linter.Config } };
    const results = await lint(tree.root, ['.'], true, [plugin.configs.recommended]);
    const of = (name: string) => results.find((r) => r.filePath.endsWith(name))!.messages;
    const deep = of('deep.js');
    assert.deepEqual(deep.map((m) => m.ruleId), ['lockwise/atomic-acquire'], 'reported once, not by each rule');
    assert.match(deep[0].message, /^Lockwise could not analyse this file: cannot analyse .*deep\.js: the code is nested too deeply/);
    assert.deepEqual(of('lock.js').map((m) => m.ruleId), ['lockwise/atomic-acquire'], 'the next file is linted as usual');
  } finally {
    tree.remove();
  }
});

test('the analysis runs once per file name and text, and again when the text changes', () => {
  const file = join(ROOT, 'test/.tmp/eslint/cache-probe.ts');
  const first = analyzeForEslint(file, SETNX_THEN_EXPIRE);
  assert.equal(first.findings.length, 1);
  assert.equal(analyzeForEslint(file, SETNX_THEN_EXPIRE), first, 'the same result object: not analysed again');
  const changed = analyzeForEslint(file, `${SETNX_THEN_EXPIRE}\n// edited\n`);
  assert.notEqual(changed, first);
  assert.equal(changed.findings.length, 1);
  assert.equal(relative(ROOT, file), 'test/.tmp/eslint/cache-probe.ts');
});

test('ESLint run on one file sees the lock helper it imports from another (the project index)', async () => {
  const tree: Tree = makeTree({
    'lib/lock.js': `const Redis = require('ioredis');
const redis = new Redis();
async function acquireLock(key) {
  return redis.set(key, require('node:crypto').randomUUID(), 'PX', 5000, 'NX');
}
module.exports = { acquireLock };
`,
    // No lock word, no Redis command: only the helper's summary makes this lock code.
    'routes/pay.js': `const { acquireLock: take } = require('../lib/lock');
async function pay(id) {
  await take('order:' + id);
}
module.exports = { pay };
`,
  });
  try {
    const plugin = (await import('lockwise/eslint-plugin' as string)).default as { configs: { recommended: Linter.Config } };
    const results = await lint(tree.root, ['routes/pay.js'], true, [plugin.configs.recommended]);
    assert.deepEqual(results[0].messages.map((m) => m.ruleId), ['lockwise/check-acquire-result']);
    assert.match(results[0].messages[0].message, /lib\/lock\.js:4/);
  } finally {
    tree.remove();
  }
});
