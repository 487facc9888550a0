// The correct counterpart of inventory/reserve.ts (node-redis v5 options): a random token per
// acquisition, the SET NX reply tested before touching stock, and an atomic compare-and-delete.
import { randomUUID } from 'node:crypto';
import type { NodeRedisClient } from '../clients';
import { OutOfStockError } from '../inventory/reserve';

const LOCK_TTL_MS = 5_000;
const RELEASE_SCRIPT = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

export class StockBusyError extends Error {}

export async function reserveStockSafely(redis: NodeRedisClient, orderId: string, sku: string, quantity: number): Promise<void> {
  const lockKey = `lock:stock:${sku}`;
  const token = randomUUID();
  const acquired = await redis.set(lockKey, token, { condition: 'NX', expiration: { type: 'PX', value: LOCK_TTL_MS } });
  if (acquired === null) throw new StockBusyError(`stock of ${sku} is being changed by another process`);
  try {
    const available = Number((await redis.get(`stock:${sku}`)) ?? '0');
    if (available < quantity) throw new OutOfStockError(`${sku}: ${available} left, ${quantity} wanted`);
    await redis.set(`stock:${sku}`, String(available - quantity));
    await redis.hSet(`reservation:${orderId}`, sku, String(quantity));
  } finally {
    await redis.eval(RELEASE_SCRIPT, { keys: [lockKey], arguments: [token] });
  }
}
