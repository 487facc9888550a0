// The fence lookup against a real server: EXISTS over all candidates at once, halved only where some
// but not all exist, and GET only for the keys that exist, for every shape of subset; a name the ACL
// denies does not hide the others; Cluster groups never mix slots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { keySlot } from '../../client/src/locks/fences';
import { readExisting, slotGroups } from '../../client/src/locks/fence-lookup';
import { direct } from '../../client/src/locks/shared-pipeline';
import { callsOf, commandCounts } from '../helpers/command-stats';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

const NAMES = Array.from({ length: 40 }, (_, i) => `fence:n${i}`);
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

/** Seeds exactly `present` of NAMES (value = its index), looks all of NAMES up, and returns what was found and sent. */
async function lookUp(present: number[]): Promise<{ found: Map<string, string>; exists: number; gets: number }> {
  await admin.del(...NAMES);
  for (const i of present) await admin.set(NAMES[i]!, String(i));
  let found = new Map<string, string>();
  const counts = await commandCounts(admin, async () => (found = await readExisting(direct(admin), [NAMES])));
  return { found, exists: callsOf(counts, 'EXISTS'), gets: callsOf(counts, 'GET') };
}

test('none, one, some, all: exactly the existing keys are found, each with one GET; EXISTS only where it must split', async () => {
  const none = await lookUp([]);
  assert.deepEqual([none.found.size, none.exists, none.gets], [0, 1, 0]);

  const all = await lookUp(NAMES.map((_, i) => i));
  assert.deepEqual([all.found.size, all.exists, all.gets], [NAMES.length, 1, NAMES.length]);

  // One among 40: one EXISTS of all, then one per halving (the other half's count follows).
  for (const lone of [0, 17, 39]) {
    const one = await lookUp([lone]);
    assert.deepEqual([...one.found], [[NAMES[lone], String(lone)]]);
    assert.equal(one.gets, 1);
    assert.ok(one.exists <= 1 + Math.ceil(Math.log2(NAMES.length)), `${one.exists} EXISTS for one key among ${NAMES.length}`);
  }

  for (let trial = 0; trial < 20; trial++) {
    const present = NAMES.map((_, i) => i).filter(() => randomBytes(1)[0]! < 64);
    const some = await lookUp(present);
    assert.deepEqual([...some.found.keys()].sort(), present.map((i) => NAMES[i]).sort(), `subset ${present.join(',')}`);
    assert.equal(some.gets, present.length);
    assert.ok(some.exists < NAMES.length, `${some.exists} EXISTS for ${present.length} of ${NAMES.length}`);
  }
});

test('a name the ACL denies makes the group EXISTS fail; the names that may be read are still found', async () => {
  const password = randomBytes(8).toString('hex');
  await admin.call('ACL', 'SETUSER', 'fences', 'on', `>${password}`, 'resetkeys', '%R~fence:*', '-@all', '+exists', '+get');
  await admin.set('fence:a', '1');
  await admin.set('other:b', '2');
  await admin.set('fence:c', '3');
  const restricted = new Redis(server.port, '127.0.0.1', { username: 'fences', password });
  try {
    const found = await readExisting(direct(restricted), [['fence:a', 'other:b', 'fence:c', 'fence:missing']]);
    assert.deepEqual([...found].sort(), [['fence:a', '1'], ['fence:c', '3']]);
  } finally {
    restricted.disconnect();
  }
});

test('a user whose ACL lacks EXISTS (browse rules from before it was needed) still gets the fences, by GET', async () => {
  const password = randomBytes(8).toString('hex');
  await admin.call('ACL', 'SETUSER', 'old-rules', 'on', `>${password}`, 'resetkeys', '%R~fence:*', '-@all', '+get');
  await admin.set('fence:x', '4');
  await admin.del('fence:y');
  const restricted = new Redis(server.port, '127.0.0.1', { username: 'old-rules', password });
  try {
    assert.deepEqual([...(await readExisting(direct(restricted), [['fence:x', 'fence:y']]))], [['fence:x', '4']]);
  } finally {
    restricted.disconnect();
  }
});

test('a key of another type under a fence name is found to exist but yields no value', async () => {
  await admin.del('fence:h');
  await admin.hset('fence:h', 'f', '1');
  await admin.set('fence:s', '7');
  const found = await readExisting(direct(admin), [['fence:h', 'fence:s']]);
  assert.deepEqual([...found], [['fence:s', '7']]);
});

test('Cluster groups: each holds distinct keys of one slot, and together all of them', () => {
  const keys = ['{lock:a}:fence', 'redisson_lock_token:{lock:a}', 'fence:lock:a', 'fence:a', 'fence:a', '{lock:b}:fence'];
  const groups = slotGroups(keys, true);
  for (const g of groups) assert.equal(new Set(g.map(keySlot)).size, 1, JSON.stringify(g));
  assert.deepEqual(groups.flat().sort(), [...new Set(keys)].sort());
  assert.ok(groups.some((g) => g.length === 2 && g.includes('{lock:a}:fence') && g.includes('redisson_lock_token:{lock:a}')));
  assert.deepEqual(slotGroups(keys, false), [[...new Set(keys)]]);
});
