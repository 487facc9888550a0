// The correct counterpart of cart/checkout-lock.ts (ioredis): a Redis error while locking is an error
// the caller sees (no lock means no checkout), and the lock is acquired and tested before the try, so
// the finally only ever releases a lock this call holds, with a compare-and-delete.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Checkout } from '../cart/checkout-lock';

const LOCK_TTL_MS = 10_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export class CartLockUnavailableError extends Error {}

/** Places the order of a cart; 'busy' when another checkout of it is running. */
export async function checkOutSafely(redis: Redis, checkout: Checkout, cartId: string): Promise<string> {
  const lockKey = `lock:cart:${cartId}`;
  const token = randomUUID();
  let ok: string | null;
  try {
    ok = await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX');
  } catch (err) {
    throw new CartLockUnavailableError(`cannot lock cart ${cartId}: Redis is unavailable`, { cause: err });
  }
  if (!ok) return 'busy';
  try {
    return await checkout.place(cartId);
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
