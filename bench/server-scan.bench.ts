// The language server's workspace scan of the bench corpus (bench/.corpus/src, installed by
// bench/corpus.mjs), over stdio against the built dist/server.js (targets: <= 1.5x the baseline, peak
// RSS <= 200 MB). The baseline is the floor the scan cannot beat: every file read and analysed in one
// process, one after the other, by the server's own Analyzer with its project model on
// (bench/scan-baseline.ts). What the scan adds on top (listing folders, config scopes, size checks,
// diagnostics, publishing, LSP) is the overhead. The machine may be shared, so baseline and scan
// alternate for ROUNDS rounds, each in a fresh process, and the median ratio is the figure; the peak
// RSS is the highest of the rounds. The main-thread CPU of both is printed too (Linux): it shows the
// work each did whatever else the machine was running.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { CheckWorkspaceResult } from '../server/src/protocol';
import { startServer, type LspClient } from '../test/server/helpers/lsp-client';
import { mainThreadCpuMs, memoryOf } from './proc-stats';

const ROUNDS = 3;

const ms = (v: number) => `${v.toFixed(1)} ms`;

function corpusSrc(): string {
  const run = spawnSync(process.execPath, [join(import.meta.dirname, 'corpus.mjs')], { stdio: 'inherit', cwd: join(import.meta.dirname, '..') });
  if (run.status !== 0) throw new Error('bench/corpus.mjs failed');
  return join(import.meta.dirname, '.corpus', 'src');
}

/** The baseline (bench/scan-baseline.ts) in a fresh process: both it and the server start cold. */
interface Baseline {
  elapsedMs: number;
  cpuMs?: number;
  findings: number;
  files: number;
}

function readAndAnalyse(root: string): Baseline {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'scan-baseline.ts'), root], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bench/scan-baseline.ts failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Baseline;
}

/** One scan of the corpus by a fresh server: lockwise/checkWorkspace's answer, its time, main-thread CPU and the server's peak RSS. */
async function serverScan(root: string): Promise<{ result: CheckWorkspaceResult; elapsed: number; cpuMs?: number; peakMb?: number }> {
  let client: LspClient | undefined;
  try {
    client = await startServer({ folders: [{ uri: pathToFileURL(root).href, name: 'corpus' }] });
    const pid = client.process.pid as number;
    const cpuBefore = mainThreadCpuMs(pid);
    const started = performance.now();
    const result = await client.request<CheckWorkspaceResult>('lockwise/checkWorkspace', {});
    const elapsed = performance.now() - started;
    const cpuAfter = mainThreadCpuMs(pid);
    const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    return { result, elapsed, cpuMs, peakMb: memoryOf(pid)?.peakMb };
  } finally {
    await client?.stop();
  }
}

async function main(): Promise<void> {
  const root = corpusSrc();
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const peaks: number[] = [];
  console.log(`workspace scan of bench/.corpus/src, ${ROUNDS} rounds:`);
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = readAndAnalyse(root);
    const scan = await serverScan(root);
    ratios.push(scan.elapsed / baseline.elapsedMs);
    if (scan.cpuMs !== undefined && baseline.cpuMs) cpuRatios.push(scan.cpuMs / baseline.cpuMs);
    if (scan.peakMb !== undefined) peaks.push(scan.peakMb);
    const cpu = (v: number | undefined) => (v === undefined ? '' : `, main-thread CPU ${v} ms`);
    console.log(`  round ${round}: lockwise/checkWorkspace ${ms(scan.elapsed)} (server-side ${ms(scan.result.durationMs)}; ${scan.result.files} files, ${scan.result.findings} findings${cpu(scan.cpuMs)})`);
    console.log(`           baseline, read + analyse in process, sequential, project model on: ${ms(baseline.elapsedMs)} (${baseline.files} files, ${baseline.findings} findings${cpu(baseline.cpuMs)})`);
    console.log(`           scan / baseline ${ratios.at(-1)?.toFixed(2)}x; server peak RSS ${scan.peakMb?.toFixed(0) ?? 'n/a (no /proc)'} MB`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`  scan / baseline, median of ${ROUNDS}: ${median(ratios).toFixed(2)}x (target <= 1.5x)`);
  if (cpuRatios.length > 0) console.log(`  main-thread CPU, scan / baseline, median of ${ROUNDS}: ${median(cpuRatios).toFixed(2)}x (less sensitive to a shared machine)`);
  if (peaks.length > 0) console.log(`  server peak RSS, highest of ${ROUNDS}: ${Math.max(...peaks).toFixed(0)} MB (target <= 200 MB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
