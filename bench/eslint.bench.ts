// The ESLint plugin's cost on the bench corpus: ESLint + @typescript-eslint/parser with one built-in
// rule (ESLint's own cost of running any rule: the traversal), then with lockwise.configs.recommended,
// in this process through the ESLint API, alternated, best of two each; against `lockwise check` on
// the same folder (child process, best of two); and the plugin's analysis alone, without ESLint.
// The issue's bar: the plugin adds no more to an ESLint run than `lockwise check` takes on its own.
// Figures are printed, never asserted (a shared machine: run it twice before believing a change).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
// A namespace import: the parser is CommonJS with __esModule, so a default import would be undefined here.
import * as parser from '@typescript-eslint/parser';
import { analyzeForEslint } from '../eslint/analyze-for-eslint';

const CORPUS_SRC = resolve('bench/.corpus/src');
const CLI = resolve('dist/cli.js');
const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === '.git' ? [] : listFiles(path);
    return SOURCE_FILE.test(e.name) ? [path] : [];
  });
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

/** The time ESLint spent in lockwise/* rules, summed over files and passes (from `stats`). */
function pluginRuleMs(results: ESLint.LintResult[]): number {
  let total = 0;
  for (const result of results) {
    for (const pass of result.stats?.times.passes ?? []) {
      for (const [rule, time] of Object.entries(pass.rules ?? {})) if (rule.startsWith('lockwise/')) total += time.total;
    }
  }
  return total;
}

async function lint(config: Linter.Config[]): Promise<{ wallMs: number; results: ESLint.LintResult[] }> {
  // stats: ESLint times each rule on each file, which a shared machine moves far less than a whole run.
  const eslint = new ESLint({ cwd: CORPUS_SRC, overrideConfigFile: true, overrideConfig: config, stats: true });
  const started = performance.now();
  const results = await eslint.lintFiles(['.']);
  return { wallMs: performance.now() - started, results };
}

async function main(): Promise<void> {
  const corpus = spawnSync(process.execPath, ['bench/corpus.mjs'], { stdio: 'inherit' });
  if (corpus.status !== 0) throw new Error('installing the corpus failed');
  // The built plugin, as users load it through package.json "exports".
  const lockwise = (await import(resolve('dist/eslint-plugin.js'))).default as { configs: { recommended: Linter.Config } };
  const base: Linter.Config = { files: ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'], languageOptions: { parser: parser as Linter.Parser }, linterOptions: { reportUnusedDisableDirectives: 'off' } };
  const oneRule = [base, { rules: { 'no-debugger': 'error' } } as Linter.Config];
  const withPlugin = [base, lockwise.configs.recommended];

  const one: number[] = [];
  const plugin: number[] = [];
  const ruleTimes: number[] = [];
  let results: ESLint.LintResult[] = [];
  for (let round = 0; round < 2; round++) {
    one.push((await lint(oneRule)).wallMs);
    const run = await lint(withPlugin);
    plugin.push(run.wallMs);
    ruleTimes.push(pluginRuleMs(run.results));
    results = run.results;
  }
  const checks = [0, 1].map(() => {
    const started = performance.now();
    const run = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', '.'], { cwd: CORPUS_SRC, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
    if (run.status === null || run.status > 1) console.log(`lockwise check failed (exit ${run.status}):\n${run.stderr.slice(0, 2000)}`);
    return performance.now() - started;
  });

  // The plugin's own work on every file ESLint lints (after a warm-up pass over other texts).
  const texts = listFiles(CORPUS_SRC).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  for (const { file, text } of texts) analyzeForEslint(file, `${text}\n`);
  const started = performance.now();
  for (const { file, text } of texts) analyzeForEslint(file, text);
  const inProcess = performance.now() - started;

  const messages = results.flatMap((r) => r.messages);
  const overhead = Math.min(...plugin) - Math.min(...one);
  const check = Math.min(...checks);
  console.log(`corpus: ${results.length} files linted by ESLint (${messages.filter((m) => m.fatal).length} parse errors)`);
  console.log(`ESLint + @typescript-eslint/parser, no-debugger        ${ms(Math.min(...one))} (runs: ${one.map(ms).join(', ')})`);
  console.log(`ESLint + parser + lockwise.configs.recommended         ${ms(Math.min(...plugin))} (runs: ${plugin.map(ms).join(', ')}; ${messages.filter((m) => m.ruleId?.startsWith('lockwise/')).length} lockwise messages)`);
  console.log(`  the plugin adds                                      ${ms(overhead)}`);
  console.log(`lockwise check --format json on the same folder        ${ms(check)} (runs: ${checks.map(ms).join(', ')})`);
  // Two whole ESLint runs of about 30 s differ by more than the plugin's cost when the machine is busy:
  // a negative difference is noise, not a figure (the stats line below times the rules themselves).
  const costRatio = overhead >= 0 ? `${(overhead / check).toFixed(2)}x` : 'not measurable this run (the run with the plugin was the faster one)';
  console.log(`  plugin cost / lockwise check                         ${costRatio} (target <= 1x; whole runs swing by seconds here)`);
  console.log(`the plugin's rules as ESLint timed them (stats)       ${ruleTimes.map(ms).join(', ')} (first run cold, second warm): ${(ruleTimes[0] / check).toFixed(2)}x lockwise check cold`);
  console.log(`the plugin's analysis alone, in-process, ${texts.length} files  ${ms(inProcess)} (${(inProcess / check).toFixed(2)}x lockwise check)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
