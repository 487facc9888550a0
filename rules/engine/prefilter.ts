// A cheap text test that decides whether a file can hold lock code at all, so that only those files
// are parsed. It must never say no to a file that a rule could report on: every rule needs an NX
// acquire, a lock library, or a key or function named like a lock (the same LOCK_NAME the engine uses).
import type { HelperNames } from '../config';
import { LOCK_NAME } from './keys';

const LOCK_CODE = /nx\b|redlock|withLock|tryAcquire/i;

export function mightHoldLockCode(text: string, helpers: HelperNames): boolean {
  if (LOCK_CODE.test(text) || LOCK_NAME.test(text)) return true;
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  return names.some((n) => text.includes(n));
}
