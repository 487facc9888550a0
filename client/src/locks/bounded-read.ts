// Bounded reads of a lock's value. A key that matches a lock pattern can be anything (a 300,000-field
// hash, a 500 MB string), and a whole-value read of it blocks Redis and floods the output, so every read
// of a value (the listing, the re-read before a confirmation, a guarded script's "who holds it now")
// takes at most these amounts and says how big the value really is (STRLEN, HLEN, ZCARD).
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { pairs, type LockValue } from './holders';

/** Bytes read from a string value (GETRANGE); a token is far shorter. */
export const STRING_BYTES_READ = 4096;
/** Fields read from a hash (HRANDFIELD with a count: the whole hash when it has no more). */
export const HASH_FIELDS_READ = 100;
/** Members read from a zset (ZRANGE 0..n-1). */
export const ZSET_MEMBERS_READ = 100;

/**
 * Lua: `snapshot(key)` is {type, size, ...payload} read within the bounds above ({'none'} when the key is
 * gone). A big hash is sampled, so its "mode" field (a Redisson read-write lock) is added explicitly.
 */
export const SNAPSHOT_LUA = `
local function snapshot(key)
  local t = redis.call('TYPE', key)['ok']
  if t == 'string' then
    return {t, redis.call('STRLEN', key), redis.call('GETRANGE', key, 0, ${STRING_BYTES_READ - 1})}
  end
  local out = {t}
  local payload = {}
  if t == 'hash' then
    out[2] = redis.call('HLEN', key)
    payload = redis.call('HRANDFIELD', key, ${HASH_FIELDS_READ}, 'WITHVALUES')
    local mode = redis.call('HGET', key, 'mode')
    if mode and out[2] > ${HASH_FIELDS_READ} then payload[#payload + 1] = 'mode'; payload[#payload + 1] = mode end
  elseif t == 'zset' then
    out[2] = redis.call('ZCARD', key)
    payload = redis.call('ZRANGE', key, 0, ${ZSET_MEMBERS_READ - 1}, 'WITHSCORES')
  else
    out[2] = 0
  end
  for i = 1, #payload do out[#out + 1] = payload[i] end
  return out
end
`;

type Router = Redis | Cluster;

/** The value of `key` (of Redis type `type`) within the bounds. */
export async function readValueBounded(router: Router, key: string, type: string): Promise<LockValue> {
  if (type === 'string') {
    const [length, value] = await Promise.all([router.strlen(key), router.getrange(key, 0, STRING_BYTES_READ - 1)]);
    return { kind: 'string', value, length };
  }
  if (type === 'hash') {
    const [total, flat, mode] = await Promise.all([router.hlen(key), router.hrandfield(key, HASH_FIELDS_READ, 'WITHVALUES') as Promise<string[]>, router.hget(key, 'mode')]);
    const fields = Object.fromEntries(pairs(flat));
    if (mode !== null) fields.mode = mode;
    return { kind: 'hash', fields, total };
  }
  if (type === 'zset') {
    const [total, flat] = await Promise.all([router.zcard(key), router.zrange(key, 0, String(ZSET_MEMBERS_READ - 1), 'WITHSCORES')]);
    return { kind: 'zset', members: pairs(flat).map(([member, score]) => ({ member, score: Number(score) })), total };
  }
  return { kind: 'other', type };
}
