// `lockwise check` spreads its files over one analysis worker per core. The walk is synchronous, so no
// answer arrives before it ends: each job is therefore handed out as the walk finds it, to the worker
// with the least text still queued (text length stands for the cost of its analysis). A worker is added
// only once there is enough text for it to pay for its start (loading TypeScript), so a run over a few
// files keeps to one worker. Each worker keeps its own project model: a module imported from files of
// two workers is parsed in both.
import { availableParallelism } from 'node:os';
import { AnalysisWorker, type AnalysisJob, type AnalysisOutcome } from './analysis-worker';

/** Queued text per worker beyond which another worker starts: a few tens of milliseconds of analysis. */
const TEXT_PER_WORKER = 256 * 1024;

interface Member {
  worker: AnalysisWorker;
  queued: number;
}

export class AnalysisPool {
  private readonly members: Member[] = [];

  constructor(
    private readonly singleFile: boolean,
    /** At most this many workers (default: one per core). */
    private readonly size?: number,
  ) {}

  analyze(job: AnalysisJob): Promise<AnalysisOutcome> {
    const member = this.memberFor();
    member.queued += job.text.length;
    return member.worker.analyze(job).finally(() => {
      member.queued -= job.text.length;
    });
  }

  /** The number of workers started so far. */
  get workers(): number {
    return this.members.length;
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.worker.close()));
  }

  private memberFor(): Member {
    const least = this.members.reduce<Member | undefined>((best, m) => (!best || m.queued < best.queued ? m : best), undefined);
    if (least && (least.queued < TEXT_PER_WORKER || this.members.length >= (this.size ?? availableParallelism()))) return least;
    // Only the first worker writes the code cache: the others load the same bundle.
    const member = { worker: new AnalysisWorker(undefined, this.singleFile, this.members.length === 0), queued: 0 };
    this.members.push(member);
    return member;
  }
}
