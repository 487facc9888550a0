// `lockwise check` spreads its files over analysis workers, one per core but one: the main thread walks
// and reads, and V8's garbage collector and compiler threads need a core too (on 2 cores, two workers
// were no faster than one: each worker's collections then ran on the other's core). The walk is
// synchronous, so no answer arrives before it ends and the main thread cannot hand out work as
// workers free up. Instead every job goes to every worker, and each job is claimed with an atomic flag
// in shared memory: the first worker to reach it analyses it, the others skip it. Workers so take work
// as they free up, whatever the cost of each file. A worker is added only once the queued work would
// keep it busy for longer than its start (loading TypeScript) takes, so a run over a little lock code
// keeps to one. Each worker keeps its own project model: a module imported from files of two workers
// is parsed in both.
import { AnalysisWorker, CLAIM_CHUNK_BITS, type AnalysisJob, type AnalysisOutcome } from './analysis-worker';

/**
 * Queued work per worker beyond which another starts, in characters of text plus a share per file
 * (the per-file cost of messages and project resolution). Measured on the corpus: a second worker
 * started for a few MB of mostly lean-parsed text cost more than it saved.
 */
const WORK_PER_WORKER = 4 * 1024 * 1024;
const WORK_PER_FILE = 4 * 1024;

/** One worker per core but one; node:os is required only once a file needs analysing (a check of nothing never does). */
const defaultSize = () => Math.max(1, (require('node:os') as typeof import('node:os')).availableParallelism() - 1);

export interface PoolOptions {
  /** Analyse each file alone (`--no-project`). */
  singleFile: boolean;
  /** At most this many workers (default: one per core but one, at least one). */
  size?: number;
  /** A worker stack for syntax trees nested too deep for the default one. */
  stackSizeMb?: number;
}

interface Pending {
  job: AnalysisJob;
  cost: number;
  resolve(outcome: AnalysisOutcome): void;
  reject(err: Error): void;
}

export class AnalysisPool {
  private readonly workers: AnalysisWorker[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly claims: SharedArrayBuffer[] = [];
  private queued = 0;
  private jobs = 0;
  private failure?: Error;

  constructor(private readonly options: PoolOptions) {}

  analyze(job: AnalysisJob): Promise<AnalysisOutcome> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.jobs++;
      const cost = job.text.length + WORK_PER_FILE;
      this.pending.set(job.id, { job, cost, resolve, reject });
      this.queued += cost;
      this.ensureClaims(job.id);
      if (this.workers.length === 0 || (this.queued > this.workers.length * WORK_PER_WORKER && this.workers.length < (this.options.size ?? defaultSize()))) {
        this.addWorker();
      } else {
        for (const worker of this.workers) worker.post(job);
      }
    });
  }

  /**
   * Starts the first worker before any job, so that it loads the analyzer while the walk goes on: a
   * walk over many files is likely to find lock code, and the load then no longer waits for the first.
   */
  prepare(): void {
    if (this.workers.length === 0 && !this.failure) this.addWorker();
  }

  async close(): Promise<void> {
    // A worker prepared for jobs that never came is stopped, not waited on while it loads the analyzer.
    await Promise.all(this.workers.map((w) => (this.jobs === 0 ? w.stop() : w.close())));
  }

  private ensureClaims(id: number): void {
    for (let chunk = this.claims.length; chunk <= id >> CLAIM_CHUNK_BITS; chunk++) {
      const claims = new SharedArrayBuffer(1 << CLAIM_CHUNK_BITS);
      this.claims.push(claims);
      for (const worker of this.workers) worker.post({ chunk, claims });
    }
  }

  /** A new worker gets every claims chunk, then every job not answered yet (the others skip what it takes). */
  private addWorker(): void {
    const worker = new AnalysisWorker(
      // Only the first worker writes the code cache: the others load the same bundle.
      { singleFile: this.options.singleFile, saveCodeCache: this.workers.length === 0 && !this.options.stackSizeMb, stackSizeMb: this.options.stackSizeMb },
      (outcome) => this.answered(outcome),
      (err) => this.fail(err),
    );
    this.workers.push(worker);
    this.claims.forEach((claims, chunk) => worker.post({ chunk, claims }));
    for (const { job } of this.pending.values()) worker.post(job);
  }

  private answered(outcome: AnalysisOutcome): void {
    const pending = this.pending.get(outcome.id);
    if (!pending) return;
    this.pending.delete(outcome.id);
    this.queued -= pending.cost;
    pending.resolve(outcome);
  }

  /** A worker that fails may have claimed jobs it will never answer: every unanswered job fails. */
  private fail(err: Error): void {
    this.failure ??= err;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }
}

const LARGE_STACK_MB = 256;

/** Analyses again, in a worker with a large stack, files whose syntax trees overflowed the default one. */
export async function analyzeWithLargeStack(jobs: AnalysisJob[], singleFile: boolean): Promise<AnalysisOutcome[]> {
  const pool = new AnalysisPool({ singleFile, size: 1, stackSizeMb: LARGE_STACK_MB });
  try {
    return await Promise.all(jobs.map((job) => pool.analyze(job)));
  } finally {
    await pool.close();
  }
}
