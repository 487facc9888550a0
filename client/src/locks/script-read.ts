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
 * unknown). The reply is one flat array, cheap to decode, with a slot only for what was found: per lock key
 * three slots {type, pttl, payload} (false where gone); then how many values filled their bound, and per
 * such value {lock key's index, size, "mode" of a sampled hash or false}; then per fence candidate that
 * exists and holds a string {its KEYS position, value}. (A slot per key for size and mode and one per
 * candidate, nearly all empty, were most of the reply the client decoded.)
 * A key is read as the type it is expected to have (its previous one, else string, as nearly every lock is
 * one), as the per-command path does: TYPE only when that read says the key changed type or may be gone
 * (an empty read). Most locks have no fence, so the candidates are probed the way fence-lookup.ts does it:
 * one multi-key EXISTS of them all, halved only where some but not all exist, and a GET only for those
 * that exist; a Redisson candidate only beside a hash, the one type it counts for (each name looked up
 * costs the server a lookup in the whole keyspace).
 */
const LIST_LUA = `
local n, g = tonumber(ARGV[1]), tonumber(ARGV[2])
local out, sized, fences = {}, {}, {}
for i = 1, 3 * n do out[i] = false end
-- Fills lock key i's three slots read as type t; false when t was only expected and the read failed or found nothing.
local function readAs(i, key, t, known)
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
  local b = 3 * (i - 1)
  out[b + 1], out[b + 2], out[b + 3] = t, redis.call('PTTL', key), v
  if size then
    local e = #sized
    sized[e + 1], sized[e + 2], sized[e + 3] = i, size, mode
  end
  return true
end
for i = 1, n do
  local key = KEYS[i]
  local expected = ARGV[i + 2]
  if expected == '' then expected = 'string' end
  if not readAs(i, key, expected, false) then readAs(i, key, redis.call('TYPE', key)['ok'], true) end
end
-- The KEYS positions to probe: every generic candidate, and the Redisson one of each hash.
local at = {}
for i = 1, g do at[i] = n + i end
for i = 1, n do
  if out[3 * (i - 1) + 1] == 'hash' then at[#at + 1] = n + g + i end
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
      if type(v) == 'string' then
        local e = #fences
        fences[e + 1], fences[e + 2] = at[j], v
      end
    end
    return
  end
  local mid = math.floor((lo + hi) / 2)
  local left = redis.call('EXISTS', unpack(names(lo, mid)))
  probe(lo, mid, left)
  probe(mid + 1, hi, count - left)
end
if #at > 0 then probe(1, #at, redis.call('EXISTS', unpack(names(1, #at)))) end
local e = 3 * n + 1
out[e] = #sized / 3
for j = 1, #sized do out[e + j] = sized[j] end
e = e + #sized
for j = 1, #fences do out[e + j] = fences[j] end
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
      // The few values that filled their bound: their size and "mode", by the lock key's index.
      let at = 3 * group.length;
      const sizedCount = Number(replies[at++]);
      const sized = new Map<number, number>();
      for (let j = 0; j < sizedCount; j++, at += 3) sized.set(Number(replies[at]) - 1, at);
      for (let i = 0, b = 0; i < group.length; i++, b += 3) {
        const type = replies[b];
        // Gone since SCAN found it.
        if (typeof type !== 'string' || type === 'none') continue;
        const s = sized.get(i);
        out.read.push({ key: group[i]!, type, pttl: Number(replies[b + 1]), value: valueOf(type, replies[b + 2], s === undefined ? null : replies[s + 1], s === undefined ? null : replies[s + 2]) });
      }
      const names = [...generic, ...redisson];
      for (let i = 0; i < names.length; i++) {
        if (names[i] !== group[i - generic.length]) out.checked.add(names[i]!); // else a placeholder
      }
      for (; at + 1 < replies.length; at += 2) out.fences.set(names[Number(replies[at]) - 1 - group.length]!, replies[at + 1] as string);
    }),
  );
  return out;
}
