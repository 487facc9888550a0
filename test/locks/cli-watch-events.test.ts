// `lockwise locks --watch --json` as a real process against a real server: one JSON event per line
// (seen, renewed, holder-changed, acquired, held-long, released, expired), values exact, until Ctrl-C.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';

let server: RedisProcess;
let admin: Redis;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
});

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

interface Event {
  time: string;
  event: string;
  target: string;
  key: string;
  holder: { label: string; token?: string };
  previousHolder?: { label: string };
  pttl: number;
  heldMs: number;
  renewals: number;
}

test('locks --watch --json prints NDJSON events as the locks change, with exact values', async () => {
  const odd = 'w-1\x1b]0;PWNED\x07';
  await admin.set('lock:job', odd, 'PX', 60_000);
  await admin.set('lock:forever', 'cron-1');
  const child = spawn(
    process.execPath,
    ['dist/cli.js', 'locks', '--url', server.url, '--watch', '--json', '--interval', '1', '--held-long', '0.02'],
    { env: { PATH: process.env.PATH } },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const events = () => out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Event);
  const has = (event: string, key: string) => events().some((e) => e.event === event && e.key === key);
  try {
    await waitFor(() => has('seen', 'lock:job') && has('seen', 'lock:forever'), 'the first listing', { timeoutMs: 15_000 });
    const seen = events().find((e) => e.key === 'lock:job')!;
    assert.equal(seen.holder.token, odd, 'JSON keeps the exact value');
    assert.match(seen.time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(seen.target, `redis://127.0.0.1:${server.port}/0`);

    await waitFor(() => has('held-long', 'lock:forever'), 'held-long after 1.2 s', { timeoutMs: 15_000 });
    await admin.pexpire('lock:job', 120_000);
    await waitFor(() => has('renewed', 'lock:job'), 'the renewal', { timeoutMs: 15_000 });
    await admin.set('lock:job', 'w-2', 'PX', 60_000);
    await waitFor(() => has('holder-changed', 'lock:job'), 'the holder change', { timeoutMs: 15_000 });
    await admin.del('lock:forever');
    await waitFor(() => has('released', 'lock:forever'), 'the release', { timeoutMs: 15_000 });
    // Longer than one interval, so one listing sees it before it expires.
    await admin.set('lock:short', 's-1', 'PX', 2_500);
    await waitFor(() => has('acquired', 'lock:short'), 'lock:short acquired', { timeoutMs: 15_000 });
    await waitFor(() => has('expired', 'lock:short'), 'lock:short expired', { timeoutMs: 15_000 });
    assert.ok(!has('released', 'lock:short'), 'a TTL that ran out is an expiry, not a release');

    const changed = events().find((e) => e.event === 'holder-changed')!;
    assert.deepEqual([changed.previousHolder?.label, changed.holder.label, changed.renewals], [odd, 'w-2', 0]);
    const renewed = events().find((e) => e.event === 'renewed')!;
    assert.equal(renewed.renewals, 1);
    assert.ok(renewed.pttl > 60_000);
    child.kill('SIGINT');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});
