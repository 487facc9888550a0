// The lock history core, fed with real listings of a private redis-server: seen at the first look,
// acquired, renewed, holder changes, held long, expired versus released, and partial listings.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection } from '../../client/src/locks';
import { escapeControlChars } from '../../client/src/locks/display-text';
import { HISTORY_ENTRIES, LockHistory, type LockEvent } from '../../client/src/locks/history';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

let redis: RedisProcess;
let client: Redis;
let core: LockConnection;

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
  core = await openLockConnection({ url: redis.url });
});

after(async () => {
  await core?.close();
  client?.disconnect();
  await redis?.stop();
});

const kinds = (events: LockEvent[]) => events.map((e) => `${e.kind} ${e.key}`);

test('seen, acquired, renewed, holder-changed, expired and released, each once and in key order', async () => {
  await client.flushall();
  await client.set('lock:a', 'a-1', 'PX', 60_000);
  await client.set('lock:b', 'b-1');
  const history = new LockHistory();
  assert.deepEqual(kinds(history.observe(await core.list(), Date.now())), ['seen lock:a', 'seen lock:b']);
  assert.deepEqual(kinds(history.observe(await core.list(), Date.now())), [], 'nothing changed');

  await client.pexpire('lock:a', 120_000);
  await client.set('lock:b', 'b-2');
  await client.set('lock:c', 'c-1', 'PX', 300);
  const events = history.observe(await core.list(), Date.now());
  assert.deepEqual(kinds(events), ['renewed lock:a', 'holder-changed lock:b', 'acquired lock:c']);
  assert.equal(events[0]!.renewals, 1);
  assert.equal(events[1]!.previousHolder?.label, 'b-1');
  assert.equal(events[1]!.holder.label, 'b-2');

  await waitFor(async () => (await client.exists('lock:c')) === 0, 'lock:c to expire');
  await client.del('lock:a');
  assert.deepEqual(kinds(history.observe(await core.list(), Date.now())), ['released lock:a', 'expired lock:c']);
  assert.equal(history.track('lock:a')!.ended, true);
  assert.deepEqual(history.all().map((t) => [t.key, t.ended]), [['lock:b', false], ['lock:a', true], ['lock:c', true]]);
});

test('held long: once past the threshold, with how long and how often it was renewed; a new holder starts over', async () => {
  await client.flushall();
  // Set shorter than the watchdog's TTL: a renewal must raise the PTTL even when a listing reads it
  // within the same millisecond as the PEXPIRE (equal PTTLs are not a renewal).
  await client.set('lock:watchdog', 'w-1', 'PX', 5_000);
  const history = new LockHistory(150);
  const t0 = Date.now();
  history.observe(await core.list(), t0);
  assert.equal(history.track('lock:watchdog')!.heldBeforeWatch, true);
  let events: LockEvent[] = [];
  await waitFor(async () => {
    await client.pexpire('lock:watchdog', 10_000);
    events = history.observe(await core.list(), Date.now());
    return events.some((e) => e.kind === 'held-long');
  }, 'the held-long event');
  const long = events.find((e) => e.kind === 'held-long')!;
  assert.ok(long.heldMs >= 150);
  assert.ok(long.renewals >= 1);
  assert.equal(history.track('lock:watchdog')!.heldLong, true);
  assert.deepEqual(kinds(history.observe(await core.list(), Date.now())).filter((k) => k.startsWith('held-long')), [], 'said once');

  await client.set('lock:watchdog', 'w-2', 'PX', 10_000);
  history.observe(await core.list(), Date.now());
  const track = history.track('lock:watchdog')!;
  assert.deepEqual([track.holder.label, track.heldLong, track.renewals, track.heldBeforeWatch], ['w-2', false, 0, false]);
  // Consecutive renewals are one history entry with a count.
  const renewed = track.entries.filter((e) => e.kind === 'renewed');
  assert.equal(renewed.length, 1);
  assert.ok((renewed[0]!.count ?? 1) >= 1);
});

test('a partial listing says nothing about absent keys; the history per lock is bounded', async () => {
  await client.flushall();
  for (let i = 0; i < 5; i++) await client.set(`lock:p${i}`, `p-${i}`, 'PX', 60_000);
  const history = new LockHistory();
  history.observe(await core.list(), Date.now());
  const partial = await core.list({ rowCap: 2 });
  assert.equal(partial.partial, true);
  assert.deepEqual(history.observe(partial, Date.now()).filter((e) => e.kind === 'released' || e.kind === 'expired'), []);

  for (let i = 0; i < HISTORY_ENTRIES + 5; i++) {
    await client.set('lock:p0', `owner-${i}`, 'PX', 60_000);
    history.observe(await core.list(), Date.now());
  }
  const entries = history.track('lock:p0')!.entries;
  assert.equal(entries.length, HISTORY_ENTRIES);
  assert.equal(entries.at(-1)!.holder.label, `owner-${HISTORY_ENTRIES + 4}`);
});

test('escapeControlChars: C0, DEL, C1, bidi and line separators become escapes; printable text stays', () => {
  assert.equal(escapeControlChars('\x1b]0;PWNED\x07\x1b[2J'), '\\x1b]0;PWNED\\x07\\x1b[2J');
  assert.equal(escapeControlChars('lock:\r\nFAKE: row\t\x00\x7f\x85\x9f'), 'lock:\\r\\nFAKE: row\\t\\x00\\x7f\\x85\\x9f');
  assert.equal(escapeControlChars('a\u202eb\u2066c\u2069d\u200fe\u061cf\u2028g\u2029h'), 'a\\u{202e}b\\u{2066}c\\u{2069}d\\u{200f}e\\u{61c}f\\u{2028}g\\u{2029}h');
  const printable = 'lock:order:42 · Grüße 日本 🙂 ~!@#';
  assert.equal(escapeControlChars(printable), printable);
  // A backslash in the value is doubled, so a typed `\x1b` cannot pass for an escaped ESC.
  assert.equal(escapeControlChars('a\\x1b'), 'a\\\\x1b');
});
