// Decodes who holds a lock from its raw value. A library is named only on evidence: a format of its own
// (Lockwise's lw1: token, a Redisson hash field) or its default key prefix together with its token shape.
// A bare random token (UUID, 32 hex, base64) says nothing about who wrote it: it is a "token", and the
// libraries known to write that shape are a hint in its details. The raw value is always shown as well.
import type { Holder } from './types';

/** A lock's value as read: string, hash fields, or zset members with scores. */
export type LockValue =
  | { kind: 'string'; value: string }
  | { kind: 'hash'; fields: Record<string, string> }
  | { kind: 'zset'; members: { member: string; score: number }[] }
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

function decodeRedisson(fields: Record<string, string>): Holder {
  const holders = Object.keys(fields)
    .map((field) => ({ field, m: REDISSON_FIELD.exec(field) }))
    .filter((h): h is { field: string; m: RegExpExecArray } => h.m !== null);
  const mode = fields.mode;
  const first = holders[0];
  if (!first) {
    return { format: 'hash', label: `hash with ${Object.keys(fields).length} fields`, details: {} };
  }
  const modeText = mode ? ` (${mode} lock)` : first.m[3] ? ' (write lock)' : '';
  const details: Record<string, string> = { holders: holders.map((h) => `${h.field}=${fields[h.field]}`).join(', ') };
  if (mode) details.mode = mode;
  if (holders.length > 1) {
    return { format: 'redisson', label: `${holders.length} redisson holders${modeText}`, token: first.field, details };
  }
  const count = Number(fields[first.field]);
  const reentry = count > 1 ? `, entered ${count}×` : '';
  details.client = first.m[1]!;
  details.thread = first.m[2]!;
  return { format: 'redisson', label: `redisson client ${short(first.m[1]!)} thread ${first.m[2]}${reentry}${modeText}`, token: first.field, details };
}

function decodeSemaphore(key: string, members: { member: string; score: number }[]): Holder {
  const acquired = (score: number) => (Number.isFinite(score) && score > 1e12 ? new Date(score).toISOString() : String(score));
  const details: Record<string, string> = {};
  for (const { member, score } of members) details[member] = acquired(score);
  // redis-semaphore's own key prefix is the evidence; UUID members alone are not.
  const format = key.startsWith('semaphore:') ? 'redis-semaphore' : 'zset';
  const first = members[0];
  if (!first) return { format, label: 'no holders', details };
  const label = members.length === 1 ? `${format} ${short(first.member)}` : `${members.length} holders: ${members.slice(0, 2).map((m) => short(m.member)).join(', ')}${members.length > 2 ? ', …' : ''}`;
  return { format, label, token: first.member, details };
}

export function decodeHolder(key: string, value: LockValue): Holder {
  switch (value.kind) {
    case 'string':
      return decodeStringHolder(key, value.value);
    case 'hash':
      return decodeRedisson(value.fields);
    case 'zset':
      return decodeSemaphore(key, value.members);
    case 'other':
      return { format: 'unknown', label: `${value.type} (value not read)` };
  }
}

/** The raw value as one string: the string itself, or JSON for a hash or zset. */
export function renderRaw(value: LockValue): string {
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'hash':
      return JSON.stringify(value.fields);
    case 'zset':
      return JSON.stringify(Object.fromEntries(value.members.map((m) => [m.member, m.score])));
    case 'other':
      return `(${value.type})`;
  }
}

/** The holder a presented token stands for, for the audit record ("old holder"). */
export function holderFromToken(key: string, type: string, token: string): Holder {
  if (type === 'hash') return decodeRedisson({ [token]: '1' });
  if (type === 'zset') return decodeSemaphore(key, [{ member: token, score: Number.NaN }]);
  return decodeStringHolder(key, token);
}

/** Pairs a flat [field, value, field, value...] reply. */
export function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** Rebuilds a LockValue from a flat reply `[type, ...payload]` (the guarded scripts' snapshot). */
export function valueFromSnapshot(snapshot: readonly string[]): LockValue {
  const [type = 'none', ...rest] = snapshot;
  if (type === 'string') return { kind: 'string', value: rest[0] ?? '' };
  if (type === 'hash') return { kind: 'hash', fields: Object.fromEntries(pairs(rest)) };
  if (type === 'zset') return { kind: 'zset', members: pairs(rest).map(([member, score]) => ({ member, score: Number(score) })) };
  return { kind: 'other', type };
}
