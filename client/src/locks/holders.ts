// Decodes who holds a lock from its raw value. A library is named only on evidence: a format of its own
// (Lockwise's lw1: token, a Redisson hash field) or its default key prefix together with its token shape.
// A bare random token (UUID, 32 hex, base64) says nothing about who wrote it: it is a "token", and the
// libraries known to write that shape are a hint in its details. The raw value is always shown as well.
import type { Holder } from './types';

/**
 * A lock's value as read: string, hash fields, or zset members with scores. Reads are bounded (see
 * bounded-read.ts): `length` / `total` say how big the value really is when only part of it was read.
 */
export type LockValue =
  | { kind: 'string'; value: string; length?: number }
  | { kind: 'hash'; fields: Record<string, string>; total?: number }
  | { kind: 'zset'; members: { member: string; score: number }[]; total?: number }
  /** Any other Redis type (list, set, stream...): its value is not read. */
  | { kind: 'other'; type: string };

const LOCKWISE = /^lw1:(.+):(\d+):([0-9a-f]{32})$/;
const HEX32 = /^[0-9a-f]{32}$/;
const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[-_](.+))?$/i;
// go redsync: 16 random bytes, standard base64 => 22 characters and "==".
const BASE64_16 = /^[A-Za-z0-9+/]{22}==$/;
// python-redis-lock: 18 random bytes, standard base64 => 24 characters, no padding.
const BASE64_18 = /^[A-Za-z0-9+/]{24}$/;
const REDISSON_FIELD = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(\d+)(:write)?$/i;

const short = (s: string, n = 8) => (s.length > n ? `${s.slice(0, n)}…` : s);
const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The `lw1:<hostname>:<pid>:<32 hex>` token written by Lockwise's own withLock helper. */
export function parseLockwiseToken(token: string): { host: string; pid: number; nonce: string } | undefined {
  const m = LOCKWISE.exec(token);
  return m ? { host: m[1]!, pid: Number(m[2]), nonce: m[3]! } : undefined;
}

