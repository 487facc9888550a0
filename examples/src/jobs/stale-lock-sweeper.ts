// The import job stores "<expires-at>:<token>" in its lock and, when it finds the lock taken, breaks it
// if the expiry is in the past: GET, decide in the client, then DEL. Two workers that find the same
// stale lock both delete it, and the second deletes the lock the first has just taken.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_KEY = 'lock:jobs:import';
const LOCK_TTL_MS = 60_000;

/** Deletes the import lock when its holder's expiry has passed. */
export async function breakStaleImportLock(redis: Redis): Promise<void> {
  const current = await redis.get(LOCK_KEY);
  if (current !== null && Number(current.split(':')[0]) < Date.now()) {
    await redis.del(LOCK_KEY);
  }
}

/** The token of the lock taken, or undefined when a live import holds it. */
export async function lockImport(redis: Redis): Promise<string | undefined> {
  const token = randomUUID();
  const value = () => `${Date.now() + LOCK_TTL_MS}:${token}`;
  if (await redis.set(LOCK_KEY, value(), 'PX', LOCK_TTL_MS, 'NX')) return token;
  await breakStaleImportLock(redis);
  return (await redis.set(LOCK_KEY, value(), 'PX', LOCK_TTL_MS, 'NX')) ? token : undefined;
}
