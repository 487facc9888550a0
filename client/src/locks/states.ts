// Lock states from PTTL and the previous refresh.
//   no-expiry  PTTL -1: the lock never frees itself (a problem; see the require-ttl rule).
//   renewed    same holder, and its TTL went up since the previous refresh: a watchdog is alive.
//   expiring   at most EXPIRING_FRACTION of the longest TTL seen for this holder is left, or less than
//              EXPIRING_FLOOR_MS (it will likely be gone before the next refresh). Redis does not keep a
//              key's original TTL, so "the longest seen" is the best reference a reader has.
//   held       counting down normally.
//   gone       it was in the previous listing and is not there any more (only said of complete listings).
import type { LockRow, LockState } from './types';

export const EXPIRING_FRACTION = 0.2;
export const EXPIRING_FLOOR_MS = 2_000;

/** Identity of a holder across refreshes: the token when there is one, else the raw value. */
const identity = (row: Pick<LockRow, 'holder' | 'raw'>) => row.holder.token ?? row.raw;

export function lockState(pttl: number, peakPttl: number, renewed: boolean): LockState {
  if (pttl === -2) return 'gone';
  if (pttl === -1) return 'no-expiry';
  if (renewed) return 'renewed';
  if (pttl <= EXPIRING_FLOOR_MS || pttl <= peakPttl * EXPIRING_FRACTION) return 'expiring';
  return 'held';
}

/** Sets state and peakPttl on freshly read rows, comparing with the previous listing of the same key. */
export function applyStates(rows: LockRow[], previous: readonly LockRow[] | undefined): void {
  const before = new Map((previous ?? []).map((r) => [r.key, r]));
  for (const row of rows) {
    const prev = before.get(row.key);
    const sameHolder = prev !== undefined && prev.state !== 'gone' && identity(prev) === identity(row);
    const renewed = sameHolder && prev.pttl >= 0 && row.pttl > prev.pttl;
    row.peakPttl = Math.max(row.pttl, sameHolder ? (prev.peakPttl ?? prev.pttl) : row.pttl);
    row.state = lockState(row.pttl, row.peakPttl, renewed);
  }
}

/** Rows of the previous listing whose key is no longer there, marked gone (once: gone rows are not carried on). */
export function goneRows(rows: readonly LockRow[], previous: readonly LockRow[] | undefined): LockRow[] {
  const present = new Set(rows.map((r) => r.key));
  return (previous ?? [])
    .filter((p) => p.state !== 'gone' && !present.has(p.key))
    .map((p) => ({ ...p, pttl: -2, state: 'gone' as const }));
}
