// Language server speed over stdio (the built dist/server.js, driven by a real JSON-RPC client):
//  1. didChange -> publishDiagnostics for a 5,000-line file, p50/p95 after warm-up (target p95 <= 30 ms for
//     lock code in every other function, the worst case, and <= 20 ms for real code with some lock code in it,
//     bench/fixtures/mixed-file.ts, the typical large file), each edited mid-file, against the in-process
//     analyzeText time of the same text, and the in-process incremental analysis of the same edit
//     (the document's kept tree and kept analysis without fixes, server/src/document-tree.ts, what the server
//     runs per edit: the floor it cannot beat, so the difference is the server's own overhead), whose findings are checked against the
//     fresh analysis after every edit; and the server's CPU time per edit (a mean, from /proc), which other
//     processes on the machine barely change: the figure to compare before/after on a busy machine;
// (The workspace scan has its own bench: bench/server-scan.bench.ts.)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyzeText } from '../rules/analyze';
import { DocumentTree } from '../server/src/document-tree';
import type { Finding } from '../rules/types';
import { startServer, type LspClient } from '../test/server/helpers/lsp-client';
import { tempWorkspace } from '../test/server/helpers/workspace';
import { mixedFile } from './fixtures/mixed-file';

const WARMUP = 15;
const SAMPLES = 100;
// Edits arrive further apart than one analysis takes: each is an isolated edit, the case the target is about.
const PAUSE_MS = 120;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/**
 * The CPU time (user + system) process `pid` has used, in ms, from /proc (Linux; undefined elsewhere). Unlike
 * the latency, it barely grows when other processes share the cores, so before/after runs compare on a busy
 * machine. /proc counts in ticks of 10 ms (USER_HZ is 100): only a mean over many edits is exact enough.
 */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** What a diagnostic shows of a finding (fixes aside). */
const shown = (findings: readonly Finding[]) => JSON.stringify(findings.map((f) => [f.rule, f.severity, f.message, f.span, f.related]));

function block(i: number): string {
  return `export async function job${i}(redis: Redis, id: string): Promise<void> {
  const ok = await redis.setnx(\`lock:job${i}:\${id}\`, 'worker');
  if (!ok) return;
  await redis.expire(\`lock:job${i}:\${id}\`, 30);
  try {
    const rows = [1, 2, 3].map((n) => n * ${i});
    console.log('job ${i}', id, rows.length);
  } finally {
    await redis.del(\`lock:job${i}:\${id}\`);
  }
}

export function helper${i}(values: number[]): number {
  let total = 0;
  for (const v of values) {
    if (v % 2 === 0) total += v;
    else total -= v;
  }
  return total;
}

`;
}

function fiveThousandLines(): string {
  let text = "import Redis from 'ioredis';\n\n";
  for (let i = 0; text.split('\n').length < 5000; i++) text += block(i);
  return text;
}

/** Collects this process's garbage where --expose-gc allows it (npm run bench passes it). */
const collectOwnGarbage = () => (globalThis as { gc?: () => void }).gc?.();

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** The middle line of `text` and the offset of its end, where the edits of changeLatency go. */
function middleOf(text: string): { line: number; character: number; offset: number } {
  const lines = text.split('\n');
  let line = Math.floor(lines.length / 2);
  while (lines[line].trim() === '') line++;
  const offset = lines.slice(0, line).join('\n').length + 1 + lines[line].length;
  return { line, character: lines[line].length, offset };
}

