// A store's put-if-absent and delete helpers, named for caching, used by a caller as an in-flight claim:
// the write taken in a try whose finally deletes the same key is a lock, whatever the key is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeProject, findingList } from './harness';
import { emptyConfig } from '../../rules/config';
import { memoryHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';

const STORE = `import Redis from 'ioredis';
const redis = new Redis();
export const putIfMissing = async (key, payload, ttlSeconds = 300) => {
  try {
    const reply = await redis.set(key, JSON.stringify(payload), 'EX', ttlSeconds, 'NX');
    return reply === 'OK';
  } catch (err) {
    console.error('cache write failed', err);
    return false;
  }
};
export const evict = async (key) => {
  try {
    if (!key) return;
    await redis.del(key);
  } catch (err) {
    console.error('cache delete failed', err);
  }
};
export const readCached = async (key) => JSON.parse((await redis.get(key)) ?? 'null');
`;

/** A caller of the store, `body` inside its function (the claim's key is `busy`). */
const caller = (body: string, value = '{ startedAt: new Date().toISOString(), amount }') => `import { putIfMissing, evict, readCached } from '../utils/store.js';
import { settle } from './ledger.js';
export async function submitPayment(orderId, amount) {
  const busy = \`payment:\${orderId}:in-flight\`;
  const value = ${value};
${body}
}
`;

const LEDGER = 'export async function settle(orderId, amount) { return { orderId, amount }; }\n';

const project = (service: string) => ({ 'src/utils/store.js': STORE, 'src/api/ledger.js': LEDGER, 'src/api/payments.js': service });

test('a claim through a store helper whose not-taken return passes the finally that deletes it is release-only-acquired', () => {
  const findings = analyzeProject(project(caller(`  try {
    const claimed = await putIfMissing(busy, value, 60);
    if (!claimed) return { status: 'PENDING' };
    return await settle(orderId, amount);
  } finally {
    await evict(busy);
  }`)));
  assert.deepEqual(findingList(findings), ['src/api/payments.js: release-only-acquired'], findings.map((f) => f.message).join('\n'));
  const [finding] = findings;
  assert.match(finding.message, /payment:\*:in-flight/);
  // Why, in the other file: the DEL in the store helper.
  assert.ok(finding.related?.some((r) => r.message === 'the release in the helper' && r.file?.endsWith('src/utils/store.js')), JSON.stringify(finding.related));
});

test('a claim through a store helper deleted in a finally is a lock: a constant value released by a bare DEL is unique-token', () => {
  const findings = analyzeProject(project(caller(`  const claimed = await putIfMissing(busy, value, 60);
  if (!claimed) return { status: 'PENDING' };
  try {
    return await settle(orderId, amount);
  } finally {
    await evict(busy);
  }`, "'1'")));
  assert.deepEqual(findingList(findings), ['src/api/payments.js: unique-token'], findings.map((f) => f.message).join('\n'));
});

test('the record stored as a claim\'s value is its payload, no owner token', () => {
  const findings = analyzeProject(project(caller(`  const claimed = await putIfMissing(busy, { startedAt: Date.now() }, 60);
  if (!claimed) return { status: 'PENDING' };
  try {
    return await settle(orderId, amount);
  } finally {
    await evict(busy);
  }`)));
  assert.deepEqual(findingList(findings), [], findings.map((f) => f.message).join('\n'));
});

test('store helpers without a delete of the key in a finally are caching, not a lock', () => {
  // A set-once marker: written if missing, never deleted.
  const marker = analyzeProject(project(caller(`  const first = await putIfMissing(busy, value, 60);
  if (!first) return readCached(busy);
  return settle(orderId, amount);`)));
  assert.deepEqual(findingList(marker), []);
  // An invalidation after the work, not in a finally: the write is not held across the work.
  const invalidated = analyzeProject(project(caller(`  try {
    const fresh = await putIfMissing(busy, value, 60);
    if (!fresh) return { status: 'CACHED' };
    await settle(orderId, amount);
  } catch (err) {
    await evict(busy);
    throw err;
  }`)));
  assert.deepEqual(findingList(invalidated), []);
  // A finally deleting another key.
  const other = analyzeProject(project(caller(`  try {
    const claimed = await putIfMissing(busy, value, 60);
    if (!claimed) return { status: 'PENDING' };
    return await settle(orderId, amount);
  } finally {
    await evict(\`payment:\${orderId}:quote\`);
  }`)));
  assert.deepEqual(findingList(other), []);
});

test('a function deleting a key it builds around the caller\'s (`${key}:lock`) deletes its own lock: no store delete for its callers', () => {
  const fetcher = `import Redis from 'ioredis';
const redis = new Redis();
export async function fetchFresh(key, load) {
  const lockKey = \`\${key}:lock\`;
  try {
    return await load();
  } finally {
    await redis.del(lockKey);
  }
}
`;
  const index = new ProjectIndex({ host: memoryHost({ '/p/fetcher.js': fetcher, '/p/store.js': STORE }), configFor: () => emptyConfig() });
  assert.equal(index.summaryOf('/p/fetcher.js')?.functions.fetchFresh?.release, undefined);
  // The store's own delete of the caller's key is one, for callers that pair it with a claim.
  assert.equal(index.summaryOf('/p/store.js')?.functions.evict?.release?.storePrimitive, true);
});
