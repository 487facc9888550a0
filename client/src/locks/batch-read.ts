// Reads the values and TTLs of one SCAN batch on one master with only the commands the listing needs:
// per key, one pipeline of the bounded read for the type the key is expected to have (its type in the
// previous listing, else string: GETRANGE alone, since nearly every lock is a string) and its PTTL. Only
// a key of another type than expected (WRONGTYPE) costs a TYPE and then the reads of its real type, and
// only a string that filled the whole range costs a STRLEN to say how long it really is. A refresh that
// passes the previous rows therefore sends no command that fails.
import { HASH_FIELDS_READ, STRING_BYTES_READ, ZSET_MEMBERS_READ } from './bounded-read';
import { pairs, type LockValue } from './holders';
import type { Pipeline, Queue, Reply } from './shared-pipeline';

export interface ValueRead {
  key: string;
  type: string;
  pttl: number;
  value: LockValue;
}

export interface BatchValues {
  read: ValueRead[];
  /** Keys whose PTTL was refused (an ACL that denies the key, say), with the server's error. */
  refused: { key: string; error: Error }[];
  /** Keys whose value could not be read (it kept changing type, or a read failed). */
  unreadable: string[];
}

/** Queues the bounded reads of a value of `type`; for a type no lock library uses, only TYPE, to confirm it. */
function queueValue(p: Pipeline, key: string, type: string, withLength = false): void {
  if (type === 'string') p.getrangeBuffer(key, 0, STRING_BYTES_READ - 1);
  else if (type === 'hash') p.hlen(key).hrandfield(key, HASH_FIELDS_READ, 'WITHVALUES').hget(key, 'mode');
  else if (type === 'zset') p.zcard(key).zrange(key, 0, String(ZSET_MEMBERS_READ - 1), 'WITHSCORES');
  else p.type(key);
  if (type === 'string' && withLength) p.strlen(key);
}

type Parsed =
  | { value: LockValue }
  /** Not of the expected type: the real one when TYPE already said it. */
  | { retype: string | undefined }
  /** A string that filled the range: its STRLEN is needed. */
  | { full: string }
  | { failed: true };

function parseValue(type: string, replies: Reply[]): Parsed {
  const err = replies.find(([e]) => e)?.[0];
  if (err) return err.message.startsWith('WRONGTYPE') ? { retype: undefined } : { failed: true };
  const [size, payload, mode] = replies.map(([, v]) => v);
  switch (type) {
    case 'string': {
      const bytes = size as Buffer;
      if (replies.length > 1) return { value: { kind: 'string', value: bytes.toString(), length: Number(payload) } };
      return bytes.length < STRING_BYTES_READ ? { value: { kind: 'string', value: bytes.toString() } } : { full: bytes.toString() };
    }
    case 'hash': {
      const fields = Object.fromEntries(pairs(payload as string[]));
      if (typeof mode === 'string') fields.mode = mode;
      return { value: { kind: 'hash', fields, total: Number(size) } };
    }
    case 'zset':
      return { value: { kind: 'zset', members: pairs(payload as string[]).map(([member, score]) => ({ member, score: Number(score) })), total: Number(size) } };
    default:
      return size === type ? { value: { kind: 'other', type } } : { retype: String(size) };
  }
}

/** Queues `queue` for each item (one round trip for all) and hands each item its own replies. */
async function round<T>(send: Queue, items: T[], queue: (p: Pipeline, item: T) => void, take: (item: T, replies: Reply[]) => void): Promise<void> {
  if (!items.length) return;
  let ends: number[] = [];
  const replies = await send((p) => {
    const start = p.length;
    ends = items.map((item) => {
      queue(p, item);
      return p.length - start;
    });
  });
  items.forEach((item, i) => take(item, replies.slice(ends[i - 1] ?? 0, ends[i])));
}

const READ_TYPES = new Set(['string', 'hash', 'zset']);

/** Values and TTLs of `keys` (all on the server behind `send`); keys gone since SCAN are left out. */
export async function readValues(send: Queue, keys: readonly string[], typeHints: ReadonlyMap<string, string>): Promise<BatchValues> {
  const out: BatchValues = { read: [], refused: [], unreadable: [] };
  const unmeasured: { key: string; pttl: number; value: string }[] = [];
  const retyped: { key: string; pttl: number; type: string | undefined }[] = [];

  // The value first, then PTTL: a key deleted in between reads as gone (-2), never as an empty value.
  const expected = keys.map((key) => ({ key, type: typeHints.get(key) ?? 'string' }));
  const queueFirst = (p: Pipeline, { key, type }: { key: string; type: string }) => {
    queueValue(p, key, type);
    p.pttl(key);
  };
  await round(send, expected, queueFirst, ({ key, type }, replies) => {
    const [err, pttl] = replies[replies.length - 1]!;
    if (err) return void out.refused.push({ key, error: err });
    if (pttl === -2) return;
    const parsed = parseValue(type, replies.slice(0, -1));
    if ('value' in parsed) out.read.push({ key, type, pttl: Number(pttl), value: parsed.value });
    else if ('full' in parsed) unmeasured.push({ key, pttl: Number(pttl), value: parsed.full });
    else if ('retype' in parsed) retyped.push({ key, pttl: Number(pttl), type: parsed.retype });
    else out.unreadable.push(key);
  });

  // Rare, and sent together: STRLEN of strings that filled the range, TYPE of keys not of the expected type.
  await Promise.all([
    round(send, unmeasured, (p, { key }) => p.strlen(key), ({ key, pttl, value }, [[err, length]]) => {
      if (err) out.unreadable.push(key);
      else out.read.push({ key, type: 'string', pttl, value: { kind: 'string', value, length: Number(length) } });
    }),
    round(send, retyped.filter((r) => r.type === undefined), (p, { key }) => p.type(key), (r, [[err, type]]) => {
      if (err) out.unreadable.push(r.key);
      else r.type = String(type);
    }),
  ]);

  // The reads of the real type (a string's STRLEN along with it); other types need none: TYPE said it.
  const known = retyped.filter((r): r is typeof r & { type: string } => r.type !== undefined && r.type !== 'none');
  for (const { key, pttl, type } of known.filter((r) => !READ_TYPES.has(r.type))) out.read.push({ key, type, pttl, value: { kind: 'other', type } });
  await round(send, known.filter((r) => READ_TYPES.has(r.type)), (p, { key, type }) => queueValue(p, key, type, true), ({ key, pttl, type }, replies) => {
    const parsed = parseValue(type, replies);
    // Changed type again within a few milliseconds: say so rather than chase it.
    if ('value' in parsed) out.read.push({ key, type, pttl, value: parsed.value });
    else out.unreadable.push(key);
  });
  return out;
}
