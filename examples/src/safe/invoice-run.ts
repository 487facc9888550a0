// The correct counterpart of billing/invoice-run.ts (ioredis): every send is awaited before the
// finally releases the lock, so an instance that fires while the invoices go out finds it held.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_TTL_MS = 60_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export async function sendMonthlyInvoicesSafely(redis: Redis, customers: string[], send: (customer: string) => Promise<void>): Promise<boolean> {
  const lockKey = 'lock:invoices:monthly';
  const token = randomUUID();
  if ((await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') return false;
  try {
    await Promise.all(customers.map((customer) => send(customer)));
    return true;
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
