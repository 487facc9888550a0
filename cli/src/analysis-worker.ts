// `lockwise check` analyses in worker threads (dist/cli-worker.js, which loads the analyzer bundle;
// analysis-pool.ts keeps a pool of them), so that loading TypeScript and parsing overlap with walking,
// reading and pre-checking the other files on the main thread. Files whose syntax trees nest deeper
// than the default stack allows (generated code, thousands of nested parentheses) are analysed again
// in a worker with a large stack.
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

/** Jobs per claims chunk: the main thread adds a chunk of claim flags as job ids grow. */
export const CLAIM_CHUNK_BITS = 16;

/** A claims chunk for the jobs `chunk << CLAIM_CHUNK_BITS` onwards (see analysis-pool.ts). */
export interface ClaimsMessage {
  chunk: number;
  claims: SharedArrayBuffer;
}

/** One analysis thread: jobs and claims go in, outcomes come back to `onOutcome`. */
export class AnalysisWorker {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  private closing = false;
  private stopped = false;

  constructor(
    options: WorkerOptions & { stackSizeMb?: number },
    onOutcome: (outcome: AnalysisOutcome) => void,
    onFailure: (err: Error) => void,
  ) {
    // Required when the first worker starts: a check that finds no lock code never loads worker_threads.
    const { Worker: WorkerThread } = require('node:worker_threads') as typeof import('node:worker_threads');
    this.worker = new WorkerThread(join(__dirname, 'cli-worker.js'), {
      workerData: { saveCodeCache: options.saveCodeCache, singleFile: options.singleFile } satisfies WorkerOptions,
      resourceLimits: options.stackSizeMb ? { stackSizeMb: options.stackSizeMb } : undefined,
      // stdout carries the report: the worker answers by message only.
      stdout: true,
    });
    this.exited = once(this.worker, 'exit');
    this.worker.on('message', onOutcome);
    this.worker.once('error', onFailure);
    this.worker.once('exit', (code) => {
      if (!this.closing || (code !== 0 && !this.stopped)) onFailure(new Error(`the analysis worker exited (code ${code})`));
    });
  }

  post(message: AnalysisJob | ClaimsMessage): void {
    this.worker.postMessage(message);
  }

  /** Stops a worker that was never given a job, without waiting for it to load the analyzer. */
  async stop(): Promise<void> {
    this.closing = true;
    this.stopped = true;
    await this.worker.terminate();
  }

  /** Lets the worker finish its jobs (and write the code cache) and waits until it has exited. */
  async close(): Promise<void> {
    this.closing = true;
    this.worker.postMessage('finish');
    await this.exited;
  }
}

export function overflowed(outcome: AnalysisOutcome): boolean {
  return 'error' in outcome && outcome.stackOverflow;
}
