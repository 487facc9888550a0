// TTL text that counts down locally between reads: remaining = PTTL at read time - time since read.
// The figures use the core's formatTtl so the view and the CLI table read the same.
import { formatTtl } from '../locks';

/** Milliseconds left now, or undefined for a key without expiry (PTTL -1) or gone (PTTL -2). */
export function remainingMs(pttl: number, readAt: number, now: number): number | undefined {
  if (pttl < 0) return undefined;
  return Math.max(0, pttl - (now - readAt));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Elapsed or waiting time in whole seconds ("<1s", "42s", "3m 05s", "2h 07m", "3d 04h"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return '<1s';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d ${pad(Math.floor((s % 86_400) / 3600))}h`;
}

/**
 * The TTL as a row shows it, in steps: tenths of a second in the last 10 s, 5 s steps up to a minute,
 * 10 s steps up to an hour, minutes beyond. Each change re-renders the row, and VS Code closes a row's
 * tooltip whenever it re-renders, so a row that changed every second could never show its tooltip. The
 * exact PTTL is in the tooltip.
 */
export function rowTtlText(pttl: number, readAt: number, now: number): string {
  const left = remainingMs(pttl, readAt, now);
  if (left === undefined || left === 0 || left < 10_000 || left >= 3_600_000) return ttlText(pttl, readAt, now);
  if (left < 60_000) return `${Math.floor(left / 5_000) * 5} s`;
  const s = Math.floor(left / 10_000) * 10;
  return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
}

/** The TTL part of a lock's description: "12.0 s", "NO EXPIRY", "expired" (counted to zero, not re-read yet), "gone". */
export function ttlText(pttl: number, readAt: number, now: number): string {
  if (pttl === -1) return 'NO EXPIRY';
  const left = remainingMs(pttl, readAt, now);
  if (left === undefined) return 'gone';
  return left === 0 ? 'expired' : formatTtl(left);
}

/** Local time of day, "12:03:41": when rows were read, history entries. */
export function clockTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** How long a holder has been seen, in whole minutes ("<1m", "12m", "2h 13m", "3d 04h"), so it changes at most once a minute. */
export function formatHeld(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 1) return '<1m';
  if (m < 60) return `${m}m`;
  if (m < 1440) return `${Math.floor(m / 60)}h ${pad(m % 60)}m`;
  return `${Math.floor(m / 1440)}d ${pad(Math.floor((m % 1440) / 60))}h`;
}
