// One write per turn of the event loop for a keyspace walk's reads. Every pipeline is a write to the socket
// (a system call, and a wake-up of the server), and a SCAN batch's reads come in several small rounds
// (values and fence checks, then their rare follow-ups). So the readers of all batches queue their commands
// here, and whatever was queued in one turn goes out as one pipeline at the end of that turn.
// The walk's SCAN does not go with them: it is written on its own first, so the server answers it before it
// runs the reads queued behind it, and the walk goes on while the server works on those reads.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

export type Reply = [Error | null, unknown];
export type Pipeline = ReturnType<Redis['pipeline']>;
/** Queues commands into a pipeline and resolves with the replies to exactly those commands. */
export type Queue = (fill: (p: Pipeline) => void) => Promise<Reply[]>;

async function exec(p: Pipeline): Promise<Reply[]> {
  return ((await p.exec()) ?? []) as Reply[];
}

/** A pipeline of its own per call (through a Cluster router: the commands must share a slot). */
export const direct =
  (client: Redis | Cluster): Queue =>
  async (fill) => {
    const p = client.pipeline();
    fill(p);
    return p.length ? exec(p) : [];
  };

export class SharedPipeline {
  private waiting: { fill: (p: Pipeline) => void; resolve: (r: Reply[]) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly client: Redis) {}

  /**
   * Queues commands for the pipeline that goes out at the end of this turn (setImmediate: after the walk has
   * written its next SCAN and the batch just found has queued its reads).
   */
  readonly queue: Queue = (fill) =>
    new Promise((resolve, reject) => {
      if (!this.waiting.length) setImmediate(() => void this.flush());
      this.waiting.push({ fill, resolve, reject });
    });

  private async flush(): Promise<void> {
    const p = this.client.pipeline();
    const sent = this.waiting.splice(0);
    const ends = sent.map((w) => {
      w.fill(p);
      return p.length;
    });
    let replies: Reply[];
    try {
      replies = p.length ? await exec(p) : [];
    } catch (err) {
      for (const w of sent) w.reject(err);
      return;
    }
    sent.forEach((w, i) => w.resolve(replies.slice(ends[i - 1] ?? 0, ends[i])));
  }
}
