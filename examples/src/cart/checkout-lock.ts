// Serialises checkouts of one cart. Two mistakes written the way they often are: when Redis cannot be
// reached the lock helper hands back a release that does nothing, so every instance checks the cart
// out at once during an outage; and the `finally` deletes the lock even when this call never got it,
// removing the lock of the checkout that is running.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_TTL_MS = 10_000;

export interface CartLock {
  release(): Promise<void>;
}

export interface Checkout {
  place(cartId: string): Promise<string>;
}

/** Takes the cart's lock; undefined when another checkout holds it. */
export async function lockCart(redis: Redis, cartId: string): Promise<CartLock | undefined> {
  const lockKey = `lock:cart:${cartId}`;
  const token = randomUUID();
  try {
    const ok = await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX');
    if (!ok) return undefined;
  } catch (err) {
    console.warn('redis unavailable, checking out without a lock', err);
    return { release: async () => {} };
  }
  return { release: async () => void (await redis.eval(RELEASE_SCRIPT, 1, lockKey, token)) };
}

/** Places the order of a cart; 'busy' when another checkout of it is running. */
export async function checkOut(redis: Redis, checkout: Checkout, cartId: string): Promise<string> {
  const lockKey = `lock:cart:${cartId}`;
  try {
    const ok = await redis.set(lockKey, randomUUID(), 'PX', LOCK_TTL_MS, 'NX');
    if (!ok) return 'busy';
    return await checkout.place(cartId);
  } finally {
    await redis.del(lockKey);
  }
}

const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;
