// The correct counterpart of inventory/bulk-reserve.ts (node-redis): when one SKU is locked by another
// order, the SKUs this call already locked are released before it gives up.
import { randomUUID } from 'node:crypto';
import type { NodeRedisClient } from '../clients';

const LOCK_TTL_MS = 10_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

async function unlockSkus(client: NodeRedisClient, skus: string[], token: string): Promise<void> {
  for (const sku of skus) await client.eval(RELEASE_SCRIPT, { keys: [`lock:stock:${sku}`], arguments: [token] });
}

export async function reserveLinesSafely(client: NodeRedisClient, skus: string[], reserve: (sku: string) => Promise<void>): Promise<boolean> {
  const token = randomUUID();
  const locked: string[] = [];
  for (const sku of skus) {
    const ok = await client.set(`lock:stock:${sku}`, token, { NX: true, PX: LOCK_TTL_MS });
    if (!ok) {
      await unlockSkus(client, locked, token);
      return false;
    }
    locked.push(sku);
  }
  try {
    for (const sku of skus) await reserve(sku);
    return true;
  } finally {
    await unlockSkus(client, locked, token);
  }
}
