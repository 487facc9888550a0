// Renders a product's thumbnails once, however many workers pick up the upload event. Workers that
// find the lock taken retry every 100 ms exactly: after a burst of uploads they all wake together
// and hit Redis in the same millisecond, again and again.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK_TTL_MS = 30_000;
const ATTEMPTS = 50;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export async function renderThumbnails(redis: Redis, productId: string, render: (id: string) => Promise<void>): Promise<boolean> {
  const lockKey = `lock:thumbnails:${productId}`;
  const token = randomUUID();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX')) {
      try {
        await render(productId);
        return true;
      } finally {
        await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
      }
    }
    await sleep(100);
  }
  return false;
}
