// Reserves every line of an order at once by locking each SKU in turn (node-redis). When one SKU is
// locked by another order, it gives up and returns, leaving the SKUs it already locked held until
// their TTL: other orders that need them wait ten seconds for nothing.
import { randomUUID } from 'node:crypto';
import type { NodeRedisClient } from '../clients';

const LOCK_TTL_MS = 10_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export async function reserveLines(client: NodeRedisClient, skus: string[], reserve: (sku: string) => Promise<void>): Promise<boolean> {
  const token = randomUUID();
  for (const sku of skus) {
    const ok = await client.set(`lock:stock:${sku}`, token, { NX: true, PX: LOCK_TTL_MS });
    if (!ok) return false;
  }
  try {
    for (const sku of skus) await reserve(sku);
    return true;
  } finally {
    for (const sku of skus) await client.eval(RELEASE_SCRIPT, { keys: [`lock:stock:${sku}`], arguments: [token] });
  }
}
