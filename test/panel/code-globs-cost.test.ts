// A Redis Locks refresh's cost must not grow with the number of key prefixes in the workspace's code:
// counted on a real server as SCAN calls (INFO commandstats, a count, not a time) for a listing with the
// globs chosen from 4 and from 500 code prefixes that share no leading text.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { DEFAULT_PATTERNS, openLockConnection } from '../../client/src/locks/index';
import { scanGlobsFromSites } from '../../client/src/panel/lock-sites-match';
import type { LockSite } from '../../server/src/protocol';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let server: RedisProcess;
let admin: Redis;

before(async () => {
  server = await startRedis({ args: ['--enable-debug-command', 'local'] });
  admin = new Redis(server.port, '127.0.0.1');
  await admin.call('DEBUG', 'POPULATE', '20000', 'filler', '16');
  await admin.set('lock:a', 'tok', 'PX', 60_000);
});

after(async () => {
  admin?.disconnect();
  await server?.stop();
});

const sites = (n: number): LockSite[] =>
  Array.from({ length: n }, (_, i) => ({ uri: 'file:///w/a.ts', range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, keyText: '', keyGlob: `p${i}x:job:*`, kind: 'set-nx', findings: [] }));

async function scanCalls(patterns: string[]): Promise<number> {
  const conn = await openLockConnection({ url: server.url });
  try {
    await admin.config('RESETSTAT');
    await conn.list({ patterns, count: 1000 });
    return Number(/cmdstat_scan:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
  } finally {
    await conn.close();
  }
}

test('SCAN calls per refresh are the same for 4 and for 500 code prefixes', async () => {
  const four = [...DEFAULT_PATTERNS, ...scanGlobsFromSites(sites(4), DEFAULT_PATTERNS)];
  const many = [...DEFAULT_PATTERNS, ...scanGlobsFromSites(sites(500), DEFAULT_PATTERNS)];
  assert.equal(many.length, four.length);
  const [a, b] = [await scanCalls(four), await scanCalls(many)];
  assert.ok(a > 0);
  assert.ok(b <= a, `500 prefixes: ${b} SCAN calls, 4 prefixes: ${a}`);
});
