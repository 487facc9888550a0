// Not a lock: cached profiles and sessions are deleted outright. No owner to check.
import type { Redis } from 'ioredis';

export async function invalidateProfile(redis: Redis, userId: string): Promise<void> {
  await redis.del(`cache:profile:${userId}`, `cache:profile-card:${userId}`);
}

export async function logout(redis: Redis, sessionId: string): Promise<void> {
  await redis.unlink(`session:${sessionId}`);
}
