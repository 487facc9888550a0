// Analysis time of one 5,000-line file after warm-up (issue 2: target p95 <= 30 ms), measured on the
// analyzer as it ships (bundled by esbuild, not run through tsx), next to its floor in the same run:
// TypeScript's createSourceFile of the same text. Two files: a lock-heavy synthetic one (every function
// holds lock code: the worst case) and the real corpus file nearest 5,000 lines that the pre-check
// sends to the parser. Also the editor's case: a one-character edit re-parsed incrementally, then
// analysed (what the language server does per change). Figures are printed, never asserted.
import { build } from 'esbuild';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lockHeavyFile } from './fixtures/lock-heavy-file';

type Analyzer = typeof import('../rules/analyze');
type Ts = typeof import('../rules/engine/typescript').ts;

const CORPUS_SRC = resolve('bench/.corpus/src');
const WARMUP = 20;
const SAMPLES = 40;

/** rules/analyze.ts and the compiler it uses, bundled the way dist/ bundles them. */
async function bundledAnalyzer(dir: string): Promise<{ analyzer: Analyzer; ts: Ts }> {
  const outfile = join(dir, 'analyzer.cjs');
  await build({
    stdin: { contents: "export * from './rules/analyze'; export { ts } from './rules/engine/typescript';", resolveDir: resolve('.'), loader: 'ts' },
    bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile, logLevel: 'warning',
  });
  const loaded = require(outfile) as Analyzer & { ts: Ts };
  return { analyzer: loaded, ts: loaded.ts };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function sample(run: () => void): { p50: number; p95: number } {
  for (let i = 0; i < WARMUP; i++) run();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

const fmt = (s: { p50: number; p95: number }) => `p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return listFiles(path);
    return /\.(?:[cm]?[jt]s|[jt]sx)$/i.test(e.name) && !/\.d\.[cm]?ts$/i.test(e.name) ? [path] : [];
  });
}

/** The corpus file closest to 5,000 lines that the pre-check passes (bench/corpus.mjs installs the corpus). */
function realFile(analyzer: Analyzer): { name: string; text: string } | undefined {
  if (!existsSync(CORPUS_SRC)) return undefined;
  let best: { name: string; text: string; distance: number } | undefined;
  for (const file of listFiles(CORPUS_SRC)) {
    const text = readFileSync(file, 'utf8');
    const distance = Math.abs(text.split('\n').length - 5000);
    if ((!best || distance < best.distance) && analyzer.mightHoldLockCode(text, { acquire: [], release: [], extend: [] })) {
      best = { name: file.slice(CORPUS_SRC.length + 1), text, distance };
    }
  }
  return best;
}

function measureFile(label: string, fileName: string, text: string, analyzer: Analyzer, ts: Ts): void {
  const kind = analyzer.scriptKindOf(fileName) ?? ts.ScriptKind.TS;
  let findings = 0;
  const full = sample(() => {
    findings = analyzer.analyzeText(fileName, text).findings.length;
  });
  const parse = sample(() => ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind));

  // One character typed and deleted again, in the middle of the file, as an editor sends it.
  let tree = analyzer.parseSource(fileName, text);
  let current = text;
  const at = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
  let typed = false;
  const edit = sample(() => {
    const next = typed ? text : `${text.slice(0, at)} ${text.slice(at)}`;
    const change = typed ? ts.createTextChangeRange(ts.createTextSpan(at, 1), 0) : ts.createTextChangeRange(ts.createTextSpan(at, 0), 1);
    tree = analyzer.reparseSource(tree, next, change);
    analyzer.analyzeSource(tree);
    current = next;
    typed = !typed;
  });
  const incrementalFindings = analyzer.analyzeSource(tree).findings.length;
  const freshFindings = analyzer.analyzeText(fileName, current).findings.length;

  console.log(`\n${label}: ${text.split('\n').length} lines, ${(text.length / 1024).toFixed(0)} KB, ${findings} findings`);
  console.log(`  analyzeText (parse + analysis)         ${fmt(full)}  (target p95 <= 30 ms)`);
  console.log(`  baseline createSourceFile alone        ${fmt(parse)}`);
  console.log(`  analysis beyond the parse, at p50      ${(full.p50 - parse.p50).toFixed(1)} ms`);
  console.log(`  after a one-character edit: incremental re-parse + analysis ${fmt(edit)} (target p95 <= 30 ms)`);
  console.log(`  incremental and fresh analysis agree: ${incrementalFindings === freshFindings ? 'yes' : `NO (${incrementalFindings} vs ${freshFindings})`}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lockwise-analysis-bench-'));
  try {
    const { analyzer, ts } = await bundledAnalyzer(dir);
    measureFile('Lock-heavy synthetic file (worst case)', 'heavy.ts', lockHeavyFile(5000), analyzer, ts);
    const real = realFile(analyzer);
    if (real) measureFile(`Real file ${real.name}`, real.name, real.text, analyzer, ts);
    else console.log('\n(no corpus: run bench/check.bench.ts first to install it, for the real-file figures)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
