// The rule registry, sorted by id. Adding a rule: one file here, its doc, its test, a README row.
import { atomicAcquire } from './atomic-acquire';
import { atomicTakeover } from './atomic-takeover';
import { awaitLockedWork } from './await-locked-work';
import { backoffBetweenRetries } from './backoff-between-retries';
import { boundedAcquireRetry } from './bounded-acquire-retry';
import { checkAcquireResult } from './check-acquire-result';
import { decideRedisFailure } from './decide-redis-failure';
import { exclusiveAcquire } from './exclusive-acquire';
import { handleLockLost } from './handle-lock-lost';
import { ownerCheckedExtend } from './owner-checked-extend';
import { ownerCheckedRelease } from './owner-checked-release';
import { releaseOnAllPaths } from './release-on-all-paths';
import { releaseOnlyAcquired } from './release-only-acquired';
import { requireTtl } from './require-ttl';
import { respectAbortSignal } from './respect-abort-signal';
import { rollbackPartialAcquire } from './rollback-partial-acquire';
import type { Rule } from './rule';
import { stopOnLockLost } from './stop-on-lock-lost';
import { uniqueToken } from './unique-token';
import { useExtendedLock } from './use-extended-lock';

export const allRules: readonly Rule[] = [
  atomicAcquire,
  atomicTakeover,
  awaitLockedWork,
  backoffBetweenRetries,
  boundedAcquireRetry,
  checkAcquireResult,
  decideRedisFailure,
  exclusiveAcquire,
  handleLockLost,
  ownerCheckedExtend,
  ownerCheckedRelease,
  releaseOnAllPaths,
  releaseOnlyAcquired,
  requireTtl,
  respectAbortSignal,
  rollbackPartialAcquire,
  stopOnLockLost,
  uniqueToken,
  useExtendedLock,
];

export const ruleIds: readonly string[] = allRules.map((r) => r.id);
