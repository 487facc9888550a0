// Text from Redis and from file names is shown with its control characters escaped in pretty output
// (so a lock value cannot retitle or clear the operator's terminal, nor a key fake rows), while JSON
// stays exact. Real processes against a real server, real files with hostile names.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { escapeControlChars } from '../../client/src/locks/display-text';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { makeTree, runCli, SETNX_THEN_EXPIRE } from './cli-process';

const VALUE = '\x1b]0;PWNED\x07\x1b[2J\x9b31m';
const KEY = 'lock:\r\nFAKE: row';
let server: RedisProcess;
let admin: Redis;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  await admin.set(KEY, VALUE, 'PX', 60_000);
});

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli.js', ...args, '--url', server.url], { env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

/** No C0 control but the line feeds that end lines, no DEL, no C1 control. */
function assertInert(text: string): void {
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(text));
}

test('escapeControlChars shows controls, separators, bidi overrides and backslashes as escapes', () => {
  assert.equal(escapeControlChars(VALUE), '\\x1b]0;PWNED\\x07\\x1b[2J\\x9b31m');
  assert.equal(escapeControlChars(KEY), 'lock:\\r\\nFAKE: row');
  assert.equal(escapeControlChars('a\tb\u2028c\u202ed\u0000\\'), 'a\\tb\\u{2028}c\\u{202e}d\\x00\\\\');
  assert.equal(escapeControlChars('lock:orders:42 héllo ✓'), 'lock:orders:42 héllo ✓');
});

test('locks, release and extend print the key and value escaped; --json keeps them exact', async () => {
  const [table, json, release, extend] = await Promise.all([
    cli(['locks']),
    cli(['locks', '--json']),
    cli(['release', KEY, '--token', 'other']),
    cli(['extend', KEY, '--token', 'other', '--ttl', '1000']),
  ]);
  assert.equal(table.code, 0, table.stderr);
  assertInert(table.stdout);
  assert.match(table.stdout, /^lock:\\r\\nFAKE: row\s+string/m);
  assert.match(table.stdout, /\\x1b\]0;PWNED\\x07\\x1b\[2J/);
  assert.equal(table.stdout.split('\n').filter((l) => l.startsWith('FAKE')).length, 0, 'no faked row');

  const rows = JSON.parse(json.stdout) as { key: string; raw: string }[];
  assert.deepEqual(rows.map((r) => [r.key, r.raw]), [[KEY, VALUE]]);

  for (const r of [release, extend]) {
    assert.equal(r.code, 3, r.stderr);
    assertInert(r.stdout);
    assert.match(r.stdout, /^lock:\\r\\nFAKE: row is now held by .*\(value \\x1b\]0;PWNED\\x07\\x1b\[2J\\x9b31m\); nothing was changed\n$/);
  }
  assert.equal(await admin.get(KEY), VALUE);
});

test('locks --watch frames are escaped too', async () => {
  const child = spawn(process.execPath, ['dist/cli.js', 'locks', '--url', server.url, '--watch', '--interval', '1'], { env: { PATH: process.env.PATH } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await waitFor(() => (out.match(/refreshed /g) ?? []).length >= 2, 'two refreshes', { timeoutMs: 15_000 });
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0);
  assertInert(out);
  assert.match(out, /lock:\\r\\nFAKE: row/);
});

test('check shows a file name with control characters escaped; JSON keeps the name exact', () => {
  const name = 'job\x1b]0;PWNED\x07.ts';
  const tree = makeTree({ [name]: SETNX_THEN_EXPIRE, 'other\x1b[2J.js': Buffer.from([0x00, 0x01]) });
  try {
    const pretty = runCli(['check', '.'], tree.root);
    assert.equal(pretty.status, 1, pretty.stderr);
    assertInert(pretty.stdout);
    assert.match(pretty.stdout, /^job\\x1b\]0;PWNED\\x07\.ts$/m);
    assert.match(pretty.stdout, /other\\x1b\[2J\.js: skipped: binary file/);
    const json = JSON.parse(runCli(['check', '.', '--format', 'json'], tree.root).stdout) as { findings: { file: string }[] };
    assert.ok(json.findings.some((f) => f.file === name));
  } finally {
    tree.remove();
  }
});
