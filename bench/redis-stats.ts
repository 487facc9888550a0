// What a piece of work cost the Redis server, read from the server itself: INFO commandstats (how many
// commands of each type) and SLOWLOG with slowlog-log-slower-than 0 (how long each single command ran).
import type Redis from 'ioredis';

export interface CommandCount {
  command: string;
  calls: number;
  failed: number;
}

/** Subcommand stats ("config|resetstat", "info") belong to the measuring client, not the measured work. */
const MEASURING = /^(config|info|slowlog)/;

/** Commands per type run during `work`, from INFO commandstats (reset just before). */
export async function commandCounts(admin: Redis, work: () => Promise<unknown>): Promise<CommandCount[]> {
  await admin.config('RESETSTAT');
  await work();
  const info = await admin.info('commandstats');
  const counts: CommandCount[] = [];
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),.*?failed_calls=(\d+)/gm)) {
    if (!MEASURING.test(m[1]!)) counts.push({ command: m[1]!.toUpperCase(), calls: Number(m[2]), failed: Number(m[3]) });
  }
  return counts.sort((a, b) => b.calls - a.calls);
}

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
