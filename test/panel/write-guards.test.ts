// Release/Extend from the view against a real Redis: refused on a stale row before anything is sent,
// texts from Redis escaped in the confirmation and messages, and the TTL a person types ("10m").
// Also the history the session keeps across refreshes (renewals seen).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection } from '../../client/src/locks';
import { guardedWrite, type WriteUi } from '../../client/src/panel/guarded-write';
import { LockSession } from '../../client/src/panel/lock-session';
import { readPanelSettings, REDIS_SETTINGS } from '../../client/src/panel/settings';
import { humanDuration, MAX_EXTEND_MS, parseTtlInput } from '../../client/src/panel/ttl-input';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let redis: RedisProcess;
let client: Redis;
let session: LockSession;

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
  const values: Record<string, unknown> = { urls: [redis.url] };
  const settings = readPanelSettings(
    { inspect: (key) => ({ defaultValue: REDIS_SETTINGS[key as keyof typeof REDIS_SETTINGS].default, globalValue: values[key] }) as never },
    true,
  );
  session = new LockSession(settings, { open: openLockConnection, password: async () => undefined, audit: () => undefined, onChange: () => undefined });
  session.connect();
  await session.refresh(new Set(['connect']));
});

after(async () => {
  await session?.dispose();
  client?.disconnect();
  await redis?.stop();
});

function recordingUi(confirm = true) {
  const said = { info: [] as string[], warn: [] as string[], asked: [] as { message: string; detail: string }[] };
  const ui: WriteUi = {
    async confirm(message, detail) {
      said.asked.push({ message, detail });
      return confirm;
    },
    askTtlMs: async () => 600_000,
    info: (m) => said.info.push(m),
    warn: (m) => said.warn.push(m),
  };
  return { ui, said };
}

const target = () => session.targets()[0]!;

test('a stale row: release and extend are refused with the reason, and nothing reaches Redis', async () => {
  await client.set('lock:stale', 's-1', 'PX', 60_000);
  await client.config('RESETSTAT');
  for (const kind of ['release', 'extend'] as const) {
    const { ui, said } = recordingUi();
    const reason = 'the row was read at 12:03:41 and 127.0.0.1 has not answered since; refresh once it is back';
    const outcome = await guardedWrite({ kind, target: target(), key: 'lock:stale', staleReason: reason }, { session, writes: { allowed: true }, ui });
    assert.equal(outcome, 'refused');
    assert.deepEqual(said.asked, []);
    assert.deepEqual(said.warn, [`Lockwise: ${kind} of lock:stale is off: ${reason}. Nothing was sent to Redis.`]);
  }
  assert.doesNotMatch(String(await client.info('commandstats')), /cmdstat_(eval|evalsha|del|get|type|pttl|pexpire):/);
  assert.equal(await client.get('lock:stale'), 's-1');
});

test('key, holder and token from Redis are shown with control characters escaped; the guarded write uses the exact token', async () => {
  const key = 'lock:tty\x1b]0;PWNED\x07';
  const token = 'w-1\r\nFAKE: row\u202e';
  await client.set(key, token, 'PX', 60_000);
  const { ui, said } = recordingUi();
  assert.equal(await guardedWrite({ kind: 'release', target: target(), key }, { session, writes: { allowed: true }, ui }), 'released');
  assert.equal(await client.exists(key), 0);
  const { message, detail } = said.asked[0]!;
  assert.equal(message, 'Release lock lock:tty\\x1b]0;PWNED\\x07?');
  assert.ok(detail.includes('Token: w-1\\r\\nFAKE: row\\u{202e}'), detail);
  const shown = [message, detail, ...said.info].join('\n');
  assert.doesNotMatch(shown, /[\x00-\x09\x0b-\x1f\u202e]/);
});

test('extend with a TTL typed as 10m: the confirmation says the TTL read now and the new TTL in human units', async () => {
  await client.set('lock:ext-human', 'e-1', 'PX', 45_000);
  const { ui, said } = recordingUi();
  assert.equal(await guardedWrite({ kind: 'extend', target: target(), key: 'lock:ext-human' }, { session, writes: { allowed: true }, ui }), 'extended');
  assert.ok((await client.pttl('lock:ext-human')) > 590_000);
  assert.match(said.asked[0]!.detail, /TTL now: 4\d(\.\d)?s \(\d+ ms\), read just now/);
  assert.ok(said.asked[0]!.detail.includes('New TTL: 10m (600000 ms)'));
});

test('TTL input: 30s, 10m, 1h, 1h30m, 1500ms and bare milliseconds; nonsense and absurd TTLs are refused', () => {
  const ms = (text: string) => {
    const r = parseTtlInput(text);
    return 'ms' in r ? r.ms : r.error;
  };
  assert.deepEqual(['30s', '10m', '1h', '1h30m', ' 1h 30m ', '1500ms', '2.5s', '45000'].map(ms), [30_000, 600_000, 3_600_000, 5_400_000, 5_400_000, 1_500, 2_500, 45_000]);
  for (const bad of ['', 'soon', '10 minutes', '5x', '-5s', 'm']) assert.match(String(ms(bad)), /30s, 10m, 1h/, bad);
  assert.match(String(ms('0')), /at least 1 ms/);
  assert.match(String(ms('99999999999999999')), /At most 7d/);
  assert.equal(ms(`${MAX_EXTEND_MS}`), MAX_EXTEND_MS);
  assert.deepEqual([850, 30_000, 600_000, 5_400_000, 1_500, 90_061_000].map(humanDuration), ['850 ms', '30s', '10m', '1h 30m', '1.5s', '1d 1h 1m 1s']);
});

test('the session keeps each lock\'s history across refreshes: renewals seen, holder changes, releases', async () => {
  await client.set('lock:hist', 'h-1', 'PX', 10_000);
  const refresh = () => session.refresh(new Set(['manual']));
  await refresh();
  await client.pexpire('lock:hist', 30_000);
  await refresh();
  await client.pexpire('lock:hist', 60_000);
  await refresh();
  await client.set('lock:hist', 'h-2', 'PX', 60_000);
  await refresh();
  await client.del('lock:hist');
  await refresh();
  const track = session.views()[0]!.history!.track('lock:hist')!;
  assert.equal(track.ended, true);
  assert.deepEqual(track.entries.map((e) => [e.kind, e.count ?? 1, e.holder.label]), [
    ['acquired', 1, 'h-1'],
    ['renewed', 2, 'h-1'],
    ['holder-changed', 1, 'h-2'],
    ['released', 1, 'h-2'],
  ]);
  assert.equal(track.entries[2]!.previousHolder?.label, 'h-1');
});
