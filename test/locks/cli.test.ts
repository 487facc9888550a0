// `lockwise locks|release|extend` as real processes (node dist/cli.js) against a real server: output,
// JSON shape, exit codes, --watch until Ctrl-C, and the password never printed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { seedAllFormats, type Seeded } from './seed';

const password = 'cli-Secret-77';
let server: RedisProcess;
let admin: Redis;
let seeded: Seeded;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = { REDIS_PASSWORD: password }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli.js', ...args], { env: { PATH: process.env.PATH, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
    });
  });
}

const noSecret = (r: Run) => assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password), 'password printed');

before(async () => {
  server = await startRedis({ args: ['--requirepass', password] });
  admin = new Redis(server.port, '127.0.0.1', { password });
  seeded = await seedAllFormats(admin);
});

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

// Independent invocations run side by side: each process start costs about a second on a busy machine.
test('--help for each command exits 0 and documents the exit codes', async () => {
  const cases = [
    ['locks', /Exit codes: 0 listed/],
    ['release', /0 released, 3 token changed \(nothing deleted\), 4 already gone/],
    ['extend', /0 extended, 3 token changed/],
  ] as const;
  const runs = await Promise.all(cases.map(([name]) => cli([name, '--help'])));
  runs.forEach((r, i) => {
    assert.equal(r.code, 0);
    assert.match(r.stdout, cases[i]![1]);
    assert.match(r.stdout, /REDIS_PASSWORD/);
  });
});

test('locks prints the table with every seeded lock, flags locks without expiry, exits 0', async () => {
  const r = await cli(['locks', '--url', server.url]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^KEY\s+TYPE\s+TTL\s+STATE\s+HOLDER\s+FENCE$/m);
  for (const lock of seeded.locks) assert.match(r.stdout, new RegExp(`^${lock.key.replace(/[{}]/g, '\\$&')}\\s`, 'm'));
  assert.match(r.stdout, /^lock:orders\s+string\s+\d+\.\d s\s+held\s+web-1 pid 4242\s+17$/m);
  assert.match(r.stdout, /^lock:legacy\s+string\s+no expiry\s+NO EXPIRY\s+1$/m);
  assert.match(r.stdout, new RegExp(`${seeded.locks.length} locks on redis://127\\.0\\.0\\.1:${server.port}/0`));
  assert.match(r.stdout, /2 locks have no expiry and will never free themselves \(rule require-ttl\)/);
  noSecret(r);
});

test('locks --json prints rows {key, type, pttl, holder, raw, state, fence?}; --limit flags partial on stderr', async () => {
  const [r, capped] = await Promise.all([
    cli(['locks', '--url', server.url, '--json', '--pattern', 'lock:orders', '--pattern', 'lock:legacy']),
    cli(['locks', '--url', server.url, '--json', '--limit', '2']),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
  assert.deepEqual(rows.map((row) => Object.keys(row)), [
    ['key', 'type', 'pttl', 'holder', 'raw', 'state'],
    ['key', 'type', 'pttl', 'holder', 'raw', 'state', 'fence'],
  ]);
  assert.deepEqual(rows[0], { key: 'lock:legacy', type: 'string', pttl: -1, holder: { format: 'plain', label: '1', token: '1' }, raw: '1', state: 'no-expiry' });

  assert.equal(capped.code, 0);
  assert.equal(JSON.parse(capped.stdout).length, 2);
  assert.match(capped.stderr, /partial: \d+ keys scanned/);
});

test('a wrong or missing password is exit 2 with an explanation, and the password is never printed', async () => {
  const [wrong, inUrl, none, usage] = await Promise.all([
    cli(['locks', '--url', server.url], { REDIS_PASSWORD: `${password}-wrong` }),
    cli(['locks', '--url', `redis://:${password}x@127.0.0.1:${server.port}`], {}),
    cli(['locks', '--url', server.url], {}),
    cli(['locks', '--url', server.url, '--count', 'many']),
  ]);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /Authentication failed for user "default"/);
  assert.ok(!wrong.stderr.includes(`${password}-wrong`));
  assert.equal(inUrl.code, 2);
  noSecret(inUrl);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /requires a password and none was sent/);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--count must be a whole number/);
});

