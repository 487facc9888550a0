// Reserves stock for an order with node-redis. Every instance of the inventory service writes the
// same value into the lock, the reserve path never looks at whether SET NX succeeded, the restock
// path takes a lock with no expiry, and both release with GET, compare, then DEL.
import type { NodeRedisClient } from '../clients';

const LOCK_OWNER = 'inventory-service';
const LOCK_TTL_MS = 5_000;

export class OutOfStockError extends Error {}

export async function reserveStock(redis: NodeRedisClient, orderId: string, sku: string, quantity: number): Promise<void> {
  const lockKey = `lock:stock:${sku}`;
  await redis.set(lockKey, LOCK_OWNER, { condition: 'NX', expiration: { type: 'PX', value: LOCK_TTL_MS } });
  try {
    const available = Number((await redis.get(`stock:${sku}`)) ?? '0');
    if (available < quantity) throw new OutOfStockError(`${sku}: ${available} left, ${quantity} wanted`);
    await redis.set(`stock:${sku}`, String(available - quantity));
    await redis.hSet(`reservation:${orderId}`, sku, String(quantity));
  } finally {
    if ((await redis.get(lockKey)) === LOCK_OWNER) {
      await redis.del(lockKey);
    }
  }
}

export async function restock(redis: NodeRedisClient, sku: string, quantity: number): Promise<void> {
  const lockKey = `lock:stock:${sku}`;
  const acquired = await redis.set(lockKey, LOCK_OWNER, { NX: true });
  if (!acquired) throw new Error(`stock of ${sku} is being changed by another process`);
  try {
    await redis.incrBy(`stock:${sku}`, quantity);
  } finally {
    const holder = await redis.get(lockKey);
    if (holder === LOCK_OWNER) await redis.del(lockKey);
  }
}
