// The language server's workspace scan of the bench corpus (bench/.corpus/src, installed by
// bench/corpus.mjs), over stdio against the built dist/server.js (targets: <= 1.5x the baseline, peak
// RSS <= 200 MB). The baseline is the floor the scan cannot beat: every file read and analysed in one
// process, one after the other, by the server's own Analyzer with its project model on
// (bench/scan-baseline.ts). What the scan adds on top (listing folders, config scopes, size checks,
// diagnostics, publishing, LSP) is the overhead. The machine may be shared, so baseline and scan
// alternate for ROUNDS rounds, each in a fresh process, and the median ratio is the figure; the peak
// RSS is the highest of the rounds.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { CheckWorkspaceResult } from '../server/src/protocol';
import { startServer, type LspClient } from '../test/server/helpers/lsp-client';

const ROUNDS = 3;

const ms = (v: number) => `${v.toFixed(1)} ms`;

function corpusSrc(): string {
  const run = spawnSync(process.execPath, [join(import.meta.dirname, 'corpus.mjs')], { stdio: 'inherit', cwd: join(import.meta.dirname, '..') });
  if (run.status !== 0) throw new Error('bench/corpus.mjs failed');
  return join(import.meta.dirname, '.corpus', 'src');
}

/** Peak and current resident set of a process, from /proc (Linux); undefined elsewhere. */
function memoryOf(pid: number): { peakMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** The baseline (bench/scan-baseline.ts) in a fresh process: both it and the server start cold. */
function readAndAnalyse(root: string): { elapsedMs: number; findings: number; files: number } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'scan-baseline.ts'), root], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bench/scan-baseline.ts failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { elapsedMs: number; findings: number; files: number };
}

/** One scan of the corpus by a fresh server: lockwise/checkWorkspace's answer, its time and the server's peak RSS. */
async function serverScan(root: string): Promise<{ result: CheckWorkspaceResult; elapsed: number; peakMb?: number }> {
  let client: LspClient | undefined;
  try {
    client = await startServer({ folders: [{ uri: pathToFileURL(root).href, name: 'corpus' }] });
    const started = performance.now();
    const result = await client.request<CheckWorkspaceResult>('lockwise/checkWorkspace', {});
    const elapsed = performance.now() - started;
    return { result, elapsed, peakMb: memoryOf(client.process.pid as number)?.peakMb };
  } finally {
    await client?.stop();
  }
}

async function main(): Promise<void> {
  const root = corpusSrc();
  const ratios: number[] = [];
  const peaks: number[] = [];
  console.log(`workspace scan of bench/.corpus/src, ${ROUNDS} rounds:`);
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = readAndAnalyse(root);
    const scan = await serverScan(root);
    ratios.push(scan.elapsed / baseline.elapsedMs);
    if (scan.peakMb !== undefined) peaks.push(scan.peakMb);
    console.log(`  round ${round}: lockwise/checkWorkspace ${ms(scan.elapsed)} (server-side ${ms(scan.result.durationMs)}; ${scan.result.files} files, ${scan.result.findings} findings)`);
    console.log(`           baseline, read + analyse in process, sequential, project model on: ${ms(baseline.elapsedMs)} (${baseline.files} files, ${baseline.findings} findings)`);
    console.log(`           scan / baseline ${ratios.at(-1)?.toFixed(2)}x; server peak RSS ${scan.peakMb?.toFixed(0) ?? 'n/a (no /proc)'} MB`);
  }
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  console.log(`  scan / baseline, median of ${ROUNDS}: ${median.toFixed(2)}x (target <= 1.5x)`);
  if (peaks.length > 0) console.log(`  server peak RSS, highest of ${ROUNDS}: ${Math.max(...peaks).toFixed(0)} MB (target <= 200 MB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
