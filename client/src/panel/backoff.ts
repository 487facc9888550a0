// Reconnect delays: exponential from 1 s, capped at 30 s, with jitter so several VS Code windows
// pointed at the same Redis do not reconnect in lockstep after an outage.

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;

/** Delay before attempt number `attempt` (1 = first retry); `random` in [0, 1) picks the jitter. */
export function backoffDelay(attempt: number, random: number = Math.random()): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  // Between 75% and 100% of the ceiling: jittered, but still growing with each failure.
  return Math.round(ceiling * (0.75 + 0.25 * random));
}
