// Pure parts of the lock core: holder decoding by shape, states, fence names, Cluster slots, TTL text,
// error explanations and password redaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainError, redact } from '../../client/src/locks/errors';
import { fenceCandidates, hashTag, keySlot, lockwiseFenceKey, redissonFenceKey } from '../../client/src/locks/fences';
import { formatTtl } from '../../client/src/locks/format';
import { decodeHolder, decodeStringHolder, holderFromToken, parseLockwiseToken, valueFromSnapshot } from '../../client/src/locks/holders';
import { supportsNoTouch } from '../../client/src/locks/scan';
import { applyStates, lockState } from '../../client/src/locks/states';
import type { LockRow } from '../../client/src/locks/types';

const UUID = '9f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';

test('string holders are told apart by shape and, where shapes are shared, by key prefix', () => {
  const cases: [string, string, string][] = [
    ['lock:a', 'lw1:web-1.prod:4242:0123456789abcdef0123456789abcdef', 'lockwise'],
    ['lock:a', '0123456789abcdef0123456789abcdef', 'token'],
    ['mutex:a', UUID, 'redis-semaphore'],
    ['mutex:a', `${UUID}-worker7`, 'redis-semaphore'],
    ['redlock:a', UUID, 'pottery'],
    ['orders:lock', UUID, 'token'],
    ['lock:a', UUID, 'token'],
    ['lock:a', 'q83vEjRWeJq83vEjRWeJqw==', 'token'],
    ['lock:a', 'q83vEjRWeJq83vEjRWeJq83v', 'python-redis-lock'],
    ['other:a', 'q83vEjRWeJq83vEjRWeJq83v', 'token'],
    ['lock:a', '{"owner":"svc","pid":3}', 'json'],
    ['lock:a', '{not json', 'plain'],
    ['lock:a', 'WEB-SERVER-01', 'plain'],
  ];
  for (const [key, value, format] of cases) {
    const h = decodeStringHolder(key, value);
    assert.equal(h.format, format, `${key} ${value}`);
    assert.equal(h.token, value, 'a string lock is released with its whole value');
  }
  // No library is named without evidence; the shape is only a hint.
  const uuid = decodeStringHolder('lock:job', UUID);
  assert.equal(uuid.label, 'token 9f0c1a2b…');
  assert.match(uuid.details!.shape!, /^UUID /);
  assert.doesNotMatch(uuid.label, /Spring|UUID/);
  assert.equal(decodeHolder('jobs:pool', { kind: 'zset', members: [{ member: UUID, score: 1 }] }).format, 'zset');
  assert.deepEqual(parseLockwiseToken('lw1:web-1.prod:4242:0123456789abcdef0123456789abcdef'), { host: 'web-1.prod', pid: 4242, nonce: '0123456789abcdef0123456789abcdef' });
  assert.equal(parseLockwiseToken('lw1:web:42:XYZ'), undefined);
  assert.equal(decodeStringHolder('lock:a', '').label, '(empty string)');
});

test('Redisson hashes: holder field, reentry count, read/write mode, several readers', () => {
  const one = decodeHolder('lock:r', { kind: 'hash', fields: { [`${UUID}:42`]: '3' } });
  assert.deepEqual([one.format, one.token, one.label], ['redisson', `${UUID}:42`, 'redisson client 9f0c1a2b… thread 42, entered 3×']);
  const write = decodeHolder('lock:r', { kind: 'hash', fields: { mode: 'write', [`${UUID}:7:write`]: '1' } });
  assert.match(write.label, /thread 7 \(write lock\)/);
  const readers = decodeHolder('lock:r', { kind: 'hash', fields: { mode: 'read', [`${UUID}:1`]: '1', [`${UUID.replace('9f', 'aa')}:2`]: '1' } });
  assert.equal(readers.label, '2 redisson holders (read lock)');
  assert.equal(decodeHolder('lock:r', { kind: 'hash', fields: { a: '1' } }).format, 'hash');
  assert.equal(holderFromToken('lock:r', 'hash', `${UUID}:42`).format, 'redisson');
});

