// Lock modules written as one object of functions in CommonJS (`module.exports = LockManager = {...}`,
// functions added to an object later), callback style, with keys from a key schema's function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeProject, findingList } from './harness';

/** A callback-style lock module; `retry` is how getLock names the attempt it schedules again. */
const lockModule = (retry: 'assigned' | 'const') => `let Locks
const redis = require('redis')
const crypto = require('crypto')
const client = redis.createClient()
const schema = { blocking: ({ docId }) => \`blocking:\${docId}\` }

module.exports = Locks = {
  WAIT_STEP: 50,
  MAX_WAIT: 10000,

  tryLock(docId, callback) {
    const token = crypto.randomBytes(16).toString('hex')
    const key = schema.blocking({ docId })
    return client.set(key, token, 'EX', 30, 'NX', function (err, reply) {
      if (err != null) return callback(err)
      return reply === 'OK' ? callback(null, true, token) : callback(null, false)
    })
  },

  getLock(docId, callback) {
    ${retry === 'assigned' ? 'let attempt' : ''}
    const startedAt = Date.now()
    let wait = Locks.WAIT_STEP
    ${retry === 'assigned' ? 'return (attempt = function () {' : 'const attempt = () => {'}
      if (Date.now() - startedAt > Locks.MAX_WAIT) return callback(new Error('Timeout'))
      return Locks.tryLock(docId, function (error, gotLock, token) {
        if (error != null) return callback(error)
        if (gotLock) return callback(null, token)
        setTimeout(attempt, wait)
        wait = Math.min(wait * 2, 1000)
      })
    ${retry === 'assigned' ? '})()' : '}\n    attempt()'}
  },
}
`;

test('a retry assigned to a variable and run at once (`(attempt = function () {...})()`) is a self-retry', () => {
  for (const retry of ['assigned', 'const'] as const) {
    const findings = analyzeProject({ 'app/LockManager.js': lockModule(retry) });
    assert.deepEqual(findingList(findings), ['app/LockManager.js: backoff-between-retries'], `${retry}\n${findings.map((f) => f.message).join('\n')}`);
    assert.match(findings[0].message, /This retry of docId \(schema\.blocking\(\{ docId: \*\s?\}\)\) waits `wait`/);
  }
});

test('the object a module assigns to a variable and exports is its helpers: callers in other files use them', () => {
  const caller = `const Locks = require('./LockManager')
exports.waitForDoc = function waitForDoc(docId, done) {
  Locks.tryLock(docId, function (error, gotLock) {
    if (error) return done(error)
    if (gotLock) return done()
    setTimeout(() => waitForDoc(docId, done), 100)
  })
}
`;
  const findings = analyzeProject({ 'app/LockManager.js': lockModule('const'), 'app/Flush.js': caller });
  // The caller's own retry, unbounded and at a fixed pace: it reaches the helper through the exported object.
  assert.deepEqual(findingList(findings), ['app/Flush.js: backoff-between-retries', 'app/Flush.js: bounded-acquire-retry', 'app/LockManager.js: backoff-between-retries'], findings.map((f) => f.message).join('\n'));
});

test('functions added to an object of the module are its members; a call forwarding a rest parameter hands the answer on', () => {
  const mocked = `import redis from 'redis'
import crypto from 'node:crypto'
const client = redis.createClient()
export const impl = {}
impl.tryLock = (key, callback) => {
  if (callback == null) {
    callback = function () {}
  }
  const token = crypto.randomUUID()
  return client.set(key, token, 'EX', 30, 'NX', function (err, reply) {
    if (err != null) return callback(err)
    if (reply === 'OK') {
      return callback(null, true, token)
    } else {
      return callback(null, false)
    }
  })
}
export function tryLock(...args) {
  impl.tryLock(...args)
}
export function waitFor(key, done) {
  impl.tryLock(key, (error, gotLock) => (gotLock ? done() : setTimeout(() => waitFor(key, done), 100)))
}
`;
  const findings = analyzeProject({ 'lib/locks.js': mocked });
  // waitFor retries impl.tryLock for ever at a fixed pace; tryLock forwards its caller's callback, whose answer is not its own.
  assert.deepEqual(findingList(findings), ['lib/locks.js: backoff-between-retries', 'lib/locks.js: bounded-acquire-retry'], findings.map((f) => f.message).join('\n'));
});
