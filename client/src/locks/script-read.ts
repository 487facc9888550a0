// One read-only script per SCAN batch reads every key's type, PTTL and bounded value, and the fence
// candidates beside them (one EXISTS for them all, then GET only where one exists). The per-command path
// (batch-read.ts + fence-lookup.ts) costs two commands per key and a few per batch; most of a listing's
// time was the client building and parsing those commands, so one command per batch is what brings it to
// the floor of one GET per key. EVAL_RO (Redis 7) lets the server refuse any write; Redis 6 gets EVAL;
// once the server has the script, EVALSHA_RO / EVALSHA send its SHA1 instead of its text. A script's keys
// must share a slot in a Cluster, so there a batch goes out as one script per slot.
// The per-command path stays for servers or users that cannot run the script (an ACL without +eval_ro,
// scripting disabled): the first refusal of the command is remembered per client, and a batch whose
// script failed for any other reason (a key the ACL denies) is read the per-command way.
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { HASH_FIELDS_READ, STRING_BYTES_READ, ZSET_MEMBERS_READ } from './bounded-read';
import type { ValueRead } from './batch-read';
import { fenceCandidates, keySlot, redissonFenceKey } from './fences';
import { pairs, type LockValue } from './holders';
import type { Queue, Reply } from './shared-pipeline';

/** Lock keys per script: each costs a few microseconds, so a script stays far below a millisecond. */
export const SCRIPT_KEYS = 100;

/**
 * KEYS: the lock keys (n), the generic fence candidates (g), then each lock key's Redisson fence candidate
 * (n, in the same order); ARGV: n, g, then per lock key the type it had in the previous listing ('' when
 * unknown). The reply is one flat array, cheap to decode: per lock key five slots {type, pttl, payload, size,
 * mode} (false where empty; size, and a sampled hash's "mode", only where the read filled its bound), then
 * per candidate its value, or false where it does not exist, is not a string or was not looked at.
 * A key is read as the type it is expected to have (its previous one, else string, as nearly every lock is
 * one), as the per-command path does: TYPE only when that read says the key changed type or may be gone
 * (an empty read). Most locks have no fence, so the candidates are probed the way fence-lookup.ts does it:
 * one multi-key EXISTS of them all, halved only where some but not all exist, and a GET only for those
 * that exist; a Redisson candidate only beside a hash, the one type it counts for (each name looked up
 * costs the server a lookup in the whole keyspace).
 */
const LIST_LUA = `
local n, g = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i = 1, 5 * n + #KEYS - n do out[i] = false end
-- Fills key's five slots from base b read as type t; false when t was only expected and the read failed or found nothing.
local function readAs(b, key, t, known)
  local v, size, mode = false, false, false
  if t == 'string' then
    v = redis.pcall('GETRANGE', key, 0, ${STRING_BYTES_READ - 1})
    if type(v) ~= 'string' or (v == '' and not known) then return false end
    if #v == ${STRING_BYTES_READ} then size = redis.call('STRLEN', key) end
  elseif t == 'hash' then
    v = redis.pcall('HRANDFIELD', key, ${HASH_FIELDS_READ}, 'WITHVALUES')
    if v['err'] or (#v == 0 and not known) then return false end
    if #v == ${2 * HASH_FIELDS_READ} then size = redis.call('HLEN', key); mode = redis.call('HGET', key, 'mode') end
  elseif t == 'zset' then
    v = redis.pcall('ZRANGE', key, 0, ${ZSET_MEMBERS_READ - 1}, 'WITHSCORES')
    if v['err'] or (#v == 0 and not known) then return false end
    if #v == ${2 * ZSET_MEMBERS_READ} then size = redis.call('ZCARD', key) end
  elseif not known then
    return false
  end
  out[b + 1], out[b + 2], out[b + 3], out[b + 4], out[b + 5] = t, redis.call('PTTL', key), v, size, mode
  return true
end
for i = 1, n do
  local key, b = KEYS[i], 5 * (i - 1)
  local expected = ARGV[i + 2]
  if expected == '' then expected = 'string' end
  if not readAs(b, key, expected, false) then readAs(b, key, redis.call('TYPE', key)['ok'], true) end
end
-- The KEYS positions to probe: every generic candidate, and the Redisson one of each hash.
local at = {}
for i = 1, g do at[i] = n + i end
for i = 1, n do
  if out[5 * (i - 1) + 1] == 'hash' then at[#at + 1] = n + g + i end
end
local function names(lo, hi)
  local t = {}
  for j = lo, hi do t[#t + 1] = KEYS[at[j]] end
  return t
end
local function probe(lo, hi, count)
  if count == 0 then return end
  if count == hi - lo + 1 then
    for j = lo, hi do
      local v = redis.pcall('GET', KEYS[at[j]])
      if type(v) == 'string' then out[4 * n + at[j]] = v end
    end
    return
  end
  local mid = math.floor((lo + hi) / 2)
  local left = redis.call('EXISTS', unpack(names(lo, mid)))
  probe(lo, mid, left)
  probe(mid + 1, hi, count - left)
end
if #at > 0 then probe(1, #at, redis.call('EXISTS', unpack(names(1, #at)))) end
return out
`;
const LIST_SHA = createHash('sha1').update(LIST_LUA).digest('hex');

type Mode = 'EVAL_RO' | 'EVAL' | 'none';
const modes = new WeakMap<Redis, Mode>();
/**
 * Per client: true once the server has the script (an EVAL of its text caches it), so only its SHA1 goes
 * out, not its text with every batch; false when this user may not send the SHA (an ACL from before
 * +evalsha_ro was in the browse rules).
 */
const bySha = new WeakMap<Redis, boolean>();

