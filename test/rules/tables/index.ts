// Every rule's case table by rule id (typecheck.test.ts type-checks them all in one program).
import type { RuleCases } from '../harness';
import { atomicAcquireCases } from './atomic-acquire';
import { atomicTakeoverCases } from './atomic-takeover';
import { awaitLockedWorkCases } from './await-locked-work';
import { backoffBetweenRetriesCases } from './backoff-between-retries';
import { boundedAcquireRetryCases } from './bounded-acquire-retry';
import { checkAcquireResultCases } from './check-acquire-result';
import { decideRedisFailureCases } from './decide-redis-failure';
import { exclusiveAcquireCases } from './exclusive-acquire';
import { handleLockLostCases } from './handle-lock-lost';
import { ownerCheckedExtendCases } from './owner-checked-extend';
import { ownerCheckedReleaseCases } from './owner-checked-release';
import { releaseOnAllPathsCases } from './release-on-all-paths';
import { releaseOnlyAcquiredCases } from './release-only-acquired';
import { requireTtlCases } from './require-ttl';
import { respectAbortSignalCases } from './respect-abort-signal';
import { rollbackPartialAcquireCases } from './rollback-partial-acquire';
import { stopOnLockLostCases } from './stop-on-lock-lost';
import { uniqueTokenCases } from './unique-token';
import { useExtendedLockCases } from './use-extended-lock';

export const tables: Record<string, RuleCases> = {
  'atomic-acquire': atomicAcquireCases,
  'atomic-takeover': atomicTakeoverCases,
  'await-locked-work': awaitLockedWorkCases,
  'backoff-between-retries': backoffBetweenRetriesCases,
  'bounded-acquire-retry': boundedAcquireRetryCases,
  'check-acquire-result': checkAcquireResultCases,
  'decide-redis-failure': decideRedisFailureCases,
  'exclusive-acquire': exclusiveAcquireCases,
  'handle-lock-lost': handleLockLostCases,
  'owner-checked-extend': ownerCheckedExtendCases,
  'owner-checked-release': ownerCheckedReleaseCases,
  'release-on-all-paths': releaseOnAllPathsCases,
  'release-only-acquired': releaseOnlyAcquiredCases,
  'require-ttl': requireTtlCases,
  'respect-abort-signal': respectAbortSignalCases,
  'rollback-partial-acquire': rollbackPartialAcquireCases,
  'stop-on-lock-lost': stopOnLockLostCases,
  'unique-token': uniqueTokenCases,
  'use-extended-lock': useExtendedLockCases,
};
