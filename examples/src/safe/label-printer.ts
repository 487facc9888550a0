// The correct counterpart of shipping/label-printer.ts (ioredis): SET NX PX, which replies null while
// another worker holds the printer.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Printer } from '../shipping/label-printer';

const LOCK_TTL_MS = 5_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

/** Prints the label; false when another worker is using the printer. */
export async function printLabelSafely(redis: Redis, printer: Printer, warehouse: string, label: string): Promise<boolean> {
  const lockKey = `lock:printer:${warehouse}`;
  const token = randomUUID();
  if (!(await redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX'))) return false;
  try {
    await printer.print(warehouse, label);
    return true;
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
