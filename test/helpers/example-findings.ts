// What each mistaken file of examples/src must trigger, as examples/README.md describes it: shared by the
// analyzer's test of the examples (test/examples.test.ts) and the CLI's (test/cli/check-examples.test.ts).

/**
 * What each mistaken file must trigger, as examples/README.md describes it, and how many times: a lost
 * second finding of a rule (one constant token used by two functions) must fail here too.
 */
export const EXPECTED: Record<string, Record<string, number>> = {
  'billing/invoice-run.ts': { 'await-locked-work': 1 },
  'billing/renewal-watchdog.ts': { 'owner-checked-extend': 1, 'stop-on-lock-lost': 1, 'unique-token': 1 },
  'cart/checkout-lock.ts': { 'decide-redis-failure': 1, 'owner-checked-release': 1, 'release-only-acquired': 1 },
  'inventory/bulk-reserve.ts': { 'rollback-partial-acquire': 1 },
  'inventory/reserve.ts': { 'check-acquire-result': 1, 'owner-checked-release': 2, 'require-ttl': 1, 'unique-token': 2 },
  'jobs/nightly-report.ts': { 'bounded-acquire-retry': 1, 'respect-abort-signal': 1, 'use-extended-lock': 1 },
  'jobs/stale-lock-sweeper.ts': { 'atomic-takeover': 1 },
  'orders/charge-service.ts': { 'atomic-acquire': 1, 'owner-checked-release': 2, 'release-on-all-paths': 1, 'unique-token': 1 },
  'shipping/label-printer.ts': { 'exclusive-acquire': 1 },
  'workers/email-worker.ts': { 'check-acquire-result': 1, 'handle-lock-lost': 1 },
  'workers/thumbnail-worker.ts': { 'backoff-between-retries': 1 },
};
