// One write per step of a keyspace walk. Every pipeline is a write to the socket (a system call, and a
// wake-up of the server), and a SCAN batch's reads come in several small rounds (values and fence checks,
// then their rare follow-ups). So the readers of all batches queue their commands here, and each step
// sends them in one pipeline together with the next SCAN.
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

  readonly queue: Queue = (fill) => new Promise((resolve, reject) => this.waiting.push({ fill, resolve, reject }));

  get idle(): boolean {
    return this.waiting.length === 0;
  }

  /**
   * Sends `first` (the step's SCAN) and everything queued so far as one pipeline, and resolves with the
   * replies to `first`. The readers get their replies only on the next turn of the event loop: by then the
   * caller has sent the next step, so their decoding runs while the server works on it.
   */
  async step(first?: (p: Pipeline) => void): Promise<Reply[]> {
    const p = this.client.pipeline();
    first?.(p);
    const head = p.length;
    const sent = this.waiting.splice(0);
    const ends = sent.map((w) => {
      w.fill(p);
      return p.length;
    });
    if (!p.length) return [];
    let replies: Reply[];
    try {
      replies = await exec(p);
    } catch (err) {
      setImmediate(() => sent.forEach((w) => w.reject(err)));
      throw err;
    }
    setImmediate(() => sent.forEach((w, i) => w.resolve(replies.slice(ends[i - 1] ?? head, ends[i]))));
    return replies.slice(0, head);
  }

  /** Lets the readers handed replies by the last step decode them and queue their next commands. */
  settle(): Promise<void> {
    return new Promise((r) => setImmediate(r));
  }
}
