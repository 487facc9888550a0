// Callback-style lock helpers of a project (Node's `(error, lock)`): a helper over redlock's callback API
// fails when the lock is busy, so `if (error) return callback(error)` is its not-acquired path, and a
// recursion after it runs only once the lock was taken (and released): another batch, not a retry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeProject, findingList } from './harness';

const LOCKING = `import Redlock from 'redlock';
import Redis from 'ioredis';
const locker = new Redlock([new Redis()], { retryCount: 0 });
export const acquire = function (key, seconds, callback) {
  locker.lock(key, seconds * 1000, (error, lock) => {
    if (error) return callback(error);
    return callback(null, lock);
  });
};
export const release = function (lock, callback) {
  lock.unlock((error) => callback(error));
};
`;

const drain = (afterRelease: string) => `import * as Locking from './locking.js';
export const drainQueue = function (queue, done) {
  Locking.acquire(\`drain:\${queue.name}\`, 30, (error, lock) => {
    if (error) return done(error);
    queue.takeBatch((batchError, finished) => {
      Locking.release(lock, (releaseError) => {
        if (batchError || releaseError) return done(batchError || releaseError);
        ${afterRelease}
      });
    });
  });
};
`;

test('a recursion for the next batch after the lock was taken and released is no retry of the acquire', () => {
  const findings = analyzeProject({ 'lib/locking.js': LOCKING, 'lib/drain.js': drain('if (finished) return done();\n        return drainQueue(queue, done);') });
  assert.deepEqual(findingList(findings), [], findings.map((f) => `${f.rule}: ${f.message}`).join('\n'));
});
