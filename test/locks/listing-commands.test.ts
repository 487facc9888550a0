// Which commands a listing sends, counted by the server (INFO commandstats) and seen by MONITOR: one
// read-only script per SCAN batch, in which a string lock costs its GETRANGE and PTTL (a key of another
// type also a TYPE, unless a refresh knows it), and fences are read only where the fence key exists. A user
// who may not run the script gets the same rows the per-command way at the same cost per key, and a
// refresh that knows the previous types sends no command that fails, either way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { BROWSE_ACL_RULES, openLockConnection, type LockConnection, type LockRow } from '../../client/src/locks/index';
import { callsOf, commandCounts, type CommandCount } from '../helpers/command-stats';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

const STRING_LOCKS = 60;
const FILLER = 2000;
let server: RedisProcess;
let admin: Redis;
/** A user with the browse rules but not +eval_ro (nor +evalsha_ro): the listing reads key by key. */
const NO_SCRIPT = { username: 'noscript', password: `pw-${randomBytes(8).toString('hex')}` };
/** A user with the browse rules from before +evalsha_ro: the script goes as text every time. */
const TEXT_ONLY = { username: 'textonly', password: `pw-${randomBytes(8).toString('hex')}` };

/** Fence keys that exist, by the lock they belong to (the Redisson one beside a string lock does not count). */
const FENCES: Record<string, { key: string; value: string }> = {
  'lock:s:3': { key: '{lock:s:3}:fence', value: '3' },
  'lock:s:7': { key: 'fence:lock:s:7', value: '7' },
  'lock:s:11': { key: 'fence:s:11', value: '11' },
  'lock:r': { key: 'redisson_lock_token:{lock:r}', value: '9' },
};
/** Keys under fence names that are not shown as fences: not a counter, or a Redisson counter beside a string lock. */
const NOT_FENCES = { '{lock:s:13}:fence': 'not-a-number', 'redisson_lock_token:{lock:s:20}': '5' };
/** The script looks for a Redisson counter only beside a hash, the one type it counts for. */
const SCRIPT_SKIPS = 'redisson_lock_token:{lock:s:20}';
/** The fence-named keys that exist and that a listing reads with GET (by script, or per command). */
const readFenceNames = (scripted: boolean) =>
  [...Object.values(FENCES).map((f) => f.key), ...Object.keys(NOT_FENCES)].filter((k) => !scripted || k !== SCRIPT_SKIPS).sort();

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  const p = admin.pipeline();
  for (let i = 0; i < STRING_LOCKS; i++) p.set(`lock:s:${i}`, `lw1:web-${i}:${i}:${randomBytes(16).toString('hex')}`, 'PX', 60_000);
  for (let i = 0; i < FILLER; i++) p.set(`filler:${i}`, 'x');
  p.hset('lock:r', `${randomUUID()}:1`, '1').pexpire('lock:r', 60_000);
  p.zadd('semaphore:pool', Date.now(), randomUUID());
  for (const { key, value } of Object.values(FENCES)) p.set(key, value);
  for (const [key, value] of Object.entries(NOT_FENCES)) p.set(key, value);
  await p.exec();
  await admin.call('ACL', 'SETUSER', NO_SCRIPT.username, 'on', `>${NO_SCRIPT.password}`, ...BROWSE_ACL_RULES.replace(' +eval_ro +evalsha_ro', '').split(' '));
  await admin.call('ACL', 'SETUSER', TEXT_ONLY.username, 'on', `>${TEXT_ONLY.password}`, ...BROWSE_ACL_RULES.replace(' +evalsha_ro', '').split(' '));
});

/** Runs `work` on a fresh connection, by script or as the user who may not run it (or a given user). */
async function withConnection<T>(scripted: boolean | { username: string; password: string }, work: (c: LockConnection) => Promise<T>): Promise<T> {
  const fresh = await openLockConnection({ url: server.url, ...(scripted === true ? {} : scripted === false ? NO_SCRIPT : scripted) });
  try {
    return await work(fresh);
  } finally {
    await fresh.close();
  }
}

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

