// A cheap text test that decides whether a file can hold lock code at all, so that only those files
// are parsed. It must never say no to a file that a rule could report on. Every rule needs one of:
// an NX acquire, a lock library or withLock, or a delete/expire/script call on a key or in a function
// named like a lock (the same LOCK_NAME the engine uses), or a configured helper.
import type { HelperNames } from '../config';
import { LOCK_NAME } from './lock-name';

const ACQUIRE_OR_LIBRARY = /nx\b|redlock|withLock|tryAcquire|Mutex|Semaphore/i;
const DELETE_OR_EXPIRE = /\b(?:del|unlink|getdel|delex|expire|pexpire|expireat|pexpireat|eval|evalsha|xx|ifeq)\b/i;

export function mightHoldLockCode(text: string, helpers: HelperNames): boolean {
  if (ACQUIRE_OR_LIBRARY.test(text)) return true;
  if (LOCK_NAME.test(text) && DELETE_OR_EXPIRE.test(text)) return true;
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  return names.some((n) => text.includes(n));
}
