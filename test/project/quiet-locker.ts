// A locker singleton around redlock whose lock() logs any failure and answers null: it never throws.
export const QUIET_LOCKER = `const Redis = require('ioredis');
const Redlock = require('redlock');
class Locker {
  constructor() {
    this.redlock = new Redlock([new Redis()], { retryCount: 5, retryDelay: 200, retryJitter: 100 });
  }
  async lock(resource, ttl = 20000) {
    try {
      return await this.redlock.lock(resource, ttl);
    } catch (err) {
      console.error('could not lock', resource, err);
    }
    return null;
  }
  async unlock(lock, resource) {
    try {
      if (lock) await lock.unlock();
    } catch (err) {
      console.error('could not unlock', resource, err);
    }
  }
}
module.exports = new Locker();
`;

/** A project on ioredis and redlock with QUIET_LOCKER as `lib/locker.js`, beside `files`. */
export function withQuietLocker(files: Record<string, string>): Record<string, string> {
  return {
    'package.json': JSON.stringify({ name: 'app', dependencies: { ioredis: '^5.0.0', redlock: '^4.2.0' } }),
    'lib/locker.js': QUIET_LOCKER,
    ...files,
  };
}
