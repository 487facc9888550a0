// The listing reads each SCAN batch while the next SCAN is under way, all of one node's commands sharing
// pipelines. Over hundreds of small batches of mixed types and fences, while another client deletes and
// re-creates keys, every row must still be its own key's (value, type, fence), none twice, none lost.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { openLockConnection, type LockConnection, type LockRow } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

const LOCKS = 3000;
const FILLER = 3000;
/** Locks the other client deletes (every third) or turns into a hash (every 13th) while the listing runs. */
const deleted = (i: number) => i % 3 === 0;
const retyped = (i: number) => i % 13 === 0 && !deleted(i);
const kindOf = (i: number) => (i % 7 === 0 ? 'hash' : i % 11 === 0 ? 'zset' : 'string');
/** What each key holds, derived from its number, so a row read with another key's replies cannot match. */
const token = (i: number) => `owner-${i}`;
const field = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}:${i}`;

let server: RedisProcess;
let admin: Redis;
let conn: LockConnection;

before(async () => {
  server = await startRedis();
  admin = new Redis(server.port, '127.0.0.1');
  const p = admin.pipeline();
  for (let i = 0; i < LOCKS; i++) {
    const key = `lock:o:${i}`;
    if (kindOf(i) === 'hash') p.hset(key, field(i), '1');
    else if (kindOf(i) === 'zset') p.zadd(key, i, token(i));
    else p.set(key, token(i));
    if (i % 5 === 0) p.set(`{${key}}:fence`, String(i));
  }
  for (let i = 0; i < FILLER; i++) p.set(`filler:${i}`, 'x');
  await p.exec();
  conn = await openLockConnection({ url: server.url });
});

after(async () => {
  await conn?.close();
  admin?.disconnect();
  await server?.stop();
});

/** The row a lock must give: its value as first written or, once re-created, the hash the other client wrote. */
function assertOwnRow(row: LockRow, i: number): void {
  const original = [kindOf(i), kindOf(i) === 'hash' ? field(i) : token(i)];
  const accepted = retyped(i) ? [original, ['hash', field(i + LOCKS)]] : [original];
  const got = [row.type, row.holder.token];
  assert.ok(accepted.some((a) => a[0] === got[0] && a[1] === got[1]), `${row.key}: ${JSON.stringify(got)}`);
  assert.equal(row.fence?.value, i % 5 === 0 ? String(i) : undefined, `${row.key} fence`);
}

test('many overlapping batches with keys deleted and re-typed mid-scan: each row is its own key\'s, none twice, none lost', async () => {
  let listing = true;
  let changedDuringListing = 0;
  const changes = (async () => {
    for (let i = 0; i < LOCKS && listing; i++) {
      const key = `lock:o:${i}`;
      if (deleted(i)) await admin.del(key);
      else if (retyped(i)) await admin.multi().del(key).hset(key, field(i + LOCKS), '1').exec();
      else continue;
      if (listing) changedDuringListing++;
    }
  })();
  const result = await conn.list({ patterns: ['lock:o:*'], count: 20, rowCap: 2 * LOCKS }).finally(() => (listing = false));
  await changes;

  assert.ok(changedDuringListing > 0, 'keys changed while the listing ran');
  assert.equal(result.partial, false, JSON.stringify(result.errors));
  const keys = result.rows.map((r) => r.key);
  assert.equal(new Set(keys).size, keys.length, 'no key twice');
  const listed = new Map(result.rows.map((r) => [r.key, r]));
  for (let i = 0; i < LOCKS; i++) {
    const row = listed.get(`lock:o:${i}`);
    // SCAN returns every key that exists for the whole walk; a key deleted meanwhile may or may not be seen.
    if (!deleted(i)) assert.ok(row, `lock:o:${i} listed`);
    if (row) assertOwnRow(row, i);
  }
});
