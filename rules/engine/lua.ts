// Classifies a Lua script by what it does to the lock key: compare-and-delete, compare-and-expire,
// atomic acquire with a TTL, fencing INCR, or unconditional DEL/EXPIRE.

export interface LuaTraits {
  /** Reads the key and compares it with an argument before acting (GET == ARGV, HEXISTS, IFEQ, DELIFEQ). */
  comparesOwner: boolean;
  deletes: boolean;
  expires: boolean;
  /** SETNX or SET ... NX. */
  acquires: boolean;
  /** The acquire gets its TTL in the same script (SET NX PX, or SETNX + PEXPIRE). */
  acquiresWithTtl: boolean;
  fencing: boolean;
  /**
   * Puts the token into a set, sorted set or hash (ZADD/SADD/HSET key ... ARGV): a counting semaphore's
   * slot. Without an owner check first it takes a slot, and its EXPIRE is the container's, not a renewal.
   */
  addsMember: boolean;
  /** Pops an entry off a list or sorted set (LPOP, ZPOPMIN, LMOVE): a dequeue, whose empty answer is mostly an empty queue. */
  dequeues: boolean;
}

export type LuaKind =
  | 'compare-and-delete'
  | 'compare-and-expire'
  | 'atomic-acquire'
  | 'acquire-without-ttl'
  | 'unconditional-delete'
  | 'unconditional-expire'
  | 'fencing'
  | 'other';

function stripComments(lua: string): string {
  return lua.replace(/--\[\[[\s\S]*?\]\]/g, ' ').replace(/--[^\n]*/g, ' ');
}

