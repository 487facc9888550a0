// A lock with a fencing token, acquired atomically in one Lua script registered with defineCommand:
// SET NX PX and INCR of the fence counter happen together. The ledger rejects writes that carry
// an older fence than it has seen, so even a holder paused past its TTL cannot corrupt it.
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const ACQUIRE_FENCED = `
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
  return redis.call("incr", KEYS[2])
end
return 0`;
const RELEASE = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

export interface Ledger {
  /** Applies the entry only if `fence` is greater than every fence it has accepted for the account. */
  append(accountId: string, entry: string, fence: number): Promise<void>;
}

export function createFencedRedis(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: true });
  redis.defineCommand('acquireFencedLock', { numberOfKeys: 2, lua: ACQUIRE_FENCED });
  redis.defineCommand('releaseLock', { numberOfKeys: 1, lua: RELEASE });
  return redis;
}

type FencedCommands = {
  acquireFencedLock(lockKey: string, fenceKey: string, token: string, ttlMs: number): Promise<number>;
  releaseLock(lockKey: string, token: string): Promise<number>;
};

export async function appendToLedger(redis: Redis, ledger: Ledger, accountId: string, entry: string): Promise<boolean> {
  const commands = redis as unknown as FencedCommands;
  const lockKey = `lock:ledger:${accountId}`;
  const token = randomUUID();
  const fence = await commands.acquireFencedLock(lockKey, `fence:ledger:${accountId}`, token, 10_000);
  if (fence === 0) return false;
  try {
    await ledger.append(accountId, entry, fence);
    return true;
  } finally {
    await commands.releaseLock(lockKey, token);
  }
}
