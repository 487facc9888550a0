// The panel's Redis side against real servers: listing through the core, errors kept in the view,
// reconnect with backoff after a kill, and the guarded release/extend flows with a scripted user.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { formatAuditLine, openLockConnection, type AuditRecord } from '../../client/src/locks';
import { guardedWrite, type WriteUi } from '../../client/src/panel/guarded-write';
import { LockSession } from '../../client/src/panel/lock-session';
import type { RefreshReason } from '../../client/src/panel/refresh-scheduler';
import { readPanelSettings, REDIS_SETTINGS, type PanelSettings } from '../../client/src/panel/settings';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

let redis: RedisProcess;
let client: Redis;
const sessions: LockSession[] = [];

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  client.on('error', () => undefined); // the kill test takes this server down on purpose
});

after(async () => {
  await Promise.all(sessions.map((s) => s.dispose()));
  client?.disconnect();
  await redis?.stop();
});

function settingsFor(url: string, global: Record<string, unknown> = {}): PanelSettings {
  const values: Record<string, unknown> = { urls: [url], ...global };
  return readPanelSettings(
    { inspect: (key) => ({ defaultValue: REDIS_SETTINGS[key as keyof typeof REDIS_SETTINGS].default, globalValue: values[key] }) as never },
    true,
  );
}

function newSession(settings: PanelSettings, extra: { password?: () => string | undefined; patterns?: () => Promise<string[]> } = {}) {
  const audits: AuditRecord[] = [];
  const opened: string[] = [];
  const session = new LockSession(settings, {
    open: (options) => {
      opened.push(options.password ?? '');
      return openLockConnection(options);
    },
    password: async () => extra.password?.(),
    extraPatterns: extra.patterns,
    audit: (record) => audits.push(record),
    onChange: () => undefined,
  });
  sessions.push(session);
  return { session, audits, opened, target: settings.targets[0]! };
}

const reasons = (...r: RefreshReason[]) => new Set(r);

/** A user who answers the dialogs as scripted and whose messages are recorded. */
function scriptedUi(answers: { confirm?: boolean | (() => Promise<boolean>); ttlMs?: number } = {}) {
  const said: { info: string[]; warn: string[]; asked: { message: string; detail: string; destructive: boolean }[] } = { info: [], warn: [], asked: [] };
  const ui: WriteUi = {
    async confirm(message, detail, _action, destructive) {
      said.asked.push({ message, detail, destructive });
      const a = answers.confirm ?? true;
      return typeof a === 'function' ? a() : a;
    },
    askTtlMs: async () => answers.ttlMs,
    info: (m) => said.info.push(m),
    warn: (m) => said.warn.push(m),
  };
  return { ui, said };
}

