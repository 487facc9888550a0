// Files whose syntax trees nest deeper than the default stack allows (generated code, thousands of
// nested parentheses or blocks) are analysed again in a worker thread with a large stack, so they
// still get findings. The worker runs this module's bundle (dist/cli-analyzer.js), whose entry calls
// serveLargeStackJobs(); the worker is recognised by its workerData.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { analyzeText } from '../../rules/analyze';
import type { LockwiseConfig } from '../../rules/config';
import type { AnalysisResult } from '../../rules/types';

export interface LargeStackJob {
  path: string;
  text: string;
  config: LockwiseConfig;
}

export type LargeStackOutcome = { result: AnalysisResult } | { error: string };

const STACK_MB = 256;
const JOBS_KEY = 'lockwiseLargeStackJobs';

/** A stack overflow, also when the analyzer wrapped it in an error of its own (matched by V8's message). */
export function isStackOverflow(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (/maximum call stack size exceeded/i.test(e.message)) return true;
  }
  return false;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function analyzeWithLargeStack(jobs: LargeStackJob[]): Promise<LargeStackOutcome[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, {
      workerData: { [JOBS_KEY]: jobs },
      resourceLimits: { stackSizeMb: STACK_MB },
      // The worker reports by message only.
      stdout: true,
      stderr: true,
    });
    worker.once('message', (outcomes: LargeStackOutcome[]) => resolve(outcomes));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the large-stack worker exited (code ${code}) without a result`)));
  });
}

/** In the large-stack worker: analyses its jobs, posts the outcomes and returns true; elsewhere false. */
export function serveLargeStackJobs(): boolean {
  const jobs = (workerData as Record<string, LargeStackJob[] | undefined> | null)?.[JOBS_KEY];
  if (isMainThread || !jobs) return false;
  const outcomes: LargeStackOutcome[] = jobs.map((job) => {
    try {
      return { result: analyzeText(job.path, job.text, { config: job.config }) };
    } catch (err) {
      return { error: describe(err) };
    }
  });
  parentPort?.postMessage(outcomes);
  return true;
}
