// Guarded release and extend: each is ONE Lua script that checks the token and acts only if it still
// matches, so no other holder's lock is ever touched. Replies follow the redsync convention: {1} done
// ({1, n} for a Redisson read-write lock: n other holders keep it), {-1} already gone, {0, type, size,
// ...value} token changed (what holds the key now, read atomically and bounded: bounded-read.ts), and
// {-3, reason} a token that is not a holder at all (a Redisson hash's "mode" field...), refused.
// These scripts are the only writes in the whole lock core; a read-only connection refuses before sending.
// A plain string lock on a server with DELIFEQ (Valkey 9) or DELEX (Redis 8.4) is released and extended
// with the native command instead (native-commands.ts); its "no" is followed by a read of who holds the
// key now, which is only reported, never acted on.
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { LockwiseError } from './errors';
import { SNAPSHOT_LUA } from './bounded-read';
import { decodeHolder, decodeStringHolder, renderRaw, valueFromSnapshot } from './holders';
import { nativeExtendCommand, nativeReleaseCommand, nativeSupport } from './native-commands';
import { REDISSON_LUA } from './redisson-lua';
import type { GuardedResult } from './types';

interface Script {
  lua: string;
  sha: string;
}

/** Shared tail: the key is gone ({-1}) or held by something else ({0, type, size, ...bounded value}). */
const REFUSE = `${SNAPSHOT_LUA}
local function refuse(key)
  local s = snapshot(key)
  if s[1] == 'none' then return {-1} end
  table.insert(s, 1, 0)
  return s
end
`;

const script = (body: string, prelude = ''): Script => {
  const lua = `${REFUSE}${prelude}\n${body.trim()}\n`;
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
};

// Lengths first: a huge value is never copied into the script just to be compared.
const STRING_MATCHES = `redis.call('TYPE', KEYS[1])['ok'] == 'string' and redis.call('STRLEN', KEYS[1]) == #ARGV[1] and redis.call('GET', KEYS[1]) == ARGV[1]`;
const MEMBER_EXISTS = `redis.call('TYPE', KEYS[1])['ok'] == 'zset' and redis.call('ZSCORE', KEYS[1], ARGV[1])`;

export const SCRIPTS = {
  // KEYS[1] lock; ARGV[1] token.
  releaseString: script(`
if ${STRING_MATCHES} then
  redis.call('DEL', KEYS[1])
  return {1}
end
return refuse(KEYS[1])`),
  // python-redis-lock: also wake its waiters the way the library's own unlock does (signal list, short expiry).
  // KEYS[1] lock, KEYS[2] signal list; ARGV[1] token, ARGV[2] signal expiry in ms.
  releasePython: script(`
if ${STRING_MATCHES} then
  redis.call('DEL', KEYS[2])
  redis.call('LPUSH', KEYS[2], 1)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  redis.call('DEL', KEYS[1])
  return {1}
end
return refuse(KEYS[1])`),
  // Redisson hash: the token is the holder field (see redisson-lua.ts for the arguments).
  releaseRedisson: script('return releaseRedisson()', REDISSON_LUA),
  // redis-semaphore zset: remove only that holder's member. ARGV[1] member.
  releaseMember: script(`
if ${MEMBER_EXISTS} then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {1}
end
return refuse(KEYS[1])`),
  // ARGV[1] token, ARGV[2] new TTL in ms.
  extendString: script(`
if ${STRING_MATCHES} then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
return refuse(KEYS[1])`),
  extendRedisson: script('return extendRedisson()', REDISSON_LUA),
  // Like redis-semaphore's own refresh: the member's score (acquire time) becomes now, and the key gets the TTL.
  extendMember: script(`
if ${MEMBER_EXISTS} then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[1], 'XX', t[1] * 1000 + math.floor(t[2] / 1000), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
return refuse(KEYS[1])`),
} satisfies Record<string, Script>;

/** python-redis-lock's default signal expiry. */
export const PYTHON_SIGNAL_EXPIRE_MS = 1000;

/** Redisson's channel naming: prefix:{name}, or prefix:name when the name already has braces. */
export function redissonChannel(prefix: string, name: string): string {
  return name.includes('{') ? `${prefix}:${name}` : `${prefix}:{${name}}`;
}

/** Redisson's key naming for an object's companions: {name}:suffix, or name:suffix when the name has braces. */
export function redissonTimeoutBase(name: string): string {
  return name.includes('{') ? name : `{${name}}`;
}

/** python-redis-lock keeps lock `lock:<name>` and its signal list `lock-signal:<name>`. */
export function pythonSignalKey(key: string): string {
  return `lock-signal:${key.slice('lock:'.length)}`;
}

type Router = Redis | Cluster;

