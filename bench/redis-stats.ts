// What a piece of work cost the Redis server, read from the server itself: INFO commandstats (how many
// commands of each type; test/helpers/command-stats.ts) and SLOWLOG with slowlog-log-slower-than 0 (how
// long each single command ran).
import type Redis from 'ioredis';
import type { CommandCount } from '../test/helpers/command-stats';

/** The measuring client's own commands. */
const MEASURING = /^(config|info|slowlog)/;

/** "GETRANGE 9,500 (0.95/key, 500 failed), ..." with `perKey` the number of lock keys listed. */
export function formatCounts(counts: CommandCount[], perKey: number): string {
  const total = counts.reduce((n, c) => n + c.calls, 0);
  const each = counts.map((c) => `${c.command} ${c.calls} (${(c.calls / perKey).toFixed(2)}/key${c.failed ? `, ${c.failed} failed` : ''})`);
  return `${total} commands, ${(total / perKey).toFixed(2)} per lock key: ${each.join(', ')}`;
}

export interface SlowEntry {
  micros: number;
  args: string[];
  client: string;
}

/** Every command run during `work`, with its duration as the server measured it. */
export async function slowlogOf(admin: Redis, work: () => Promise<unknown>): Promise<SlowEntry[]> {
  await admin.config('SET', 'slowlog-max-len', '2000000');
  await admin.config('SET', 'slowlog-log-slower-than', '0');
  await admin.slowlog('RESET');
  await work();
  await admin.config('SET', 'slowlog-log-slower-than', '10000');
  const entries = (await admin.slowlog('GET', '-1')) as [number, number, number, string[], string, string][];
  return entries.map(([, , micros, args, , client]) => ({ micros, args, client })).filter((e) => !MEASURING.test((e.args[0] ?? '').toLowerCase()));
}

export const longest = (entries: SlowEntry[]): SlowEntry => entries.reduce((x, y) => (y.micros > x.micros ? y : x));

export function percentileMicros(entries: SlowEntry[], p: number): number {
  const sorted = entries.map((e) => e.micros).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
