// Lua for a guarded release/extend of a Redisson lock, written after Redisson's own unlock and renewal
// scripts (RedissonLock, RedissonReadLock, RedissonWriteLock) but for exactly the one holder named:
// - RLock: a hash holding one field `<client-uuid>:<thread-id>` = re-entry count. Release deletes it and
//   publishes 0 on `redisson_lock__channel:{N}`.
// - RReadWriteLock: field "mode" = read|write, one field per holder = re-entry count; a writer's field ends
//   in ":write". Each read entry has a timeout key `{N}:<holder>:rwlock_timeout:<i>` (i = 1..count).
//   Releasing a reader deletes its timeout keys and its field; if other holders remain, the hash's expiry
//   becomes the longest remaining timeout, else the hash is deleted and 0 published on
//   `redisson_rwlock:{N}`. Releasing the writer deletes its field; the hash is deleted (publishing 1, the
//   read-unlock message) when only "mode" is left, else the writer's own read entries keep it as "read".
// Unlike Redisson (which frees one re-entry per call), the named holder is freed entirely, and nothing
// here ever removes a holder it was not given: where Redisson would delete a hash whose other readers
// have no live timeout key, the hash is left as it is. "mode" and any field whose value is not a re-entry
// count are refused ({-3, reason}), as is a hash too big to walk within one short script.
// KEYS[1] lock; ARGV[1] holder field, ARGV[2] RLock channel, ARGV[3] read-write channel, ARGV[4] the
// timeout keys' prefix ({N}, or N when the name has braces), ARGV[5] new TTL in ms (extend).

/** Fields a read-write lock hash may have for a guarded script to walk it. */
export const REDISSON_MAX_FIELDS = 1000;
/** Timeout keys (re-entries summed over holders) a guarded script may look up. */
export const REDISSON_MAX_TIMEOUT_KEYS = 10_000;

/** Needs SNAPSHOT_LUA's `snapshot` and the `refuse` function defined before it. */
export const REDISSON_LUA = `
local function isCount(v)
  local n = tonumber(v)
  return n ~= nil and n >= 1 and n % 1 == 0 and n
end

-- {reply = ...} when ARGV[1] is not a holder of KEYS[1] (or the hash cannot be handled), else the holder.
local function holder(key, field)
  if redis.call('TYPE', key)['ok'] ~= 'hash' then return {reply = refuse(key)} end
  if field == 'mode' then return {reply = {-3, '"mode" is the read-write lock\\'s mode field, not a holder'}} end
  local value = redis.call('HGET', key, field)
  if not value then return {reply = refuse(key)} end
  local count = isCount(value)
  if not count then return {reply = {-3, field .. ' holds "' .. string.sub(value, 1, 40) .. '", not a re-entry count: it is not a Redisson lock holder'}} end
  local size = redis.call('HLEN', key)
  local mode = redis.call('HGET', key, 'mode')
  if not mode then
    if size ~= 1 then return {reply = {-3, 'a hash with ' .. size .. ' fields and no "mode" field is not a Redisson lock'}} end
    return {count = count, plain = true}
  end
  if mode ~= 'read' and mode ~= 'write' then return {reply = {-3, 'its "mode" field is "' .. string.sub(mode, 1, 40) .. '", neither read nor write'}} end
  local write = string.sub(field, -6) == ':write'
  if write and mode ~= 'write' then return {reply = {-3, field .. ' names a writer but the lock is in read mode'}} end
  if size > ${REDISSON_MAX_FIELDS} then return {reply = {-3, 'it has ' .. size .. ' fields, more than the ${REDISSON_MAX_FIELDS} a guarded script walks'}} end
  local entries = 0
  local flat = redis.call('HGETALL', key)
  for i = 1, #flat, 2 do
    if flat[i] ~= 'mode' then entries = entries + (isCount(flat[i + 1]) or 0) end
  end
  if entries > ${REDISSON_MAX_TIMEOUT_KEYS} then return {reply = {-3, 'its holders have ' .. entries .. ' re-entries, more than the ${REDISSON_MAX_TIMEOUT_KEYS} timeout keys a guarded script looks up'}} end
  return {count = count, mode = mode, write = write, others = (size - 2)}
end

local function timeoutKey(base, field, i)
  return base .. ':' .. field .. ':rwlock_timeout:' .. i
end

-- The longest remaining timeout of the read entries in the hash; -2 when none is left.
local function longestTimeout(key, base)
  local longest = -2
  local flat = redis.call('HGETALL', key)
  for i = 1, #flat, 2 do
    local count = flat[i] ~= 'mode' and isCount(flat[i + 1])
    if count then
      for c = 1, count do longest = math.max(longest, redis.call('PTTL', timeoutKey(base, flat[i], c))) end
    end
  end
  return longest
end

local function releaseRedisson()
  local h = holder(KEYS[1], ARGV[1])
  if h.reply then return h.reply end
  if h.plain then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[2], 0)
    return {1, 0}
  end
  if not h.write then
    for c = 1, h.count do redis.call('DEL', timeoutKey(ARGV[4], ARGV[1], c)) end
  end
  redis.call('HDEL', KEYS[1], ARGV[1])
  if h.others == 0 then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', ARGV[3], h.write and 1 or 0)
    return {1, 0}
  end
  if h.write then
    redis.call('HSET', KEYS[1], 'mode', 'read')
  elseif h.mode == 'read' then
    local longest = longestTimeout(KEYS[1], ARGV[4])
    if longest > 0 then redis.call('PEXPIRE', KEYS[1], longest) end
  end
  -- In write mode the writer's lease is the hash's expiry: it stays as it is.
  return {1, h.others}
end

local function extendRedisson()
  local h = holder(KEYS[1], ARGV[1])
  if h.reply then return h.reply end
  local ttl = tonumber(ARGV[5])
  if h.plain then
    redis.call('PEXPIRE', KEYS[1], ttl)
    return {1, 0}
  end
  if not h.write then
    for c = 1, h.count do redis.call('PEXPIRE', timeoutKey(ARGV[4], ARGV[1], c), ttl) end
  end
  local expiry = math.max(ttl, longestTimeout(KEYS[1], ARGV[4]))
  -- A reader inside a write lock must not shorten the writer's lease.
  if h.mode == 'write' and not h.write then expiry = math.max(expiry, redis.call('PTTL', KEYS[1])) end
  redis.call('PEXPIRE', KEYS[1], expiry)
  return {1, h.others}
end
`;
