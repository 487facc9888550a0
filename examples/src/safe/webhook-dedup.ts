// Not a lock: an idempotency marker. SET NX EX records that a webhook delivery was seen; it is
// never released, it simply expires after a day, so any value will do.
import type { Redis } from 'ioredis';

export async function firstDelivery(redis: Redis, deliveryId: string): Promise<boolean> {
  const seen = await redis.set(`webhook:seen:${deliveryId}`, '1', 'EX', 86_400, 'NX');
  return seen === 'OK';
}
