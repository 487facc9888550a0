// `lockwise check` analyses in worker threads (dist/cli-worker.js, which loads the analyzer bundle;
// analysis-pool.ts keeps one per core), so that loading TypeScript and parsing overlap with walking,
// reading and pre-checking the other files on the main thread. Files whose syntax trees nest deeper than the default stack allows (generated code,
// thousands of nested parentheses) are analysed again in a second worker with a large stack.
import { once } from 'node:events';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { LockwiseConfig } from '../../rules/config';
import type { AnalysisResult } from '../../rules/types';

export interface AnalysisJob {
  id: number;
  path: string;
  text: string;
  config: LockwiseConfig;
  /** No lock code of its own: analysed only if it imports a project module with lock helpers. */
  maybe?: boolean;
  /** Apply fixes first (`check --fix`): the unattended ones, or all preferred ones. */
  fix?: 'unattended' | 'all';
  /** Compute each finding's fixes: only where the report shows them (they are most of its size). */
  withFixes: boolean;
}

export type AnalysisOutcome =
  | { id: number; result: AnalysisResult; fixed?: { text: string; applied: number } }
  | { id: number; error: string; stackOverflow: boolean };

/** The worker's workerData. */
export interface WorkerOptions {
  /** Write the analyzer's code cache when finished, if it had none it could use (see code-cache.ts). */
  saveCodeCache: boolean;
  /** Analyse each file alone, without the project's helpers (`--no-project`). */
  singleFile: boolean;
}

const LARGE_STACK_MB = 256;

export class AnalysisWorker {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  private readonly pending = new Map<number, { resolve(outcome: AnalysisOutcome): void; reject(err: Error): void }>();
  private failure?: Error;

  constructor(stackSizeMb?: number, singleFile = false, saveCodeCache = stackSizeMb === undefined) {
    const options: WorkerOptions = { saveCodeCache, singleFile };
    // Required when the first worker starts: a check that finds no lock code never loads worker_threads.
    const { Worker: WorkerThread } = require('node:worker_threads') as typeof import('node:worker_threads');
    this.worker = new WorkerThread(join(__dirname, 'cli-worker.js'), {
      workerData: options,
      resourceLimits: stackSizeMb ? { stackSizeMb } : undefined,
      // stdout carries the report: the worker answers by message only.
      stdout: true,
    });
    this.exited = once(this.worker, 'exit');
    this.worker.on('message', (outcome: AnalysisOutcome) => {
      this.pending.get(outcome.id)?.resolve(outcome);
      this.pending.delete(outcome.id);
    });
    this.worker.once('error', (err) => this.fail(err));
    this.worker.once('exit', (code) => this.fail(new Error(`the analysis worker exited (code ${code})`)));
  }

  analyze(job: AnalysisJob): Promise<AnalysisOutcome> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending.set(job.id, { resolve, reject });
      this.worker.postMessage(job);
    });
  }

  /** Lets the worker finish (and write the code cache) and waits until it has exited. */
  async close(): Promise<void> {
    if (!this.failure) this.worker.postMessage('finish');
    await this.exited;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }
}

export function overflowed(outcome: AnalysisOutcome): boolean {
  return 'error' in outcome && outcome.stackOverflow;
}

/** Analyses again, in a worker with a large stack, files whose syntax trees overflowed the default one. */
export async function analyzeWithLargeStack(jobs: AnalysisJob[], singleFile: boolean): Promise<AnalysisOutcome[]> {
  const worker = new AnalysisWorker(LARGE_STACK_MB, singleFile);
  try {
    return await Promise.all(jobs.map((job) => worker.analyze(job)));
  } finally {
    await worker.close();
  }
}
