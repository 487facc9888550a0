// Every rule's case table by rule id (typecheck.test.ts type-checks them all in one program).
import type { RuleCases } from '../harness';
import { atomicAcquireCases } from './atomic-acquire';
import { boundedAcquireRetryCases } from './bounded-acquire-retry';
import { checkAcquireResultCases } from './check-acquire-result';
import { handleLockLostCases } from './handle-lock-lost';
import { ownerCheckedExtendCases } from './owner-checked-extend';
import { ownerCheckedReleaseCases } from './owner-checked-release';
import { releaseOnAllPathsCases } from './release-on-all-paths';
import { requireTtlCases } from './require-ttl';
import { respectAbortSignalCases } from './respect-abort-signal';
import { uniqueTokenCases } from './unique-token';
import { useExtendedLockCases } from './use-extended-lock';

export const tables: Record<string, RuleCases> = {
  'atomic-acquire': atomicAcquireCases,
  'bounded-acquire-retry': boundedAcquireRetryCases,
  'check-acquire-result': checkAcquireResultCases,
  'handle-lock-lost': handleLockLostCases,
  'owner-checked-extend': ownerCheckedExtendCases,
  'owner-checked-release': ownerCheckedReleaseCases,
  'release-on-all-paths': releaseOnAllPathsCases,
  'require-ttl': requireTtlCases,
  'respect-abort-signal': respectAbortSignalCases,
  'unique-token': uniqueTokenCases,
  'use-extended-lock': useExtendedLockCases,
};