test('semaphore zsets list their holders with acquire times; other types are named, not read', () => {
  const h = decodeHolder('semaphore:pool', { kind: 'zset', members: [{ member: UUID, score: 1_700_000_000_000 }] });
  assert.equal(h.format, 'redis-semaphore');
  assert.equal(h.token, UUID);
  assert.equal(h.details?.[UUID], '2023-11-14T22:13:20.000Z');
  assert.equal(decodeHolder('lock:l', { kind: 'other', type: 'list' }).label, 'list: not a type any lock library uses (value not read)');
  // The guarded scripts' snapshot: type, size (HLEN / ZCARD / STRLEN), then the bounded payload.
  assert.deepEqual(valueFromSnapshot(['hash', '1', 'f', '1']), { kind: 'hash', fields: { f: '1' }, total: 1 });
  assert.deepEqual(valueFromSnapshot(['zset', '3', 'm', '12']), { kind: 'zset', members: [{ member: 'm', score: 12 }], total: 3 });
  const cut = decodeHolder('semaphore:pool', { kind: 'zset', members: [{ member: UUID, score: 1 }], total: 250 });
  assert.match(cut.label, /^250 holders: /);
});

test('states: no-expiry, renewed (same holder, TTL up), expiring (20% of the longest TTL seen, or < 2 s), held', () => {
  assert.equal(lockState(-1, 0, false), 'no-expiry');
  assert.equal(lockState(-2, 0, false), 'gone');
  assert.equal(lockState(1_500, 1_500, false), 'expiring');
  assert.equal(lockState(5_000, 30_000, false), 'expiring');
  assert.equal(lockState(25_000, 30_000, false), 'held');
  const row = (key: string, pttl: number, token: string): LockRow => ({ key, type: 'string', pttl, holder: { format: 'plain', label: token, token }, raw: token, state: 'held' });
  const before = [row('a', 10_000, 't1'), row('b', 10_000, 't1')];
  applyStates(before, undefined);
  const after = [row('a', 20_000, 't1'), row('b', 20_000, 't2')];
  applyStates(after, before);
  assert.deepEqual(after.map((r) => r.state), ['renewed', 'held'], 'a new holder is not a renewal');
  assert.deepEqual(after.map((r) => r.peakPttl), [20_000, 20_000]);
});

test('fence key names follow each convention and share the lock\'s Cluster slot where they must', () => {
  assert.equal(lockwiseFenceKey('lock:a'), '{lock:a}:fence');
  assert.equal(lockwiseFenceKey('lock:{a}'), 'lock:{a}:fence');
  assert.equal(redissonFenceKey('myLock'), 'redisson_lock_token:{myLock}');
  assert.deepEqual(fenceCandidates('lock:a', 'hash'), ['{lock:a}:fence', 'fence:lock:a', 'fence:a', 'redisson_lock_token:{lock:a}']);
  assert.equal(hashTag('a{}b{c}'), undefined, 'an empty first tag means the whole key is hashed');
  // Reference values from the Redis Cluster specification (CRC16 of "123456789" is 0x31C3).
  assert.equal(keySlot('123456789'), 0x31c3 % 16384);
  assert.equal(keySlot('foo'), 12182);
  for (const key of ['lock:a', 'lock:{a}', 'myLock']) {
    assert.equal(keySlot(lockwiseFenceKey(key)), keySlot(key));
    assert.equal(keySlot(redissonFenceKey(key)), keySlot(key));
  }
});

test('TTL text and the CLIENT NO-TOUCH version check', () => {
  assert.deepEqual([-1, -2, 850, 12_340, 245_000, 7_380_000].map(formatTtl), ['no expiry', 'gone', '850 ms', '12.3 s', '4m 05s', '2h 03m']);
  assert.deepEqual(['7.0.15', '7.2.0', '8.0.1', '6.2.14', undefined].map(supportsNoTouch), [false, true, true, false, false]);
});

test('errors name what failed and never carry a password, even inside a URL', () => {
  assert.equal(redact('redis://app:hunter2@db:6379/0 failed', []), 'redis://app:***@db:6379/0 failed');
  assert.equal(redact('AUTH hunter2 rejected', ['hunter2']), 'AUTH *** rejected');
  const ctx = { target: 'redis://db:6379/0', username: 'app', secrets: ['hunter2'] };
  const noperm = explainError(new Error("NOPERM this user has no permissions to run the 'keys' command"), ctx);
  assert.deepEqual([noperm.kind, noperm.what], ['noperm', 'The Redis user "app" may not run KEYS (ACL).']);
  const leaked = explainError(new Error('weird failure mentioning hunter2'), ctx);
  assert.ok(!leaked.message.includes('hunter2'));
});