function assertFences(rows: LockRow[]): void {
  for (const row of rows) assert.deepEqual(row.fence, FENCES[row.key], `${row.key} fence`);
}

interface Seen {
  command: string;
  args: string[];
  /** Run inside a script, as opposed to sent by the client. */
  lua: boolean;
}

/** Every command the server ran during `work`, from MONITOR. */
async function monitorDuring(work: () => Promise<unknown>): Promise<Seen[]> {
  const monitor = await admin.monitor();
  const seen: Seen[] = [];
  let done = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const command = String(args[0]).toLowerCase();
    if (command === 'echo') done = true;
    else seen.push({ command, args: args.slice(1), lua: source === 'lua' });
  });
  try {
    await work();
    await admin.echo('end of listing');
    await waitFor(() => done, 'MONITOR to catch up');
  } finally {
    monitor.disconnect();
  }
  return seen;
}

/** The keys the listing read with GET (sent or run inside a script). */
const getsDuring = async (work: () => Promise<unknown>) => (await monitorDuring(work)).filter((s) => s.command === 'get').map((s) => s.args[0]!);
/** The commands the client itself sent. */
const sentDuring = async (work: () => Promise<unknown>) => (await monitorDuring(work)).filter((s) => !s.lua).map((s) => s.command);

for (const scripted of [true, false]) {
  test(`fences are shown exactly where they exist, and GET goes only to fence keys that exist, once each (${scripted ? 'script' : 'per command'})`, async () => {
    let rows: LockRow[] = [];
    const gets = await getsDuring(() => withConnection(scripted, async (c) => (rows = (await c.list({ count: 50 })).rows)));
    assert.equal(rows.length, STRING_LOCKS + 2);
    assertFences(rows);
    assert.deepEqual(gets.sort(), readFenceNames(scripted));
  });
}

/** Commands the client sent during `work` other than the walk and its scripts: none when every batch was read by script. */
const perKeyCommandsDuring = async (work: () => Promise<unknown>) =>
  (await sentDuring(work)).filter((cmd) => !['client', 'info', 'ping', 'scan', 'eval_ro', 'evalsha_ro'].includes(cmd));

/** Scripts run: by text (EVAL_RO) and by SHA1 (EVALSHA_RO). */
const scripts = (counts: CommandCount[]) => callsOf(counts, 'EVAL_RO') + callsOf(counts, 'EVALSHA_RO');

test('a listing sends one read-only script per SCAN batch that found keys; in it per key its GETRANGE and PTTL, TYPE only for a key that is not a string, no size of a small value', async () => {
  const counts = await commandCounts(admin, () => withConnection(true, async (c) => assertFences((await c.list({ count: 50, patterns: ['lock:*'] })).rows)));
  const locks = STRING_LOCKS + 1;
  assert.ok(scripts(counts) >= 1 && scripts(counts) <= callsOf(counts, 'SCAN'));
  assert.equal(callsOf(counts, 'TYPE'), 1, 'the hash');
  assert.equal(callsOf(counts, 'PTTL'), locks);
  assert.equal(callsOf(counts, 'GETRANGE'), locks, 'every key is read as a string first, as nearly every lock is one');
  assert.equal(callsOf(counts, 'HRANDFIELD'), 1);
  assert.equal(callsOf(counts, 'STRLEN') + callsOf(counts, 'HLEN') + callsOf(counts, 'HGET'), 0, 'small values need no size of their own');
  assert.deepEqual(
    counts.filter((c) => c.failed > 0 || c.rejected > 0),
    [{ command: 'GETRANGE', calls: locks, failed: 1, rejected: 0 }],
    'only the string read of the hash fails, as in the per-command path',
  );
});

