// One label printer per warehouse, shared by the shipping workers. The "lock" is a SET with a TTL but
// no NX: it always replies OK, so two workers print on the same printer at once, each sure it holds it.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const LOCK_TTL_MS = 5_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export interface Printer {
  print(warehouse: string, label: string): Promise<void>;
}

/** Prints the label; false when another worker is using the printer. */
export async function printLabel(redis: Redis, printer: Printer, warehouse: string, label: string): Promise<boolean> {
  const lockKey = `lock:printer:${warehouse}`;
  const token = randomUUID();
  if (!(await redis.set(lockKey, token, 'PX', LOCK_TTL_MS))) return false;
  try {
    await printer.print(warehouse, label);
    return true;
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
  }
}
