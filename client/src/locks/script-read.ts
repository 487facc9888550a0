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
import { keySlot } from './fences';
import { pairs, type LockValue } from './holders';
import type { Queue, Reply } from './shared-pipeline';

/** Lock keys per script: each costs a few microseconds, so a script stays far below a millisecond. */
export const SCRIPT_KEYS = 100;

/**
 * KEYS: the lock keys, then the fence candidates; ARGV[1]: how many lock keys, then per lock key the type
 * it had in the previous listing ('' when unknown). Per lock key {type, pttl, payload, size, mode}, the
 * size (and a sampled hash's "mode") only where the read filled its bound. A key with a known type is read
 * as that type straight away, as the per-command path does: TYPE only when it is unknown, or when that
 * read says the key changed type or may be gone (an empty read). Per candidate its value, or false where it does not exist or is not a string. Most locks
 * have no fence, so the candidates are probed the way fence-lookup.ts does it: one multi-key EXISTS of
 * them all, halved only where some but not all exist, and a GET only for those that exist.
 */
const LIST_LUA = `
local n = tonumber(ARGV[1])
local out = {}
-- The row of key read as type t; nil when t was only expected and the read failed or found nothing.
local function readAs(key, t, known)
  local row = {t}
  if t == 'string' then
    local v = redis.pcall('GETRANGE', key, 0, ${STRING_BYTES_READ - 1})
    if type(v) ~= 'string' or (v == '' and not known) then return nil end
    row[3] = v
    if #v == ${STRING_BYTES_READ} then row[4] = redis.call('STRLEN', key) end
  elseif t == 'hash' then
    local v = redis.pcall('HRANDFIELD', key, ${HASH_FIELDS_READ}, 'WITHVALUES')
    if v['err'] or (#v == 0 and not known) then return nil end
    row[3] = v
    if #v == ${2 * HASH_FIELDS_READ} then row[4] = redis.call('HLEN', key); row[5] = redis.call('HGET', key, 'mode') end
  elseif t == 'zset' then
    local v = redis.pcall('ZRANGE', key, 0, ${ZSET_MEMBERS_READ - 1}, 'WITHSCORES')
    if v['err'] or (#v == 0 and not known) then return nil end
    row[3] = v
    if #v == ${2 * ZSET_MEMBERS_READ} then row[4] = redis.call('ZCARD', key) end
  elseif not known then
    return nil
  end
  row[2] = redis.call('PTTL', key)
  return row
end
for i = 1, n do
  local key = KEYS[i]
  local expected = ARGV[i + 1]
  out[i] = (expected ~= '' and readAs(key, expected, false)) or readAs(key, redis.call('TYPE', key)['ok'], true)
end
local function probe(lo, hi, count)
  if count == 0 then return end
  if count == hi - lo + 1 then
    for i = lo, hi do
      local v = redis.pcall('GET', KEYS[i])
      if type(v) == 'string' then out[i] = v end
    end
    return
  end
  local mid = math.floor((lo + hi) / 2)
  local left = redis.call('EXISTS', unpack(KEYS, lo, mid))
  probe(lo, mid, left)
  probe(mid + 1, hi, count - left)
end
for i = n + 1, #KEYS do out[i] = false end
if #KEYS > n then probe(n + 1, #KEYS, redis.call('EXISTS', unpack(KEYS, n + 1, #KEYS))) end
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

type Row = [string, number, unknown?, number?, (string | null)?];

function valueOf(type: string, [, , payload, size, mode]: Row): LockValue {
  if (type === 'string') return size === undefined ? { kind: 'string', value: String(payload) } : { kind: 'string', value: String(payload), length: size };
  if (type === 'hash') {
    const fields = Object.fromEntries(pairs(payload as string[]));
    if (typeof mode === 'string') fields.mode = mode;
    return { kind: 'hash', fields, total: size ?? Object.keys(fields).length };
  }
  if (type === 'zset') {
    const members = pairs(payload as string[]).map(([member, score]) => ({ member, score: Number(score) }));
    return { kind: 'zset', members, total: size ?? members.length };
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
 * Reads `keys` (all on `client`, through `send`) with the listing script; `candidates(key)` are the fence
 * names worth checking beside a key (in a Cluster only those in the key's own slot go into its script),
 * `typeHints` each key's type in the previous listing.
 */
export async function readByScript(client: Redis, send: Queue, keys: readonly string[], candidates: (key: string) => string[], cluster: boolean, typeHints: ReadonlyMap<string, string>): Promise<ScriptedReads> {
  const out: ScriptedReads = { read: [], fences: new Map(), checked: new Set(), rest: [] };
  await Promise.all(
    groups(keys, cluster).map(async (group) => {
      const mode = modes.get(client) ?? 'EVAL_RO';
      if (mode === 'none') return void out.rest.push(...group);
      const slot = cluster ? keySlot(group[0]!) : 0;
      const names = [...new Set(group.flatMap(candidates))].filter((f) => !cluster || keySlot(f) === slot);
      const [err, reply] = await runScript(client, send, mode, [...group, ...names], [String(group.length), ...group.map((k) => typeHints.get(k) ?? '')]);
      if (err) {
        noteRefusal(client, mode, err);
        return void out.rest.push(...group);
      }
      const replies = reply as unknown[];
      group.forEach((key, i) => {
        const row = replies[i] as Row;
        // Gone since SCAN found it.
        if (row[0] !== 'none') out.read.push({ key, type: row[0], pttl: Number(row[1]), value: valueOf(row[0], row) });
      });
      names.forEach((name, i) => {
        out.checked.add(name);
        const value = replies[group.length + i];
        if (typeof value === 'string') out.fences.set(name, value);
      });
    }),
  );
  return out;
}
