// One write per step of a keyspace walk. Every pipeline is a write to the socket (a system call, and a
// wake-up of the server), and a SCAN batch's reads come in several small rounds (values and fence checks,
// then their rare follow-ups). So the readers of all batches queue their commands here, and each step
// sends them in one pipeline together with the next SCAN.
import type Redis from 'ioredis';
import { Command, type Cluster, type Pipeline as PipelineClass } from 'ioredis';

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
  /** The last pipeline sent, answered or not: a step with nothing to send waits for it. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: Redis) {}

  readonly queue: Queue = (fill) => new Promise((resolve, reject) => this.waiting.push({ fill, resolve, reject }));

  get idle(): boolean {
    return this.waiting.length === 0;
  }

  /**
   * Sends `command` (the step's SCAN) first and everything queued so far after it as one pipeline, and
   * resolves with the reply to `command` as soon as that reply arrives, the way a scanStream sends its next
   * SCAN while the server still runs the reads of the batch before: the walk waits neither for the reads
   * nor for their decoding. The readers get their replies once the whole pipeline has answered. Without
   * a command, resolves once everything sent so far has answered.
   */
  step(name?: string, args: (string | number)[] = []): Promise<unknown> {
    const p = this.client.pipeline();
    const first = name === undefined ? undefined : new Command(name, args, { replyEncoding: 'utf8' });
    // A pipeline is an ioredis Pipeline, whose sendCommand keeps the command's own promise.
    if (first) (p as unknown as PipelineClass).sendCommand(first);
    const head = p.length;
    const sent = this.waiting.splice(0);
    const ends = sent.map((w) => {
      w.fill(p);
      return p.length;
    });
    if (!p.length) return this.last;
    const answered = exec(p).then(
      (replies) => setImmediate(() => sent.forEach((w, i) => w.resolve(replies.slice(ends[i - 1] ?? head, ends[i])))),
      (err: unknown) => setImmediate(() => sent.forEach((w) => w.reject(err))),
    );
    this.last = answered;
    return first ? first.promise : answered;
  }

  /** Lets the readers handed replies by the last step decode them and queue their next commands. */
  settle(): Promise<void> {
    return new Promise((r) => setImmediate(r));
  }
}