test('one batch is one script: a SCAN that returns every key sends a single script', async () => {
  const counts = await commandCounts(admin, () => withConnection(true, async (c) => assertFences((await c.list({ count: 100_000 })).rows)));
  // One SCAN per default pattern, and a script for each pattern that found keys (lock:* and semaphore:*).
  assert.equal(scripts(counts), 2);
  assert.equal(callsOf(counts, 'GET'), readFenceNames(true).length, 'fences were read inside the script where they exist');
  assert.deepEqual(await perKeyCommandsDuring(() => withConnection(true, (c) => c.list({ count: 100_000 }))), [], 'no command of its own per key or per fence');
});

test('the fence candidates of a batch are probed with one EXISTS for them all, split only where some exist', async () => {
  const counts = await commandCounts(admin, () => withConnection(true, async (c) => assertFences((await c.list({ count: 100_000, patterns: ['lock:*'] })).rows)));
  // Three names beside each lock, four beside the hash; five of them exist (the fences and the key that is
  // not one; the Redisson name beside a string lock is not looked at).
  const names = 3 * (STRING_LOCKS + 1) + 1;
  const existing = readFenceNames(true).length;
  assert.ok(callsOf(counts, 'EXISTS') <= 1 + existing * Math.ceil(Math.log2(names)), `${callsOf(counts, 'EXISTS')} EXISTS for ${names} names`);
  assert.equal(callsOf(counts, 'GET'), existing);
});

test('a refresh by script with the previous rows reads each key as its known type: no TYPE, and no command fails', async () => {
  await withConnection(true, async (c) => {
    const previous = (await c.list({ count: 50 })).rows;
    let rows: LockRow[] = [];
    const counts = await commandCounts(admin, async () => assertFences((rows = (await c.list({ count: 50, previous })).rows)));
    assert.equal(callsOf(counts, 'TYPE'), 0);
    assert.equal(callsOf(counts, 'PTTL'), STRING_LOCKS + 2);
    assert.equal(callsOf(counts, 'GETRANGE'), STRING_LOCKS);
    assert.deepEqual(counts.filter((x) => x.failed > 0 || x.rejected > 0), []);
    const strip = (r: LockRow) => [r.key, r.type, r.holder.label, r.raw, r.fence?.value];
    assert.deepEqual(rows.map(strip), previous.map(strip));
  });
});

// The text goes until the server has answered one script (the batches in flight meanwhile send it too).
test('the script goes as text until the server has it, then by its SHA1; after SCRIPT FLUSH as text again; a user without +evalsha_ro sends the text', async () => {
  await withConnection(true, async (c) => {
    const first = await commandCounts(admin, async () => assertFences((await c.list({ count: 50, patterns: ['lock:*'] })).rows));
    assert.ok(callsOf(first, 'EVAL_RO') >= 1 && callsOf(first, 'EVAL_RO') < callsOf(first, 'EVALSHA_RO'), JSON.stringify(first));
    assert.deepEqual(first.filter((x) => (x.failed > 0 && x.command !== 'GETRANGE') || x.rejected > 0), []);
    await admin.script('FLUSH');
    let flushed: CommandCount[] = [];
    const sent = await perKeyCommandsDuring(async () => {
      flushed = await commandCounts(admin, async () => assertFences((await c.list({ count: 50, patterns: ['lock:*'] })).rows));
    });
    assert.ok(callsOf(flushed, 'EVAL_RO') >= 1 && callsOf(flushed, 'EVAL_RO') < callsOf(flushed, 'EVALSHA_RO'), JSON.stringify(flushed));
    assert.deepEqual(sent, [], 'every key read in a script, none key by key');
  });
  await withConnection(TEXT_ONLY, async (c) => {
    const list = () => c.list({ count: 50, patterns: ['lock:*'] }).then((r) => assertFences(r.rows));
    assert.deepEqual(await perKeyCommandsDuring(list), [], 'every key read in a script');
    let again: CommandCount[] = [];
    assert.deepEqual(await perKeyCommandsDuring(async () => (again = await commandCounts(admin, list))), [], 'every key read in a script');
    assert.ok(callsOf(again, 'EVAL_RO') >= 2);
    assert.equal(callsOf(again, 'EVALSHA_RO') + (again.find((x) => x.command === 'EVALSHA_RO')?.rejected ?? 0), 0, 'the refused SHA1 is not tried again');
  });
});