async function changeLatency(label: string, text: string, targetMs: number): Promise<void> {
  const { line, character, offset } = middleOf(text);
  const spaced = `${text.slice(0, offset)} ${text.slice(offset)}`;

  const ws = tempWorkspace('bench-latency');
  let client: LspClient | undefined;
  try {
    client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
    const uri = ws.uriOf('bench.ts');
    client.open(uri, text);
    const first = await client.nextDiagnostics(uri, 1);
    const latencies: number[] = [];
    // Measured between the server's samples, so both see the same machine load.
    const inProcess: number[] = [];
    const incremental: number[] = [];
    let current = text;
    const NO_HELPERS = { acquire: [], release: [], extend: [] };
    const tree = new DocumentTree();
    const kept = tree.analysis;
    tree.analyze('bench.ts', text, NO_HELPERS, {});
    let matched = 0;
    let cpuBefore: number | undefined;
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      await pause();
      if (i === WARMUP) cpuBefore = cpuMsOf(client.process.pid);
      const at = { line, character };
      // This process's own garbage (the in-process baselines below allocate a file's trees per edit) is
      // collected before the edit is sent: otherwise a collection here, while it reads the diagnostics,
      // lands in every seventh sample or so. An editor's process runs no analysis of its own.
      collectOwnGarbage();
      const arrived = client.nextDiagnostics(uri, (client.version(uri) ?? 0) + 1);
      const started = performance.now();
      // Type a space, then delete it again: the text keeps its size.
      const change = i % 2 === 0 ? { range: { start: at, end: at }, text: ' ' } : { range: { start: at, end: { ...at, character: character + 1 } }, text: '' };
      client.change(uri, [change]);
      await arrived;
      if (i >= WARMUP) latencies.push(performance.now() - started);
      current = i % 2 === 0 ? spaced : text;
      // The same edit on a kept tree and kept analysis, findings without fixes (sites wait for a request); measured
      // first, as the server's analysis is (an analyzeText just before leaves garbage that slows the next one down).
      const reparsed = performance.now();
      const kepts = tree.analyze('bench.ts', current, NO_HELPERS, {});
      if (i >= WARMUP) incremental.push(performance.now() - reparsed);
      const analysed = performance.now();
      const fresh = analyzeText('bench.ts', current);
      if (i >= WARMUP) inProcess.push(performance.now() - analysed);
      if (shown(kepts.findings) === shown(fresh.findings)) matched++;
    }

    // Whatever the server did for the measured edits, also after it published (a collection).
    const cpuAfter = cpuMsOf(client.process.pid);
    const cpuPerEdit = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / SAMPLES;

    // A burst of typing, 10 ms apart: changes that arrive while an analysis runs are taken together.
    const burstStart = client.version(uri) ?? 0;
    const published: number[] = [];
    const stopCounting = client.onDiagnostics((p) => {
      if (p.uri === uri && p.version !== undefined && p.version > burstStart) published.push(p.version);
    });
    // Listening before the last change goes out: a fast analysis can publish within the 10 ms pause.
    const last = client.nextDiagnostics(uri, burstStart + 20);
    let lastSent = 0;
    for (let i = 0; i < 20; i++) {
      client.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '' }]);
      lastSent = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await last;
    const burst = performance.now() - lastSent;
    stopCounting();

    console.log(`${label}: ${text.split('\n').length} lines, ${text.length} chars, ${first.diagnostics.length} findings; ${SAMPLES} isolated edits ${PAUSE_MS} ms apart:`);
    console.log(`  didChange -> publishDiagnostics  p50 ${ms(percentile(latencies, 50))}  p95 ${ms(percentile(latencies, 95))}  (target p95 <= ${targetMs} ms)`);
    if (cpuPerEdit !== undefined) console.log(`  server CPU time per edit (mean, from /proc)  ${ms(cpuPerEdit)}`);
    console.log(`  baseline, analyzeText in process p50 ${ms(percentile(inProcess, 50))}  p95 ${ms(percentile(inProcess, 95))}`);
    console.log(`  baseline, kept tree + kept analysis in process p50 ${ms(percentile(incremental, 50))}  p95 ${ms(percentile(incremental, 95))}`);
    console.log(`  kept analysis = fresh analysis after ${matched} of ${WARMUP + SAMPLES} edits (${kept.stats.reused} re-used, ${kept.stats.reusedWithoutTree} of them without re-parsing the file; ${kept.stats.unit} re-analysing one function, ${kept.stats.withoutTree} of them without re-parsing; ${kept.stats.fresh} analysed afresh)`);
    console.log(`  server overhead over the incremental baseline at p50: ${ms(percentile(latencies, 50) - percentile(incremental, 50))}`);
    console.log(`  burst of 20 changes 10 ms apart: last change -> diagnostics ${ms(burst)}; ${published.length} analyses published (versions ${published.join(' ')})`);
  } finally {
    await client?.stop();
    ws.remove();
  }
}

/** Installs the corpus the real-code file is made of (bench/corpus.mjs, idempotent), when that script is present. */
function installCorpus(): void {
  const script = join(import.meta.dirname, 'corpus.mjs');
  if (!existsSync(script)) return;
  const run = spawnSync(process.execPath, [script], { stdio: 'inherit', cwd: join(import.meta.dirname, '..') });
  if (run.status !== 0) throw new Error('bench/corpus.mjs failed');
}

async function main(): Promise<void> {
  await changeLatency('Lock code in every function (worst case)', fiveThousandLines(), 30);
  installCorpus();
  const mixed = mixedFile();
  if (mixed) await changeLatency('\nReal code with some lock code (bench/fixtures/mixed-file.ts)', mixed, 20);
  else console.log('\n(no corpus at bench/.corpus: no real-code latency figures)');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