function decodeJson(value: string): Holder | undefined {
  if (!/^\s*[{[]/.test(value)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  const details: Record<string, string> = {};
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const [k, v] of Object.entries(parsed)) {
      if (v === null || typeof v !== 'object') details[k] = String(v);
    }
  }
  // The fields people usually put in a JSON lock value, in the order a human wants to read them.
  const named = ['owner', 'holder', 'host', 'hostname', 'pid', 'worker', 'instance', 'id', 'token']
    .filter((k) => details[k] !== undefined)
    .slice(0, 3)
    .map((k) => `${k} ${clip(details[k]!, 24)}`);
  return { format: 'json', label: named.length ? named.join(' ') : clip(value), token: value, details };
}

/** Token shapes some libraries write; the shape alone is a hint, not evidence (custom code writes them too). */
const SHAPES: { re: RegExp; shape: string }[] = [
  { re: HEX32, shape: '32 hex characters (node-redlock writes this shape)' },
  { re: UUID, shape: 'UUID (redis-semaphore, pottery and Spring RedisLockRegistry write this shape)' },
  { re: BASE64_16, shape: '16 bytes in base64 (go redsync writes this shape)' },
  { re: BASE64_18, shape: '18 bytes in base64 (python-redis-lock writes this shape)' },
];

export function decodeStringHolder(key: string, value: string): Holder {
  const lw = parseLockwiseToken(value);
  if (lw) {
    return { format: 'lockwise', label: `${lw.host} pid ${lw.pid}`, token: value, details: { host: lw.host, pid: String(lw.pid), nonce: lw.nonce } };
  }
  // Evidence: the library's default key prefix and the token shape it writes.
  if (UUID.test(value) && (key.startsWith('mutex:') || key.startsWith('semaphore:'))) {
    return { format: 'redis-semaphore', label: `redis-semaphore ${short(value)}`, token: value };
  }
  if (UUID.test(value) && key.startsWith('redlock:')) return { format: 'pottery', label: `pottery ${short(value)}`, token: value };
  if (BASE64_18.test(value) && key.startsWith('lock:')) {
    return { format: 'python-redis-lock', label: `python-redis-lock ${short(value)}`, token: value };
  }
  const shape = SHAPES.find((s) => s.re.test(value));
  if (shape) return { format: 'token', label: `token ${short(value)}`, token: value, details: { shape: shape.shape } };
  return decodeJson(value) ?? { format: 'plain', label: clip(value) || '(empty string)', token: value };
}

/** A re-entry count: what Redisson stores as a holder field's value. */
const isCount = (v: string | undefined) => v !== undefined && /^[1-9]\d*$/.test(v);

/**
 * The holder fields of a Redisson hash. A read-write lock (a "mode" field) has one field per holder, each
 * a re-entry count; "mode" is never a holder. A plain RLock has `<client-uuid>:<thread-id>` fields.
 */
function redissonHolders(fields: Record<string, string>): string[] {
  const mode = fields.mode;
  if (mode === 'read' || mode === 'write') return Object.keys(fields).filter((f) => f !== 'mode' && isCount(fields[f]));
  return Object.keys(fields).filter((f) => REDISSON_FIELD.test(f));
}

/** One holder field as a label: "redisson client 9f0c… thread 42" (or the field itself when it is not uuid:thread). */
function redissonHolderLabel(field: string): { label: string; details: Record<string, string> } {
  const m = REDISSON_FIELD.exec(field);
  if (!m) return { label: `redisson holder ${clip(field, 40)}`, details: {} };
  return { label: `redisson client ${short(m[1]!)} thread ${m[2]}`, details: { client: m[1]!, thread: m[2]! } };
}

/** A writer's field ends in ":write" (RedissonWriteLock). */
const writeText = (field: string) => (field.endsWith(':write') ? ' (write lock)' : '');

function decodeRedisson(fields: Record<string, string>, total?: number): Holder {
  const holders = redissonHolders(fields);
  const mode = fields.mode;
  const first = holders[0];
  const fieldCount = total ?? Object.keys(fields).length;
  if (!first) {
    return { format: 'hash', label: `hash with ${fieldCount} field${fieldCount === 1 ? '' : 's'}`, details: {} };
  }
  // When only part of a big hash was read, every field but "mode" is counted as a holder.
  const holderCount = total !== undefined && total > Object.keys(fields).length ? total - (mode ? 1 : 0) : holders.length;
  const modeText = mode === 'read' || mode === 'write' ? ` (${mode} lock)` : '';
  const details: Record<string, string> = { holders: holders.map((h) => `${h}=${fields[h]}`).join(', ') };
  if (holderCount > holders.length) details.holders += `, … ${holderCount - holders.length} more not read`;
  if (mode) details.mode = mode;
  if (holderCount > 1) {
    return { format: 'redisson', label: `${holderCount} redisson holders${modeText}`, token: first, details };
  }
  const count = Number(fields[first]);
  const reentry = count > 1 ? `, entered ${count}×` : '';
  const one = redissonHolderLabel(first);
  return { format: 'redisson', label: `${one.label}${reentry}${modeText || writeText(first)}`, token: first, details: { ...details, ...one.details } };
}

function decodeSemaphore(key: string, members: { member: string; score: number }[], total = members.length): Holder {
  const acquired = (score: number) => (Number.isFinite(score) && score > 1e12 ? new Date(score).toISOString() : String(score));
  const details: Record<string, string> = {};
  for (const { member, score } of members) details[member] = acquired(score);
  // redis-semaphore's own key prefix is the evidence; UUID members alone are not.
  const format = key.startsWith('semaphore:') ? 'redis-semaphore' : 'zset';
  const first = members[0];
  if (!first) return { format, label: 'no holders', details };
  const label = total === 1 ? `${format} ${short(first.member)}` : `${total} holders: ${members.slice(0, 2).map((m) => short(m.member)).join(', ')}${total > 2 ? ', …' : ''}`;
  return { format, label, token: first.member, details };
}

export function decodeHolder(key: string, value: LockValue): Holder {
  switch (value.kind) {
    case 'string': {
      const holder = decodeStringHolder(key, value.value);
      // Only the start of a long value was read: it cannot be presented as the token.
      if (value.length === undefined || value.length <= bytes(value.value)) return holder;
      return { format: holder.format, label: `${clip(value.value, 40)} (${value.length} bytes, cut)` };
    }
    case 'hash':
      return decodeRedisson(value.fields, value.total);
    case 'zset':
      return decodeSemaphore(key, value.members, value.total);
    case 'other':
      return { format: 'unknown', label: `${value.type}: not a type any lock library uses (value not read)` };
  }
}

/** A string value's length as Redis counts it (STRLEN: bytes), to tell whether all of it was read. */
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

const more = (total: number | undefined, shown: number, what: string) => (total !== undefined && total > shown ? ` … ${total - shown} more ${what} not read` : '');

/** The raw value as one string: the string itself, or JSON for a hash or zset; a cut value says how much is missing. */
export function renderRaw(value: LockValue): string {
  switch (value.kind) {
    case 'string':
      return value.length === undefined ? value.value : value.value + more(value.length, bytes(value.value), 'bytes');
    case 'hash':
      return JSON.stringify(value.fields) + more(value.total, Object.keys(value.fields).length, 'fields');
    case 'zset':
      return JSON.stringify(Object.fromEntries(value.members.map((m) => [m.member, m.score]))) + more(value.total, value.members.length, 'members');
    case 'other':
      return `(${value.type})`;
  }
}

/** The holder a presented token stands for, for the audit record ("old holder"). */
export function holderFromToken(key: string, type: string, token: string): Holder {
  if (type === 'hash') {
    const one = redissonHolderLabel(token);
    return { format: 'redisson', label: one.label + writeText(token), token, details: one.details };
  }
  if (type === 'zset') return decodeSemaphore(key, [{ member: token, score: Number.NaN }]);
  return decodeStringHolder(key, token);
}

/** Pairs a flat [field, value, field, value...] reply. */
export function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/**
 * Rebuilds a LockValue from a flat reply `[type, size, ...payload]` (the guarded scripts' bounded
 * snapshot: size is STRLEN, HLEN or ZCARD; the payload is at most what bounded-read.ts allows).
 */
export function valueFromSnapshot(snapshot: readonly string[]): LockValue {
  const [type = 'none', size = '0', ...rest] = snapshot;
  const total = Number(size);
  if (type === 'string') return { kind: 'string', value: rest[0] ?? '', length: total };
  if (type === 'hash') return { kind: 'hash', fields: Object.fromEntries(pairs(rest)), total };
  if (type === 'zset') return { kind: 'zset', members: pairs(rest).map(([member, score]) => ({ member, score: Number(score) })), total };
  return { kind: 'other', type };
}
