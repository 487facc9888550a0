// Files whose syntax trees nest deeper than the server's stack allows (3,000 nested blocks, a
// 20,000-deep array literal) overflow it during analysis. Like `lockwise check` (cli/src/analysis-worker.ts),
// the server then analyses them again in a worker thread with a large stack, so both report the same
// findings. The worker runs this same bundle (entry.ts), starts on first need and is ended once it has
// had nothing to do for IDLE_MS (so that typing in a deep file does not start one per keystroke), so
// it holds no memory while every file fits the normal stack.
import { Worker } from 'node:worker_threads';
import type { LockwiseConfig } from '../../rules/config';
import type { LockSiteInfo } from '../../rules/sites';
import type { AnalysisResult, Finding } from '../../rules/types';

export const LARGE_STACK_MB = 256;
const IDLE_MS = 15_000;

export interface LargeStackJob {
  id: number;
  fileName: string;
  text: string;
  config: LockwiseConfig;
}

export type LargeStackOutcome =
  | { id: number; findings: Finding[]; sites: LockSiteInfo[]; ruleFailures: AnalysisResult['ruleFailures'] }
  | { id: number; error: string };

/** A stack overflow, also when the analyzer wrapped it in an error of its own (matched by V8's message). */
export function isStackOverflow(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof RangeError && /maximum call stack size exceeded/i.test(e.message)) return true;
  }
  return false;
}

export class LargeStackAnalyzer {
  private worker?: Worker;
  private idle?: NodeJS.Timeout;
  private nextId = 1;
  private readonly pending = new Map<number, (outcome: LargeStackOutcome) => void>();

  analyze(job: Omit<LargeStackJob, 'id'>): Promise<LargeStackOutcome> {
    const id = this.nextId++;
    clearTimeout(this.idle);
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.started().postMessage({ ...job, id });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(__filename, { resourceLimits: { stackSizeMb: LARGE_STACK_MB } });
    worker.unref();
    worker.on('message', (outcome: LargeStackOutcome) => {
      this.pending.get(outcome.id)?.(outcome);
      this.pending.delete(outcome.id);
      if (this.pending.size === 0) this.idle = setTimeout(() => this.stop(worker), IDLE_MS).unref();
    });
    const fail = (message: string) => {
      if (this.worker !== worker) return; // ended on purpose once idle; the jobs pending now are another worker's
      for (const [id, resolve] of this.pending) resolve({ id, error: message });
      this.pending.clear();
      this.stop(worker);
    };
    worker.on('error', (err) => fail(`the large-stack analysis failed: ${err.message}`));
    worker.on('exit', (code) => fail(`the large-stack analysis worker exited (code ${code})`));
    this.worker = worker;
    return worker;
  }

  private stop(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    void worker.terminate();
  }
}
