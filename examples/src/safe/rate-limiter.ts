// Not a lock: a fixed-window rate limiter. INCR then EXPIRE is the usual pattern here; if the
// EXPIRE is lost the counter only lives longer, nobody waits on it.
import type { Redis } from 'ioredis';

export async function allowRequest(redis: Redis, apiKey: string, limitPerMinute: number): Promise<boolean> {
  const window = Math.floor(Date.now() / 60_000);
  const counterKey = `ratelimit:${apiKey}:${window}`;
  const count = await redis.incr(counterKey);
  if (count === 1) await redis.expire(counterKey, 60);
  return count <= limitPerMinute;
}
