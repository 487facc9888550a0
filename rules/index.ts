// The rule registry, sorted by id. Adding a rule: one file here, its doc, its test, a README row.
import { atomicAcquire } from './atomic-acquire';
import { boundedAcquireRetry } from './bounded-acquire-retry';
import { checkAcquireResult } from './check-acquire-result';
import { handleLockLost } from './handle-lock-lost';
import { ownerCheckedExtend } from './owner-checked-extend';
import { ownerCheckedRelease } from './owner-checked-release';
import { releaseOnAllPaths } from './release-on-all-paths';
import { requireTtl } from './require-ttl';
import { respectAbortSignal } from './respect-abort-signal';
import type { Rule } from './rule';
import { uniqueToken } from './unique-token';
import { useExtendedLock } from './use-extended-lock';

export const allRules: readonly Rule[] = [
  atomicAcquire,
  boundedAcquireRetry,
  checkAcquireResult,
  handleLockLost,
  ownerCheckedExtend,
  ownerCheckedRelease,
  releaseOnAllPaths,
  requireTtl,
  respectAbortSignal,
  uniqueToken,
  useExtendedLock,
];

export const ruleIds: readonly string[] = allRules.map((r) => r.id);
