// A cheap text test that decides whether a file can hold lock code at all, so that only those files
// are parsed. It must never say no to a file that a rule could report on.
import type { HelperNames } from '../config';

// NX acquires, lock-ish names (keys, variables, helpers), the lock libraries and their calls.
const LOCK_TEXT = /nx\b|lock|mutex|semaphore|withLock|expire/i;

export function mightHoldLockCode(text: string, helpers: HelperNames): boolean {
  if (LOCK_TEXT.test(text)) return true;
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  return names.some((n) => text.includes(n));
}
