// Text for a TTL, shared by the CLI table and the view's countdown.

/** "no expiry" for -1, "gone" for -2 (or anything counted down past zero), else ms / s / m s / h m. */
export function formatTtl(pttl: number): string {
  if (pttl === -1) return 'no expiry';
  if (pttl < 0 || pttl === -2) return 'gone';
  if (pttl < 1_000) return `${Math.round(pttl)} ms`;
  if (pttl < 60_000) return `${(pttl / 1_000).toFixed(1)} s`;
  const s = Math.floor(pttl / 1_000);
  if (s < 3_600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3_600)}h ${String(Math.floor((s % 3_600) / 60)).padStart(2, '0')}m`;
}