const redissonArgs = (key: string, field: string) => [field, redissonChannel('redisson_lock__channel', key), redissonChannel('redisson_rwlock', key), redissonTimeoutBase(key)];

async function run(router: Router, s: Script, keys: string[], args: (string | number)[]): Promise<unknown[]> {
  try {
    return (await router.evalsha(s.sha, keys.length, ...keys, ...args)) as unknown[];
  } catch (err) {
    if (!/NOSCRIPT/.test((err as Error).message)) throw err;
    return (await router.eval(s.lua, keys.length, ...keys, ...args)) as unknown[];
  }
}

function outcome(key: string, done: 'released' | 'extended', reply: unknown[]): GuardedResult {
  const code = Number(reply[0]);
  if (code === 1) return Number(reply[1] ?? 0) > 0 ? { outcome: done, remainingHolders: Number(reply[1]) } : { outcome: done };
  if (code === -1) return { outcome: 'gone' };
  if (code === -3) {
    throw new LockwiseError('not-holder', `Refused to ${done === 'released' ? 'release' : 'extend'} ${key}: ${String(reply[1])}.`, 'Nothing was changed. Present a holder field as lockwise locks shows it (<client-uuid>:<thread-id>, with :write for a writer).');
  }
  const value = valueFromSnapshot(reply.slice(1).map(String));
  return { outcome: 'token-changed', currentHolder: decodeHolder(key, value), currentRaw: renderRaw(value) };
}

export interface GuardedOutcome {
  result: GuardedResult;
  /** The key's type when the operation ran ('none' when it was already gone). */
  type: string;
}

export function refuseReadOnly(action: 'release' | 'extend', key: string): LockwiseError {
  return new LockwiseError('read-only', `Refused to ${action} ${key}: this connection is read-only.`, 'Nothing was sent. Turn read-only off for this connection to release or extend locks.');
}

/** After a native command said no: the key is gone, or this is what holds it now. */
async function refusal(router: Router, key: string): Promise<unknown[]> {
  const type = await router.type(key);
  if (type === 'none') return [-1];
  return [0, type, ...(type === 'string' ? [await router.get(key)] : [])];
}

export async function guardedRelease(router: Router, key: string, token: string): Promise<GuardedOutcome> {
  const type = await router.type(key);
  if (type === 'none') return { result: { outcome: 'gone' }, type };
  let reply: unknown[];
  const python = type === 'string' && decodeStringHolder(key, token).format === 'python-redis-lock';
  const native = type === 'string' && !python ? (await nativeSupport(router)).release : undefined;
  if (native) {
    const [command, ...args] = nativeReleaseCommand(native, key, token);
    reply = Number(await router.call(command, ...args)) === 1 ? [1] : await refusal(router, key);
  } else if (python) {
    reply = await run(router, SCRIPTS.releasePython, [key, pythonSignalKey(key)], [token, PYTHON_SIGNAL_EXPIRE_MS]);
  } else if (type === 'string') {
    reply = await run(router, SCRIPTS.releaseString, [key], [token]);
  } else if (type === 'hash') {
    reply = await run(router, SCRIPTS.releaseRedisson, [key], redissonArgs(key, token));
  } else if (type === 'zset') {
    reply = await run(router, SCRIPTS.releaseMember, [key], [token]);
  } else {
    throw new LockwiseError('unsupported', `${key} is a ${type}, not a lock Lockwise knows how to release.`, 'Release it with the library that created it.');
  }
  return { result: outcome(key, 'released', reply), type };
}

export async function guardedExtend(router: Router, key: string, token: string, ttlMs: number): Promise<GuardedOutcome> {
  // Beyond 2^53 a number is no longer the whole number typed (and far beyond any expiry Redis keeps).
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new LockwiseError('config', `The new TTL must be a positive whole number of milliseconds, not ${ttlMs}.`, 'For example --ttl 30000.');
  }
  const type = await router.type(key);
  if (type === 'none') return { result: { outcome: 'gone' }, type };
  if (type === 'string' && (await nativeSupport(router)).extend) {
    const [command, ...args] = nativeExtendCommand(key, token, ttlMs);
    const reply = (await router.call(command, ...args)) === 'OK' ? [1] : await refusal(router, key);
    return { result: outcome(key, 'extended', reply), type };
  }
  const s = type === 'string' ? SCRIPTS.extendString : type === 'hash' ? SCRIPTS.extendRedisson : type === 'zset' ? SCRIPTS.extendMember : undefined;
  if (!s) throw new LockwiseError('unsupported', `${key} is a ${type}, not a lock Lockwise knows how to extend.`, 'Extend it with the library that created it.');
  const args = type === 'hash' ? [...redissonArgs(key, token), ttlMs] : [token, ttlMs];
  return { result: outcome(key, 'extended', await run(router, s, [key], args)), type };
}
