// What a piece of work asked of a Redis server, from the server itself: INFO commandstats, reset just
// before. The measuring client's own CONFIG and INFO are left out.
import type Redis from 'ioredis';

export interface CommandCount {
  /** Upper case, e.g. "GET", "CLIENT|NO-TOUCH". */
  command: string;
  calls: number;
  failed: number;
  /** Refused before it ran (an ACL, an unknown command). */
  rejected: number;
}

const MEASURING = /^(config|info|slowlog)/;

/** Commands per type that `work` made `admin`'s server run, busiest first. */
export async function commandCounts(admin: Redis, work: () => Promise<unknown>): Promise<CommandCount[]> {
  await admin.config('RESETSTAT');
  await work();
  const info = await admin.info('commandstats');
  const counts: CommandCount[] = [];
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),.*?rejected_calls=(\d+),failed_calls=(\d+)/gm)) {
    if (!MEASURING.test(m[1]!)) counts.push({ command: m[1]!.toUpperCase(), calls: Number(m[2]), rejected: Number(m[3]), failed: Number(m[4]) });
  }
  return counts.sort((a, b) => b.calls - a.calls);
}

/** Calls of one command in `counts` (0 when it was not run). */
export const callsOf = (counts: readonly CommandCount[], command: string): number => counts.find((c) => c.command === command)?.calls ?? 0;