/** Whether `client` is known to refuse the script; then the listing goes the per-command way from the start. */
export const scriptRefused = (client: Redis): boolean => modes.get(client) === 'none';

const REFUSED = /unknown command|permissions to run the/i;

/** What a refusal of the command itself (not of a key) says about the next batches. */
function noteRefusal(client: Redis, mode: Mode, err: Error): void {
  if (mode === 'EVAL_RO' && /unknown command/i.test(err.message)) modes.set(client, 'EVAL');
  else if (REFUSED.test(err.message)) modes.set(client, 'none');
}

/** Runs the script by its SHA where the server has it, else (and once more when the SHA was not taken) by its text. */
async function runScript(client: Redis, send: Queue, mode: 'EVAL_RO' | 'EVAL', keys: string[], args: string[]): Promise<Reply> {
  if (bySha.get(client)) {
    const [reply] = await send((p) => p.call(mode === 'EVAL_RO' ? 'EVALSHA_RO' : 'EVALSHA', LIST_SHA, keys.length, ...keys, ...args));
    const err = reply![0];
    if (!err || !(/^NOSCRIPT/.test(err.message) || REFUSED.test(err.message))) return reply!;
    // NOSCRIPT: the server lost it (restart, SCRIPT FLUSH), and the text caches it again; else the SHA is refused.
    if (/^NOSCRIPT/.test(err.message)) bySha.delete(client);
    else bySha.set(client, false);
  }
  const [reply] = await send((p) => p.call(mode, LIST_LUA, keys.length, ...keys, ...args));
  if (!reply![0] && !bySha.has(client)) bySha.set(client, true);
  return reply!;
}

/** A key's value from its slots of the reply: payload, and the size and "mode" (null unless the read filled its bound). */
function valueOf(type: string, payload: unknown, size: unknown, mode: unknown): LockValue {
  if (type === 'string') return size == null ? { kind: 'string', value: String(payload) } : { kind: 'string', value: String(payload), length: Number(size) };
  if (type === 'hash') {
    const fields = Object.fromEntries(pairs(payload as string[]));
    if (typeof mode === 'string') fields.mode = mode;
    return { kind: 'hash', fields, total: size == null ? Object.keys(fields).length : Number(size) };
  }
  if (type === 'zset') {
    const members = pairs(payload as string[]).map(([member, score]) => ({ member, score: Number(score) }));
    return { kind: 'zset', members, total: size == null ? members.length : Number(size) };
  }
  return { kind: 'other', type };
}

export interface ScriptedReads {
  read: ValueRead[];
  /** Values of the fence candidates that exist. */
  fences: Map<string, string>;
  /** Fence candidates the script looked at, found or not. */
  checked: Set<string>;
  /** Keys the script could not read: their batch is to be read the per-command way. */
  rest: string[];
}

/** Groups of keys that one script may take: one slot each in a Cluster, at most SCRIPT_KEYS keys. */
function groups(keys: readonly string[], cluster: boolean): string[][] {
  const bySlot = new Map<number, string[]>();
  for (const key of keys) {
    const slot = cluster ? keySlot(key) : 0;
    const list = bySlot.get(slot);
    if (list) list.push(key);
    else bySlot.set(slot, [key]);
  }
  const out: string[][] = [];
  for (const list of bySlot.values()) for (let i = 0; i < list.length; i += SCRIPT_KEYS) out.push(list.slice(i, i + SCRIPT_KEYS));
  return out;
}

/**
 * Reads `keys` (all on `client`, through `send`) with the listing script, and the fence candidates beside
 * them that share the script's slot (fences.ts); `typeHints` holds each key's type in the previous listing (its row there).
 */
export async function readByScript(client: Redis, send: Queue, keys: readonly string[], cluster: boolean, typeHints: ReadonlyMap<string, { type: string }>): Promise<ScriptedReads> {
  const out: ScriptedReads = { read: [], fences: new Map(), checked: new Set(), rest: [] };
  await Promise.all(
    groups(keys, cluster).map(async (group) => {
      const mode = modes.get(client) ?? 'EVAL_RO';
      if (mode === 'none') return void out.rest.push(...group);
      const slot = cluster ? keySlot(group[0]!) : 0;
      const inSlot = (f: string) => !cluster || keySlot(f) === slot;
      const generic = [...new Set(group.flatMap((k) => fenceCandidates(k, 'string')))].filter(inSlot);
      // One Redisson name per lock key, by position. A name outside the slot (a key with an unpaired brace)
      // is replaced by the lock key itself, which GET never reads as a fence (it is a hash there), and is left unchecked.
      const redisson = group.map((k) => {
        const name = redissonFenceKey(k);
        return inSlot(name) ? name : k;
      });
      const args = [String(group.length), String(generic.length)];
      for (const k of group) args.push(typeHints.get(k)?.type ?? '');
      const [err, reply] = await runScript(client, send, mode, [...group, ...generic, ...redisson], args);
      if (err) {
        noteRefusal(client, mode, err);
        return void out.rest.push(...group);
      }
      const replies = reply as unknown[];
      for (let i = 0, b = 0; i < group.length; i++, b += 5) {
        const type = replies[b];
        // Gone since SCAN found it.
        if (typeof type === 'string' && type !== 'none') out.read.push({ key: group[i]!, type, pttl: Number(replies[b + 1]), value: valueOf(type, replies[b + 2], replies[b + 3], replies[b + 4]) });
      }
      const names = [...generic, ...redisson];
      for (let i = 0, b = 5 * group.length; i < names.length; i++) {
        const name = names[i]!;
        if (name === group[i - generic.length]) continue; // a placeholder
        out.checked.add(name);
        const value = replies[b + i];
        if (typeof value === 'string') out.fences.set(name, value);
      }
    }),
  );
  return out;
}
