// `lockwise check` where most files are lock code, on every core (issue 14), against floors measured in
// the same run:
//  1. The service tree (2,016 files the size of real services, bench/fixtures/lock-dense-tree.ts):
//     `lockwise check` with its default workers (one per core but one), with one per core (`--jobs N`)
//     and with `--jobs 1`, against the single-thread parse
//     floor (read + createSourceFile of every file, in-process, after a warm-up). Target on 2 cores:
//     <= 0.75x the floor.
//  2. Where a file's time goes, in-process with the project model: parse (lean parse + index), model
//     (the file's lock model, with the summaries of the modules it imports), rules.
//  3. CLI start: `lockwise check` on an empty folder against `node -e 0`. Target: <= 1.1x.
// Best of 3 alternated runs for each command; figures are printed, never asserted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { activeRules, parseSource, runRules } from '../rules/analyze';
import { emptyConfig } from '../rules/config';
import { snapshotHost } from '../rules/project/host';
import { ProjectIndex } from '../rules/project/project-index';
import { writeServiceTree } from './fixtures/lock-dense-tree';

const CLI = resolve('dist/cli.js');
const ms = (n: number) => `${n.toFixed(0)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

function parseFloor(files: string[]): number {
  const started = performance.now();
  for (const file of files) ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return performance.now() - started;
}

function wall(args: string[], cwd: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const elapsed = performance.now() - started;
  if (run.status !== 0 && run.status !== 1) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return elapsed;
}

function splitPerFile(files: string[]): void {
  const config = emptyConfig();
  const rules = activeRules(config);
  const index = new ProjectIndex({ host: snapshotHost(), configFor: () => config });
  const cost = { parse: 0, model: 0, rules: 0 };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const t0 = performance.now();
    const sourceFile = parseSource(file, text, config.helpers);
    const t1 = performance.now();
    const model = index.modelOf(file, text, sourceFile, config);
    const t2 = performance.now();
    runRules(model, rules, config, false);
    cost.parse += t1 - t0;
    cost.model += t2 - t1;
    cost.rules += performance.now() - t2;
  }
  const total = cost.parse + cost.model + cost.rules;
  const per = (n: number) => `${((n / files.length) * 1000).toFixed(0)} µs (${((100 * n) / total).toFixed(0)}%)`;
  console.log(`\nper file, in-process, one thread, project model on (${files.length} files, ${(total / files.length).toFixed(2)} ms a file):`);
  console.log(`  parse ${per(cost.parse)}, model ${per(cost.model)}, rules ${per(cost.rules)}`);
}

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'lockwise-workers-bench-'));
  try {
    const count = writeServiceTree(root);
    const files = listFiles(root);
    const lines = files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length, 0);
    parseFloor(files); // JIT warm-up
    wall([CLI, 'check', '.'], root); // writes the code cache
    const floor: number[] = [];
    const pool: number[] = [];
    const perCore: number[] = [];
    const single: number[] = [];
    const cores = String(availableParallelism());
    for (let round = 0; round < 3; round++) {
      floor.push(parseFloor(files));
      pool.push(wall([CLI, 'check', '.'], root));
      perCore.push(wall([CLI, 'check', '--jobs', cores, '.'], root));
      single.push(wall([CLI, 'check', '--jobs', '1', '.'], root));
    }
    const [f, p, c, s] = [floor, pool, perCore, single].map((runs) => Math.min(...runs));
    console.log(`service tree: ${count} files, ${lines} lines; ${cores} cores`);
    console.log(`  parse floor (read + createSourceFile, one thread)  ${ms(f)}`);
    console.log(`  lockwise check (default workers)                ${ms(p)}  ${ratio(p, f)} the floor (target <= 0.75x on 2 cores)`);
    console.log(`  lockwise check --jobs ${cores} (one per core)         ${ms(c)}  ${ratio(c, f)} the floor`);
    console.log(`  lockwise check --jobs 1                         ${ms(s)}  ${ratio(s, f)} the floor; the default is ${ratio(s, p)} faster`);
    splitPerFile(files);

    const empty = join(root, 'empty');
    mkdirSync(empty);
    const node: number[] = [];
    const start: number[] = [];
    for (let round = 0; round < 10; round++) {
      node.push(wall(['-e', '0'], empty));
      start.push(wall([CLI, 'check', '.'], empty));
    }
    const [n, started] = [node, start].map((runs) => Math.min(...runs));
    console.log(`\nCLI start: node -e 0 ${ms(n)}, lockwise check on an empty folder ${ms(started)}: ${ratio(started, n)} (target <= 1.1x), best of 10`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
