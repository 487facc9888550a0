// Sends the month's invoices once, whichever instance's scheduler fires first. The lock is taken and
// released with care, but the sends start in forEach(async ...): nothing awaits them, so the finally
// releases the lock at once, and an instance that fires a moment later sends every invoice again.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_TTL_MS = 60_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export async function sendMonthlyInvoices(redis: Redis, customers: string[], send: (customer: string) => Promise<void>): Promise<boolean> {
  const lockKey = 'lock:invoices:monthly';
  const token = randomUUID();
  if ((await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') return false;
  try {
    customers.forEach(async (customer) => {
      await send(customer);
    });
    return true;
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