test('without +eval_ro: a first listing sends per key its GETRANGE and PTTL; TYPE (and a re-read) only for the keys that are not strings; the next listing does not try the script again', async () => {
  await withConnection(false, async (c) => {
    const counts = await commandCounts(admin, async () => assertFences((await c.list({ count: 50 })).rows));
    const locks = STRING_LOCKS + 2;
    assert.equal(callsOf(counts, 'GETRANGE'), locks);
    assert.equal(callsOf(counts, 'TYPE'), 2, 'the hash and the zset');
    assert.equal(callsOf(counts, 'PTTL'), locks + 2, 'the re-read of the hash and the zset carries its own PTTL');
    assert.equal(callsOf(counts, 'STRLEN'), 0, 'every value was shorter than the range read');
    assert.equal(callsOf(counts, 'HLEN') + callsOf(counts, 'ZCARD') + callsOf(counts, 'HGET'), 0, 'small values need no size of their own');
    assert.equal(callsOf(counts, 'GET'), Object.keys(FENCES).length + Object.keys(NOT_FENCES).length);
    assert.ok((counts.find((x) => x.command === 'EVAL_RO')?.rejected ?? 0) >= 1, 'the script was tried');
    const again = await commandCounts(admin, async () => assertFences((await c.list({ count: 50 })).rows));
    assert.equal(again.find((x) => x.command === 'EVAL_RO'), undefined);
  });
});

test('without +eval_ro: a refresh with the previous rows reads each key as its known type: no TYPE, and no command fails', async () => {
  await withConnection(false, async (c) => {
    const previous = (await c.list({ count: 50 })).rows;
    const counts = await commandCounts(admin, async () => assertFences((await c.list({ count: 50, previous })).rows));
    assert.equal(callsOf(counts, 'TYPE'), 0);
    assert.equal(callsOf(counts, 'GETRANGE'), STRING_LOCKS);
    assert.equal(callsOf(counts, 'HRANDFIELD'), 1);
    assert.equal(callsOf(counts, 'ZRANGE'), 1);
    assert.deepEqual(counts.filter((c) => c.failed > 0 || c.rejected > 0), []);
  });
});

for (const scripted of [true, false]) {
  test(`a key whose type changed since the previous listing is read as its new type (${scripted ? 'script' : 'per command'})`, () =>
    withConnection(scripted, async (conn) => {
      const previous = (await conn.list()).rows;
      await admin.del('lock:s:1', 'lock:r', 'semaphore:pool');
      await admin.hset('lock:s:1', `${randomUUID()}:5`, '1');
      await admin.set('lock:r', 'WEB-SERVER-01');
      await admin.rpush('semaphore:pool', 'a');
      try {
        const rows = new Map((await conn.list({ previous })).rows.map((r) => [r.key, r]));
        assert.equal(rows.get('lock:s:1')?.type, 'hash');
        assert.match(rows.get('lock:s:1')!.holder.label, /thread 5/);
        assert.equal(rows.get('lock:r')?.type, 'string');
        assert.equal(rows.get('lock:r')?.holder.token, 'WEB-SERVER-01');
        assert.equal(rows.get('semaphore:pool')?.type, 'list');
        assert.equal(rows.get('semaphore:pool')?.state, 'no-expiry');
      } finally {
        await admin.del('lock:s:1', 'lock:r', 'semaphore:pool');
        await admin.set('lock:s:1', 'lw1:web-1:1:0123456789abcdef0123456789abcdef', 'PX', 60_000);
        await admin.hset('lock:r', `${randomUUID()}:1`, '1');
        await admin.zadd('semaphore:pool', Date.now(), randomUUID());
      }
    }),
  );
}
