// node_redis v3 code awaits its commands through promisified copies: `promisify(client.set).bind(client)`
// stored under any name, or bluebird's promisifyAll methods (`client.setnxAsync`). They are the commands
// they copy, for the file pre-check, the lean parse and the model alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeText, mightHoldLockCode } from '../../rules/analyze';

const rulesOf = (code: string) => analyzeText('lock.js', code).findings.map((f) => f.rule).sort();
const NO_HELPERS = { acquire: [], release: [], extend: [] };

test('util.promisify copies bound to the client: SET NX with a timestamp token, then a bare DEL', () => {
  const code = `const util = require('util');
const { promisify } = util;
const client = require('redis').createClient();
const putIfAbsent = promisify(client.set).bind(client);
const remove = util.promisify(client.del.bind(client));
async function nightly(run) {
  const got = await putIfAbsent('lock:nightly', Date.now(), 'NX', 'PX', 60000);
  if (!got) return;
  try { await run(); } finally { await remove('lock:nightly'); }
}
module.exports = { nightly };
`;
  assert.deepEqual(rulesOf(code), ['owner-checked-release', 'unique-token']);
});

test('bluebird promisifyAll methods: SETNX without a TTL and a DEL in a function named for neither', () => {
  const code = `const Promise = require('bluebird');
const redis = require('redis');
Promise.promisifyAll(redis.RedisClient.prototype);
const client = redis.createClient();
async function take(name) {
  return (await client.setnxAsync('lock:' + name, 'x')) === 1;
}
async function cleanup(name) {
  await client.delAsync('lock:' + name);
}
module.exports = { take, cleanup };
`;
  assert.ok(mightHoldLockCode(code, NO_HELPERS), 'the pre-check must let the file through');
  assert.deepEqual(rulesOf(code), ['owner-checked-release', 'require-ttl', 'unique-token']);
});

test('a promisified copy of another method, and an Async name that is no command, stay plain calls', () => {
  const code = `const { promisify } = require('util');
const client = require('redis').createClient();
const readFile = promisify(require('fs').readFile);
const lookup = promisify(client.hgetall).bind(client);
async function load(name) {
  const owner = await lookup('lock:' + name);
  const text = await readFile(name, 'utf8');
  return client.settleAsync(name, owner, text);
}
module.exports = { load };
`;
  assert.deepEqual(rulesOf(code), []);
});
