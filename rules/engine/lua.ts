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

function readTraits(script: string): LuaTraits {
  const lua = stripComments(script);
  const commands: { name: string; args: string }[] = [];
  for (const m of lua.matchAll(CALL)) commands.push({ name: m[2].toLowerCase(), args: m[3].toLowerCase() });
  const has = (name: string) => commands.some((c) => c.name === name);

  const ifeq = commands.some((c) => /['"]ifeq['"]/.test(c.args));
  const comparesOwner =
    ifeq ||
    ((has('get') || has('hexists') || has('hget') || has('zscore')) && /(==|~=)\s*argv\[|argv\[\d+\]\s*(==|~=)/i.test(lua)) ||
    has('hexists') ||
    has('delifeq');
  const deletes = has('del') || has('unlink') || has('delex') || has('delifeq') || has('zrem') || has('hdel');
  const expires = has('expire') || has('pexpire') || has('expireat') || has('pexpireat') ||
    commands.some((c) => c.name === 'set' && /['"](px|ex)['"]/.test(c.args) && /['"](xx|ifeq)['"]/.test(c.args));
  const setNx = commands.some((c) => c.name === 'set' && /['"]nx['"]/.test(c.args));
  const acquires = has('setnx') || setNx;
  const setNxTtl = commands.some((c) => c.name === 'set' && /['"]nx['"]/.test(c.args) && /['"](px|ex|pxat|exat)['"]/.test(c.args));
  return {
    comparesOwner,
    deletes,
    expires,
    acquires,
    acquiresWithTtl: setNxTtl || (acquires && (has('pexpire') || has('expire'))),
    fencing: has('incr') || has('incrby'),
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
