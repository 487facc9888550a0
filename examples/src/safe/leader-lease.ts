// Not a held lock: a scheduler lease. The instance that wins SET NX EX runs this minute's cron
// tick; the lease is deliberately never released, it expires before the next tick.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const instanceId = randomUUID();

export async function runTickIfLeader(redis: Redis, tick: () => Promise<void>): Promise<boolean> {
  const minute = Math.floor(Date.now() / 60_000);
  const won = await redis.set(`scheduler:leader:${minute}`, instanceId, 'EX', 50, 'NX');
  if (won !== 'OK') return false;
  await tick();
  return true;
}