test('connect + refresh lists through the core, with the workspace globs added to the patterns', async () => {
  await client.set('lock:s1', 'lw1:api-2:77:00000000000000000000000000000001', 'PX', 60_000);
  await client.set('jobs-lock:nightly', 'worker-9', 'PX', 60_000);
  const { session } = newSession(settingsFor(redis.url), { patterns: async () => ['jobs-lock:*'] });
  session.connect();
  assert.equal(session.views()[0]!.status.phase, 'connecting');
  await session.refresh(reasons('connect'));
  const [view] = session.views();
  assert.equal(view!.status.phase, 'connected');
  const keys = view!.listing!.result.rows.map((r) => r.key);
  assert.ok(keys.includes('lock:s1') && keys.includes('jobs-lock:nightly'), keys.join(','));
  assert.deepEqual(session.patterns(), ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*', 'jobs-lock:*']);
  await session.disconnect();
  assert.deepEqual(session.views().map((v) => [v.status.phase, v.listing]), [['disconnected', undefined]]);
});

test('a language server that fails or never answers does not hold up browsing', async () => {
  await client.set('lock:independent', 'i-1', 'PX', 60_000);
  for (const patterns of [() => Promise.reject(new Error('server not running')), () => new Promise<string[]>(() => undefined)]) {
    const { session } = newSession(settingsFor(redis.url), { patterns });
    session.connect();
    await session.refresh(reasons('connect'));
    assert.ok(session.views()[0]!.listing!.result.rows.some((r) => r.key === 'lock:independent'));
    assert.deepEqual(session.patterns(), ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*']);
  }
});

test('server killed during browsing: the error shows, the last rows stay, and it reconnects after the restart', async () => {
  await client.set('lock:survivor', 'w-1', 'PX', 120_000);
  const { session } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  assert.equal(session.views()[0]!.status.phase, 'connected');

  await redis.kill();
  await session.refresh(reasons('poll'));
  const down = session.views()[0]!;
  assert.equal(down.status.phase, 'reconnecting');
  assert.ok(down.status.error && down.status.error.length > 10, `explained error: ${down.status.error}`);
  assert.ok(down.status.retryAt! > Date.now(), 'next attempt is scheduled after a backoff');
  assert.ok(down.listing!.result.rows.some((r) => r.key === 'lock:survivor'), 'last rows kept');

  // While the server is still down, due attempts fail again and the backoff grows.
  await waitFor(() => session.retryDue(Date.now()), 'first retry due', { timeoutMs: 5_000 });
  await session.refresh(reasons('reconnect'));
  assert.equal(session.views()[0]!.status.attempt, 2);

  await redis.restart();
  await client.set('lock:after-restart', 'w-2', 'PX', 120_000);
  await waitFor(
    async () => {
      await session.refresh(reasons('poll'));
      return session.views()[0]!.status.phase === 'connected';
    },
    'reconnected after restart',
    { timeoutMs: 15_000 },
  );
  assert.ok(session.views()[0]!.listing!.result.rows.some((r) => r.key === 'lock:after-restart'));
  assert.equal(session.views()[0]!.status.error, undefined);
});

test('a wrong or missing password is reported without the password, and not retried until the password or settings change', async () => {
  const secured = await startRedis({ args: ['--requirepass', 'right-horse-battery'] });
  try {
    let password: string | undefined = 'wrong-staple-9';
    const { session, opened, target } = newSession(settingsFor(secured.url), { password: () => password });
    session.connect();
    await session.refresh(reasons('connect'));
    const { status } = session.views()[0]!;
    assert.equal(status.phase, 'auth-failed');
    assert.match(status.error!, /password|auth/i);
    assert.ok(!status.error!.includes('wrong-staple-9'));
    assert.equal(status.retryAt, undefined, 'no retry is scheduled');

    // Polls, due-retry checks and showing the view again do not try again.
    assert.equal(session.retryDue(Date.now() + 3_600_000), false);
    for (const r of ['poll', 'reconnect', 'visible'] as const) await session.refresh(reasons(r));
    assert.equal(opened.length, 1, 'one attempt only');

    // No password at all (NOAUTH) stops the same way.
    password = undefined;
    await session.refresh(reasons('manual'));
    assert.equal(opened.length, 2, 'a manual refresh is the user asking: it tries once');
    assert.equal(session.views()[0]!.status.phase, 'auth-failed');
    await session.refresh(reasons('poll'));
    assert.equal(opened.length, 2);

    // A new password (the secret-storage change resets the connection) connects.
    password = 'right-horse-battery';
    await session.reset(target.id);
    await session.refresh(reasons('manual'));
    assert.equal(session.views()[0]!.status.phase, 'connected');

    // Settings changes try again too.
    password = 'wrong-again';
    await session.reset(target.id);
    await session.refresh(reasons('manual'));
    assert.equal(session.views()[0]!.status.phase, 'auth-failed');
    const before = opened.length;
    password = 'right-horse-battery';
    await session.configure(settingsFor(secured.url));
    await session.refresh(reasons('settings'));
    assert.equal(opened.length, before + 1);
    assert.equal(session.views()[0]!.status.phase, 'connected');
  } finally {
    await secured.stop();
  }
});

test('release: re-read, confirmation with key/holder/TTL/token, guarded delete, audit record', async () => {
  const token = 'lw1:api-2:77:0000000000000000000000000000aaaa';
  await client.set('lock:rel', token, 'PX', 60_000);
  const { session, audits, target } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  const { ui, said } = scriptedUi();
  const outcome = await guardedWrite({ kind: 'release', target, key: 'lock:rel' }, { session, writes: { allowed: true }, ui });
  assert.equal(outcome, 'released');
  assert.equal(await client.exists('lock:rel'), 0);
  const { message, detail } = said.asked[0]!;
  assert.equal(message, 'Release lock lock:rel?');
  for (const part of ['Key: lock:rel', 'Holder: api-2 pid 77 (lockwise)', `Token: ${token}`]) assert.ok(detail.includes(part), part);
  assert.match(detail, /TTL now: \d+(\.\d)?s \(\d+ ms\), read just now/);
  assert.equal(said.asked[0]!.destructive, true, 'a release is confirmed with Cancel as the default');
  assert.deepEqual(said.info, ['Lockwise: released lock:rel (was held by api-2 pid 77).']);
  assert.equal(audits.length, 1);
  assert.match(formatAuditLine(audits[0]!), /release lock:rel .*holder api-2 pid 77.*: released$/);
});

test('release when the lock changed hands during the confirmation: nothing removed, the new holder named', async () => {
  await client.set('lock:race', 'lw1:old-host:1:0000000000000000000000000000bbbb', 'PX', 60_000);
  const { session, audits, target } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  const fresh = 'lw1:new-host:2:0000000000000000000000000000cccc';
  const { ui, said } = scriptedUi({
    confirm: async () => {
      await client.set('lock:race', fresh, 'PX', 60_000);
      return true;
    },
  });
  const outcome = await guardedWrite({ kind: 'release', target, key: 'lock:race' }, { session, writes: { allowed: true }, ui });
  assert.equal(outcome, 'token-changed');
  assert.equal(await client.get('lock:race'), fresh);
  assert.deepEqual(said.warn, [
    'Lockwise: lock:race is now held by new-host pid 2, not by the holder you confirmed. Nothing was removed.',
  ]);
  assert.equal(audits[0]!.result, 'token-changed');
});

test('release of a lock that expired before the re-read says gone; cancelling sends nothing', async () => {
  const { session, target } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  const gone = scriptedUi();
  assert.equal(await guardedWrite({ kind: 'release', target, key: 'lock:never-there' }, { session, writes: { allowed: true }, ui: gone.ui }), 'gone');
  assert.deepEqual(gone.said.info, ['Lockwise: lock:never-there is already gone; nothing to release.']);

  await client.set('lock:kept', 'k-1', 'PX', 60_000);
  const no = scriptedUi({ confirm: false });
  assert.equal(await guardedWrite({ kind: 'release', target, key: 'lock:kept' }, { session, writes: { allowed: true }, ui: no.ui }), 'cancelled');
  assert.equal(await client.get('lock:kept'), 'k-1');
});

test('writes off (untrusted or read-only): refused before anything is sent to Redis', async () => {
  await client.set('lock:guarded', 'g-1', 'PX', 60_000);
  const { session, target } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  await client.config('RESETSTAT');
  const { ui, said } = scriptedUi();
  const outcome = await guardedWrite(
    { kind: 'release', target, key: 'lock:guarded' },
    { session, writes: { allowed: false, reason: 'the workspace is not trusted' }, ui },
  );
  assert.equal(outcome, 'refused');
  assert.deepEqual(said.asked, []);
  assert.deepEqual(said.warn, ['Lockwise: release refused because the workspace is not trusted. Nothing was sent to Redis.']);
  const stats = String(await client.info('commandstats'));
  assert.doesNotMatch(stats, /cmdstat_(eval|evalsha|del|get|type|pttl):/);
  assert.equal(await client.get('lock:guarded'), 'g-1');
});

test('extend: asks the TTL, confirms, sets it only for the same token', async () => {
  await client.set('lock:ext', 'e-1', 'PX', 5_000);
  const { session, target } = newSession(settingsFor(redis.url));
  session.connect();
  await session.refresh(reasons('connect'));
  const { ui, said } = scriptedUi({ ttlMs: 120_000 });
  assert.equal(await guardedWrite({ kind: 'extend', target, key: 'lock:ext' }, { session, writes: { allowed: true }, ui }), 'extended');
  assert.ok((await client.pttl('lock:ext')) > 60_000);
  assert.ok(said.asked[0]!.detail.includes('New TTL: 2m (120000 ms)'), said.asked[0]!.detail);
  assert.match(said.asked[0]!.detail, /TTL now: [1-5](\.\d)?s \(\d+ ms\)/);
  assert.equal(said.asked[0]!.destructive, false);
  assert.deepEqual(said.info, ['Lockwise: extended lock:ext to 2m (120000 ms).']);

  const cancelled = scriptedUi({ ttlMs: undefined });
  assert.equal(await guardedWrite({ kind: 'extend', target, key: 'lock:ext' }, { session, writes: { allowed: true }, ui: cancelled.ui }), 'cancelled');
  assert.deepEqual(cancelled.said.asked, []);
});
