// The ESLint plugin's cost: ESLint + @typescript-eslint/parser over the bench corpus with no rules, then
// with lockwise.configs.recommended, against `lockwise check` on the same files. The bar: the
// plugin adds no more to an ESLint run than `lockwise check` takes on its own. Figures are printed,
// never asserted; each run is the best of two, alternated, on a shared machine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CORPUS_SRC = resolve('bench/.corpus/src');
const CLI = resolve('dist/cli.js');
const ESLINT = resolve('node_modules/eslint/bin/eslint.js');
const scratch = mkdtempSync(join(tmpdir(), 'lockwise-eslint-bench-'));

function config(withPlugin: boolean): string {
  const file = join(scratch, `eslint-${withPlugin ? 'plugin' : 'bare'}.config.mjs`);
  writeFileSync(
    file,
    [
      `import parser from ${JSON.stringify(resolve('node_modules/@typescript-eslint/parser/dist/index.js'))};`,
      withPlugin ? `import lockwise from ${JSON.stringify(resolve('dist/eslint-plugin.js'))};` : '',
      'export default [',
      "  { files: ['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}'], languageOptions: { parser }, linterOptions: { reportUnusedDisableDirectives: 'off' } },",
      withPlugin ? '  lockwise.configs.recommended,' : '',
      '];',
      '',
    ].join('\n'),
  );
  return file;
}

interface Run {
  wallMs: number;
  status: number | null;
  stderr: string;
}

function timed(args: string[]): Run {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: CORPUS_SRC, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (run.error) throw run.error;
  return { wallMs: performance.now() - started, status: run.status, stderr: run.stderr };
}

function eslint(configFile: string, out: string): Run {
  return timed([ESLINT, '--config', configFile, '--format', 'json', '--output-file', out, '.']);
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
const best = (runs: Run[]) => runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));

function main(): void {
  const corpus = spawnSync(process.execPath, ['bench/corpus.mjs'], { stdio: 'inherit' });
  if (corpus.status !== 0) throw new Error('installing the corpus failed');
  const bare = config(false);
  const withPlugin = config(true);
  const bareOut = join(scratch, 'bare.json');
  const pluginOut = join(scratch, 'plugin.json');
  const runs = { bare: [] as Run[], plugin: [] as Run[], check: [] as Run[] };
  for (let round = 0; round < 2; round++) {
    runs.bare.push(eslint(bare, bareOut));
    runs.plugin.push(eslint(withPlugin, pluginOut));
    runs.check.push(timed([CLI, 'check', '--format', 'json', '.']));
  }
  for (const [name, list] of Object.entries(runs)) {
    const failed = list.find((r) => r.status === null || r.status > 1);
    if (failed) console.log(`${name} failed (exit ${failed.status}):\n${failed.stderr.slice(0, 2000)}`);
  }
  if (!existsSync(pluginOut)) return;
  const results = JSON.parse(readFileSync(pluginOut, 'utf8')) as { messages: { ruleId: string | null; fatal?: boolean }[] }[];
  const messages = results.flatMap((r) => r.messages);
  const lockwiseMessages = messages.filter((m) => m.ruleId?.startsWith('lockwise/')).length;
  const overhead = best(runs.plugin).wallMs - best(runs.bare).wallMs;
  const check = best(runs.check).wallMs;
  console.log(`corpus: ${results.length} files linted by ESLint (${messages.filter((m) => m.fatal).length} parse errors)`);
  console.log(`ESLint + @typescript-eslint/parser, no rules        ${ms(best(runs.bare).wallMs)}`);
  console.log(`ESLint + parser + lockwise.configs.recommended      ${ms(best(runs.plugin).wallMs)} (${lockwiseMessages} lockwise messages)`);
  console.log(`  the plugin adds                                   ${ms(overhead)}`);
  console.log(`lockwise check --format json on the same folder     ${ms(check)}`);
  console.log(`  plugin cost / lockwise check                      ${(overhead / check).toFixed(2)}x (target <= 1x)`);
}

try {
  main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
