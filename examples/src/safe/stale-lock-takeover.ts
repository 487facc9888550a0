// The correct counterpart of jobs/stale-lock-sweeper.ts (ioredis): the lock is taken, or a stale one
// replaced, in one Lua script, so the expiry is judged and the lock replaced without anyone in between.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_KEY = 'lock:jobs:import';
const LOCK_TTL_MS = 60_000;
// Takes the lock when it is free or its "<expires-at>:<token>" value has expired; returns 1 if taken.
const TAKE_OR_TAKE_OVER = `
local current = redis.call("get", KEYS[1])
if current and tonumber(string.match(current, "^(%d+):")) >= tonumber(ARGV[2]) then
  return 0
end
redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[3])
return 1`;

/** The token of the lock taken, or undefined when a live import holds it. */
export async function lockImportSafely(redis: Redis): Promise<string | undefined> {
  const token = randomUUID();
  const now = Date.now();
  const taken = await redis.eval(TAKE_OR_TAKE_OVER, 1, LOCK_KEY, `${now + LOCK_TTL_MS}:${token}`, String(now), String(LOCK_TTL_MS));
  return taken === 1 ? token : undefined;
}
