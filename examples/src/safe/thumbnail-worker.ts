// The correct counterpart of workers/thumbnail-worker.ts (ioredis): the wait between attempts has a
// random part and grows, so workers that collided spread out instead of retrying in lockstep.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK_TTL_MS = 30_000;
const ATTEMPTS = 10;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export async function renderThumbnailsSafely(redis: Redis, productId: string, render: (id: string) => Promise<void>): Promise<boolean> {
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
    const backoffMs = Math.min(1000, 25 * 2 ** attempt);
    await sleep(backoffMs / 2 + Math.random() * backoffMs);
  }
  return false;
}
