// Runs subscription renewals while holding a lock for the whole billing cycle, kept alive by a
// watchdog timer. The watchdog renews with a plain PEXPIRE, so after a pause long enough for the
// lock to expire and be taken by another instance, it keeps that instance's lock alive instead.
// The owner token is host:pid, which every container running as pid 1 on one host shares.
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';

const LOCK_KEY = 'lock:billing:renewals';
const LOCK_TTL_MS = 15_000;
const OWNER = `${hostname()}:${process.pid}`;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export interface Renewals {
  due(): Promise<string[]>;
  renew(subscriptionId: string): Promise<void>;
}

export class RenewalRun {
  constructor(private readonly redis: Redis, private readonly renewals: Renewals) {}

  /** Renews every due subscription; false when another instance is already running the cycle. */
  async run(): Promise<boolean> {
    const acquired = await this.redis.set(LOCK_KEY, OWNER, 'PX', LOCK_TTL_MS, 'NX');
    if (!acquired) return false;
    const watchdog = setInterval(() => {
      this.redis.pexpire(LOCK_KEY, LOCK_TTL_MS).catch((err) => console.error('lock renewal failed', err));
    }, LOCK_TTL_MS / 3);
    try {
      for (const id of await this.renewals.due()) await this.renewals.renew(id);
      return true;
    } finally {
      clearInterval(watchdog);
      await this.redis.eval(RELEASE_SCRIPT, 1, LOCK_KEY, OWNER);
    }
  }
}
