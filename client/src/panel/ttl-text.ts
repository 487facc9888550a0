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

/** The TTL part of a lock's description: "12.0 s", "NO EXPIRY", "expired" (counted to zero, not re-read yet), "gone". */
export function ttlText(pttl: number, readAt: number, now: number): string {
  if (pttl === -1) return 'NO EXPIRY';
  const left = remainingMs(pttl, readAt, now);
  if (left === undefined) return 'gone';
  return left === 0 ? 'expired' : formatTtl(left);
}
