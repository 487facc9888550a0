// What a Lua script does to a lock, read from its text: the counting-semaphore shapes (a token as a
// member of a sorted set) next to the string-key ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyLua, luaTraits } from '../../rules/engine/lua';

test('string keys: compare-and-delete, compare-and-expire, unconditional DEL', () => {
  assert.equal(classifyLua(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`), 'compare-and-delete');
  assert.equal(classifyLua(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`), 'compare-and-expire');
  assert.equal(classifyLua(`return redis.call('del', KEYS[1])`), 'unconditional-delete');
});

test('a sorted-set slot: taken (no owner check, the set\'s TTL), renewed by membership, left by its own entry', () => {
  const take = luaTraits(`local token = ARGV[1]
if redis.call('zcard', KEYS[1]) < tonumber(ARGV[2]) then redis.call('zadd', KEYS[1], ARGV[3], token) redis.call('pexpire', KEYS[1], ARGV[4]) return 1 end return 0`);
  assert.deepEqual([take.addsMember, take.comparesOwner, take.expires], [true, false, true]);
  assert.equal(classifyLua(`if redis.call('zscore', KEYS[1], ARGV[1]) then redis.call('zadd', KEYS[1], ARGV[2], ARGV[1]) redis.call('pexpire', KEYS[1], ARGV[3]) return 1 end return 0`), 'compare-and-expire');
  assert.equal(classifyLua(`redis.call('zrem', KEYS[1], ARGV[1]) if redis.call('zcard', KEYS[1]) == 0 then redis.call('del', KEYS[1]) end return 1`), 'compare-and-delete');
  assert.equal(classifyLua(`redis.call('srem', KEYS[1], ARGV[1]) return 1`), 'compare-and-delete');
});

test('removing the own entry and then the whole set, whoever else is in it, deletes unconditionally', () => {
  assert.equal(classifyLua(`redis.call('zrem', KEYS[1], ARGV[1]) redis.call('del', KEYS[1]) return 1`), 'unconditional-delete');
  assert.equal(classifyLua(`redis.call('zrem', KEYS[1], 'leader') return 1`), 'unconditional-delete');
});

test('scripts that name their arguments: a compare with the local, a SET built in a table and unpacked', () => {
  assert.equal(classifyLua(`local key = KEYS[1]
local holder = ARGV[1]
if redis.call('GET', key) == holder then return redis.call('DEL', key) end
return 0`), 'compare-and-delete');
  // A local that is not an argument compares nothing the caller owns.
  assert.equal(classifyLua(`local key = KEYS[1]
local current = redis.call('GET', key)
if current == current then return redis.call('DEL', key) end
return 0`), 'unconditional-delete');
  const take = luaTraits(`local args = {KEYS[1], ARGV[1], 'NX'}
if tonumber(ARGV[2]) > 0 then
  table.insert(args, 'PX')
  table.insert(args, ARGV[2])
end
return redis.call('SET', unpack(args)) and 1 or 0`);
  assert.deepEqual([take.acquires, take.acquiresWithTtl], [true, true]);
  assert.equal(classifyLua(`local args = {KEYS[1], ARGV[1], 'NX'}
return redis.call('SET', unpack(args)) and 1 or 0`), 'acquire-without-ttl');
});

test('SET NX spelled out: SET only when EXISTS answers 0 (or after returning when it is 1, or when GET has nothing)', () => {
  assert.equal(classifyLua(`if redis.call("EXISTS", KEYS[1]) == 0 then redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2]) return 1 else return 0 end`), 'atomic-acquire');
  assert.equal(classifyLua(`if redis.call('exists', KEYS[1]) == 1 then return 0 end redis.call('set', KEYS[1], ARGV[1]) return 1`), 'acquire-without-ttl');
  assert.equal(classifyLua(`if not redis.call('get', KEYS[1]) then redis.call('set', KEYS[1], ARGV[1], 'EX', 30) return 1 end return 0`), 'atomic-acquire');
  // A renewal that SETs only while the key holds the caller's value takes nothing.
  assert.equal(classifyLua(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], ARGV[1], 'XX', 'PX', ARGV[2]) end return 0`), 'compare-and-expire');
  // A SET whatever EXISTS said is no acquire.
  assert.equal(classifyLua(`local had = redis.call('exists', KEYS[1]) redis.call('set', KEYS[1], ARGV[1]) return had`), 'other');
});

test('a queue lock: the head of a list compared with the token, then popped, is a compare-and-delete', () => {
  assert.equal(classifyLua(`local head = redis.call('lindex', KEYS[1], 0)
if head == ARGV[1] then redis.call('lpop', KEYS[1]) return 'OK' end return 'NOT_HELD'`), 'compare-and-delete');
  assert.equal(classifyLua(`redis.call('lpop', KEYS[1]) return 'OK'`), 'unconditional-delete');
});

test('an argument named through a conversion (local now = tonumber(ARGV[1])) is still the caller\'s: a window entry added by it is a member', () => {
  const window = luaTraits(`local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, now)
  redis.call('EXPIRE', KEYS[1], 3600)
  return 1
end
return 0`);
  assert.deepEqual([window.addsMember, window.comparesOwner, window.expires], [true, false, true]);
});

test('a JSON holder record whose owner field is searched for the argument (string.find) before the DEL compares the owner', () => {
  assert.equal(classifyLua(`local owner = ARGV[1]
local current = redis.call('GET', KEYS[1])
if current then
  local record = cjson.decode(current)
  if string.find(record.owner, owner, 1, true) then redis.call('DEL', KEYS[1]) return 1 end
  return 0
end
return 1`), 'compare-and-delete');
  assert.equal(classifyLua(`local record = cjson.decode(redis.call('GET', KEYS[1]))
if string.find(record.owner, 'worker', 1, true) then redis.call('DEL', KEYS[1]) end
return 1`), 'unconditional-delete');
});

test('a holder record compared, then written again with SETEX: an owner-checked renewal', () => {
  assert.equal(classifyLua(`local owner = ARGV[1]
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).owner == owner then redis.call('SETEX', KEYS[1], tonumber(ARGV[2]), ARGV[3]) return 1 end
return 0`), 'compare-and-expire');
});
