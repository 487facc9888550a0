// The correct counterpart of billing/renewal-watchdog.ts: a random token, a watchdog that extends
// only while the lock still holds that token (and stops the run when it does not), and a
// compare-and-delete release.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Renewals } from '../billing/renewal-watchdog';

const LOCK_KEY = 'lock:billing:renewals';
const LOCK_TTL_MS = 15_000;
const EXTEND_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("pexpire", KEYS[1], ARGV[2])
else
  return 0
end`;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export class SafeRenewalRun {
  constructor(private readonly redis: Redis, private readonly renewals: Renewals) {}

  async run(): Promise<boolean> {
    const token = randomUUID();
    const acquired = await this.redis.set(LOCK_KEY, token, 'PX', LOCK_TTL_MS, 'NX');
    if (!acquired) return false;
    let lost = false;
    const watchdog = setInterval(() => {
      this.redis
        .eval(EXTEND_SCRIPT, 1, LOCK_KEY, token, LOCK_TTL_MS)
        .then((extended) => {
          if (extended !== 1) lost = true;
        })
        .catch(() => {
          lost = true;
        });
    }, LOCK_TTL_MS / 3);
    try {
      for (const id of await this.renewals.due()) {
        if (lost) throw new Error('billing lock lost: stopping the renewal run');
        await this.renewals.renew(id);
      }
      return true;
    } finally {
      clearInterval(watchdog);
      await this.redis.eval(RELEASE_SCRIPT, 1, LOCK_KEY, token);
    }
  }
}