test('release: 0 released, 3 token changed (names the holder, deletes nothing), 4 gone, 2 errors', async () => {
  await admin.set('lock:cli', 'lw1:ops-1:31:00000000000000000000000000000001', 'PX', 60_000);
  const changed = await cli(['release', 'lock:cli', '--url', server.url, '--token', 'lw1:ops-9:99:00000000000000000000000000000009']);
  assert.equal(changed.code, 3);
  assert.match(changed.stdout, /lock:cli is now held by ops-1 pid 31 \(value lw1:ops-1:31:0+1\); nothing was changed/);
  assert.equal(await admin.exists('lock:cli'), 1);

  const released = await cli(['release', 'lock:cli', '--url', server.url, '--token', 'lw1:ops-1:31:00000000000000000000000000000001']);
  assert.equal(released.code, 0, released.stderr);
  assert.match(released.stdout, /released lock:cli \(was held by ops-1 pid 31\)/);
  assert.equal(await admin.exists('lock:cli'), 0);

  const [gone, noToken, refused] = await Promise.all([
    cli(['release', 'lock:cli', '--url', server.url, '--token', 'x', '--json']),
    cli(['release', 'lock:cli', '--url', server.url]),
    cli(['release', 'lock:cli', '--url', 'redis://127.0.0.1:1', '--token', 'x']),
  ]);
  assert.equal(gone.code, 4);
  assert.equal(JSON.parse(gone.stdout).result, 'gone');
  assert.equal(noToken.code, 2, 'no --token');
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Connection refused by 127\.0\.0\.1:1/);
});

test('extend: 0 extended with the new TTL, 3 token changed, 4 gone, 2 without --ttl', async () => {
  await admin.set('lock:ext', 'tok-a', 'PX', 5_000);
  const ok = await cli(['extend', 'lock:ext', '--url', server.url, '--token', 'tok-a', '--ttl', '90000']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /extended lock:ext to 90000 ms/);
  assert.ok((await admin.pttl('lock:ext')) > 80_000);
  const [changed, gone, usage] = await Promise.all([
    cli(['extend', 'lock:ext', '--url', server.url, '--token', 'tok-b', '--ttl', '1000']),
    cli(['extend', 'lock:none', '--url', server.url, '--token', 'tok-a', '--ttl', '1000']),
    cli(['extend', 'lock:ext', '--url', server.url, '--token', 'tok-a']),
  ]);
  assert.equal(changed.code, 3);
  assert.equal(gone.code, 4);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--ttl <ms> is required/);
});

test('extend refuses a --ttl over 24 h unless --allow-long-ttl, and never one past 2^53', async () => {
  await admin.set('lock:long', 'tok-l', 'PX', 60_000);
  const [huge, day, hugeAllowed] = await Promise.all([
    cli(['extend', 'lock:long', '--url', server.url, '--token', 'tok-l', '--ttl', '99999999999999999']),
    cli(['extend', 'lock:long', '--url', server.url, '--token', 'tok-l', '--ttl', '86400001']),
    cli(['extend', 'lock:long', '--url', server.url, '--token', 'tok-l', '--ttl', '99999999999999999', '--allow-long-ttl']),
  ]);
  for (const r of [huge, day]) {
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is over 24 hours \(86400000 ms\).*--allow-long-ttl/);
  }
  assert.equal(hugeAllowed.code, 2);
  assert.match(hugeAllowed.stderr, /positive whole number of milliseconds/);
  assert.ok((await admin.pttl('lock:long')) <= 60_000, 'the TTL is untouched');
  const allowed = await cli(['extend', 'lock:long', '--url', server.url, '--token', 'tok-l', '--ttl', '172800000', '--allow-long-ttl']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.ok((await admin.pttl('lock:long')) > 86_400_000);
});

test('locks --watch keeps refreshing until Ctrl-C (SIGINT), then exits 0', async () => {
  const child = spawn(process.execPath, ['dist/cli.js', 'locks', '--url', server.url, '--watch', '--interval', '1', '--pattern', 'lock:orders'], {
    env: { PATH: process.env.PATH, REDIS_PASSWORD: password },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await waitFor(() => (out.match(/refreshed /g) ?? []).length >= 2, 'two refreshes', { timeoutMs: 15_000 });
    assert.match(out, /lock:orders\s+string/);
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.ok(!out.includes(password));
  } finally {
    child.kill('SIGKILL');
  }
});
