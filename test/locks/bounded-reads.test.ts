// A key under a lock pattern can be huge. The refusal path of release, the listing and the re-read
// read a bounded amount of it (HLEN + HRANDFIELD with a count, STRLEN + GETRANGE, ZCARD + ZRANGE) and
// say how much was not read; a key of a type no lock library uses is listed as such, not as a failure.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import Redis from 'ioredis';
import { HASH_FIELDS_READ, STRING_BYTES_READ } from '../../client/src/locks/bounded-read';
import { openLockConnection, type LockConnection } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

const FIELDS = 300_000;
let server: RedisProcess;
let admin: Redis;
let conn: LockConnection;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  // 300 HSETs of 1,000 fields each, in one pipeline.
  const pipeline = admin.pipeline();
  for (let i = 0; i < FIELDS; i += 1000) {
    const args: string[] = [];
    for (let j = i; j < i + 1000; j++) args.push(`field-${j}`, 'x'.repeat(24));
    pipeline.hset('lock:big', ...args);
  }
  await pipeline.exec();
  await admin.set('lock:bigstring', 'v'.repeat(5 * 1024 * 1024));
  await admin.rpush('lock:onlylist', 'a', 'b');
  conn = await openLockConnection({ url: server.url });
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await server?.stop();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli.js', ...args, '--url', server.url], { env: { PATH: process.env.PATH }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

test('the refusal of a release on a 300,000-field hash is small and says how many fields were not read', async () => {
  assert.equal(await admin.hlen('lock:big'), FIELDS);
  const r = await cli(['release', 'lock:big', '--token', 'field-nope']);
  assert.equal(r.code, 3, r.stderr);
  assert.ok(r.stdout.length < 20_000, `refusal output is ${r.stdout.length} bytes`);
  assert.match(r.stdout, new RegExp(`… ${FIELDS - HASH_FIELDS_READ} more fields not read\\); nothing was changed`));
  assert.match(r.stdout, /hash with 300000 fields/);
  assert.equal(await admin.hlen('lock:big'), FIELDS, 'nothing deleted');

  const json = await cli(['release', 'lock:big', '--token', 'field-nope', '--json']);
  assert.ok(json.stdout.length < 20_000, `audit record is ${json.stdout.length} bytes`);
});

test('the listing and the re-read take at most the bounds from a huge hash and string', async () => {
  const r = await cli(['locks', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.length < 40_000, `listing is ${r.stdout.length} bytes`);
  const rows = JSON.parse(r.stdout) as { key: string; raw: string; holder: { label: string; token?: string } }[];
  const big = rows.find((row) => row.key === 'lock:big')!;
  assert.match(big.raw, new RegExp(`… ${FIELDS - HASH_FIELDS_READ} more fields not read$`));
  const str = rows.find((row) => row.key === 'lock:bigstring')!;
  assert.equal(str.raw, `${'v'.repeat(STRING_BYTES_READ)} … ${5 * 1024 * 1024 - STRING_BYTES_READ} more bytes not read`);
  assert.equal(str.holder.token, undefined, 'a value read only in part is never offered as the token');

  const again = await conn.read('lock:big');
  assert.match(again!.raw, /more fields not read$/);
  assert.ok(again!.raw.length < 10_000);
  // The guarded compare never copies the big string: a wrong token of another length is refused at once.
  const refused = await conn.release('lock:bigstring', 'short');
  assert.ok(refused.outcome === 'token-changed' && refused.currentRaw.length < STRING_BYTES_READ + 100);
});

test('a list under a lock pattern is shown as a type no lock library uses; the exit code stays 0', async () => {
  const r = await cli(['locks', '--pattern', 'lock:only*']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout, /partial|error/);
  assert.match(r.stdout, /lock:onlylist\s+list\s+no expiry\s+NO EXPIRY\s+list: not a type any lock library uses/);
});