const CALL = /redis\.(?:p?call)\s*\(\s*(['"])([a-z]+)\1([^)]*)\)/gi;

// A file passes the same script (a RELEASE constant) at every call: read each text once. Traits depend
// on the text alone, so the cache holds across files; it is emptied when full.
const traitsOfText = new Map<string, Readonly<LuaTraits>>();
const MAX_CACHED = 512;

export function luaTraits(script: string): Readonly<LuaTraits> {
  let traits = traitsOfText.get(script);
  if (!traits) {
    if (traitsOfText.size >= MAX_CACHED) traitsOfText.clear();
    traitsOfText.set(script, (traits = readTraits(script)));
  }
  return traits;
}

/**
 * `redis.call('SET', unpack(setArgs))`: the arguments of a table the script builds, as written in its
 * constructor (`local setArgs = {key, token, 'NX'}`) and in every `table.insert(setArgs, 'EX')`.
 */
function unpackedArgs(lua: string, args: string): string {
  // CALL's match ends at the first `)`, the one closing `unpack(`.
  const table = /^\s*,\s*unpack\s*\(\s*([a-z_]\w*)\s*$/i.exec(args)?.[1];
  if (!table) return args;
  const built = [...lua.matchAll(new RegExp(`\\b${table}\\s*=\\s*\\{([^}]*)\\}`, 'gi'))].map((m) => m[1]);
  const inserted = [...lua.matchAll(new RegExp(`table\\.insert\\s*\\(\\s*${table}\\s*,([^)]*)\\)`, 'gi'))].map((m) => m[1]);
  return `, ${[...built, ...inserted].join(', ')}`;
}

/** A test that the key is absent (EXISTS answering 0, no value from GET), or a return when it is present. */
const ABSENT_TEST = /redis\.p?call\s*\(\s*['"]exists['"][^)]*\)\s*(?:==\s*0|~=\s*1|<\s*1|(?:==\s*1|>\s*0)\s*then\s+return\s+(?:0|false|nil)\b)|\bnot\s+redis\.p?call\s*\(\s*['"](?:exists|get)['"]|redis\.p?call\s*\(\s*['"]get['"][^)]*\)\s*==\s*(?:false|nil)\b/i;

function readTraits(script: string): LuaTraits {
  const lua = stripComments(script);
  const commands: { name: string; args: string }[] = [];
  for (const m of lua.matchAll(CALL)) commands.push({ name: m[2].toLowerCase(), args: unpackedArgs(lua, m[3]).toLowerCase() });
  const has = (name: string) => commands.some((c) => c.name === name);

  const ifeq = commands.some((c) => /['"]ifeq['"]/.test(c.args));
  // A holder's own entry in a set, sorted set or hash, looked up or removed by the token argument
  // (`if redis.call('zscore', KEYS[1], ARGV[1]) then`, `redis.call('zrem', KEYS[1], ARGV[1])`).
  // `local token = ARGV[1]`, `local now = tonumber(ARGV[1])`: the names the script gives its arguments.
  const argNames = [...lua.matchAll(/\blocal\s+([a-z_]\w*)\s*=\s*(?:to(?:number|string)\s*\(\s*)?argv\[/gi)].map((m) => m[1].toLowerCase());
  const namesArg = (args: string) => /argv\[/.test(args) || argNames.some((n) => new RegExp(`\\b${n}\\b`).test(args));
  const byToken = (names: readonly string[]) => commands.some((c) => names.includes(c.name) && namesArg(c.args));
  const removesOwnEntry = byToken(['zrem', 'srem', 'hdel']);
  // The container itself goes only once it is empty: no other holder's entry goes with it.
  const deletesWhole = has('del') || has('unlink');
  const onlyWhenEmpty = /\b(?:zcard|scard|hlen)\b[\s\S]*?(?:==\s*0|<\s*1)\b/i.test(lua);
  // `GET key == ARGV[1]`, or the same through the name the script gives it (`== ownerId`).
  const named = argNames.map((n) => `\\b${n}\\b`);
  // Or a substring test of the holder's record (`string.find(data.owner, ARGV[1], 1, true)`).
  const comparedWithArgument = new RegExp(`(?:==|~=)\\s*(?:${['argv\\[', ...named].join('|')})|(?:${['argv\\[\\d+\\]', ...named].join('|')})\\s*(?:==|~=)|string\\.(?:find|match)\\s*\\([^()]*(?:${['argv\\[', ...named].join('|')})`, 'i');
  const comparesOwner =
    ifeq ||
    // A queue lock's head (`lindex key 0`) compared with the token is a holder check like GET's.
    ((has('get') || has('hexists') || has('hget') || has('zscore') || has('lindex')) && comparedWithArgument.test(lua)) ||
    has('hexists') ||
    has('delifeq') ||
    byToken(['zscore', 'zrank', 'sismember', 'hget']) ||
    (removesOwnEntry && (!deletesWhole || onlyWhenEmpty));
  const deletes = has('del') || has('unlink') || has('delex') || has('delifeq') || has('zrem') || has('srem') || has('hdel') || has('lpop') || has('lrem');
  // `if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', ...)`, or `if not redis.call('GET', ...)`: SET NX spelled out.
  const setWhenAbsent = ABSENT_TEST.test(lua) && commands.some((c) => c.name === 'set' && !/['"](?:xx|ifeq)['"]/.test(c.args));
  // `if GET == ARGV[1] then SET key ARGV[1] EX ttl` (or SETEX key ttl value): the holder's own value written again with a TTL, a renewal.
  const renewsBySet = comparesOwner && !setWhenAbsent && commands.some((c) => (c.name === 'set' && /['"](px|ex)['"]/.test(c.args) && !/['"]nx['"]/.test(c.args)) || c.name === 'setex' || c.name === 'psetex');
  const expires = has('expire') || has('pexpire') || has('expireat') || has('pexpireat') || renewsBySet ||
    commands.some((c) => c.name === 'set' && /['"](px|ex)['"]/.test(c.args) && /['"](xx|ifeq)['"]/.test(c.args));
  const setNx = commands.some((c) => c.name === 'set' && /['"]nx['"]/.test(c.args)) || setWhenAbsent;
  const acquires = has('setnx') || setNx;
  const setNxTtl = commands.some((c) => c.name === 'set' && (setWhenAbsent || /['"]nx['"]/.test(c.args)) && /['"](px|ex|pxat|exat)['"]/.test(c.args));
  return {
    comparesOwner,
    deletes,
    expires,
    acquires,
    acquiresWithTtl: setNxTtl || (acquires && (has('pexpire') || has('expire'))),
    fencing: has('incr') || has('incrby'),
    addsMember: byToken(['zadd', 'sadd', 'hset', 'hsetnx']),
    dequeues: ['lpop', 'rpop', 'zpopmin', 'zpopmax', 'lmove', 'rpoplpush'].some(has),
  };
}

export function classifyLua(script: string): LuaKind {
  const t = luaTraits(script);
  if (t.acquires) return t.acquiresWithTtl ? 'atomic-acquire' : 'acquire-without-ttl';
  if (t.deletes) return t.comparesOwner ? 'compare-and-delete' : 'unconditional-delete';
  if (t.expires) return t.comparesOwner ? 'compare-and-expire' : 'unconditional-expire';
  if (t.fencing) return 'fencing';
  return 'other';
}
