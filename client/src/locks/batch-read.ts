// Reads the values and TTLs of one SCAN batch on one master with only the commands the listing needs:
// per key, the bounded read for the type the key is expected to have (its type in the previous listing,
// else string, since nearly every lock is one) and its PTTL. A read that did not fill its bound (GETRANGE
// 0..4095, HRANDFIELD 100, ZRANGE 0..99) is the whole value, so its size needs no command of its own;
// only a value that filled it costs a STRLEN / HLEN + HGET mode / ZCARD. Only a key of another type than
// expected (WRONGTYPE) costs a TYPE and then the reads of its real type. A refresh that passes the
// previous rows therefore sends no command that fails. Each step is one round trip for the whole batch.
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

const READ_TYPES = new Set(['string', 'hash', 'zset']);

/** The size of a value whose read filled its bound, and a sampled hash's "mode" (a Redisson read-write lock). */
function queueSize(p: Pipeline, key: string, type: string): void {
  if (type === 'string') p.strlen(key);
  else if (type === 'hash') p.hlen(key).hget(key, 'mode');
  else if (type === 'zset') p.zcard(key);
}

/** The bounded read of a value of `type`; for a type no lock library uses, TYPE to confirm it. */
function queueValue(p: Pipeline, key: string, type: string): void {
  if (type === 'string') p.getrangeBuffer(key, 0, STRING_BYTES_READ - 1);
  else if (type === 'hash') p.hrandfield(key, HASH_FIELDS_READ, 'WITHVALUES');
  else if (type === 'zset') p.zrange(key, 0, String(ZSET_MEMBERS_READ - 1), 'WITHSCORES');
  else p.type(key);
}

type Parsed =
  | { value: LockValue }
  /** Not of the expected type: the real one when TYPE already said it. */
  | { retype: string | undefined }
  /** The read filled its bound: the value's size is still to be asked. */
  | { unsized: true }
  /** Deleted since it was found: Redis keeps no empty hash or zset, and a size of 0 is no value left. */
  | { gone: true }
  | { failed: true };

/** A value from its read's reply, followed by the size replies when they were asked. */
function parseValue(type: string, replies: Reply[]): Parsed {
  for (const [err] of replies) if (err) return err.message.startsWith('WRONGTYPE') ? { retype: undefined } : { failed: true };
  const [payload, size, mode] = [replies[0]?.[1], replies[1]?.[1], replies[2]?.[1]];
  const sized = replies.length > 1;
  if (sized && Number(size) === 0) return { gone: true };
  if (type === 'string') {
    const bytes = payload as Buffer;
    if (sized) return { value: { kind: 'string', value: bytes.toString(), length: Number(size) } };
    return bytes.length < STRING_BYTES_READ ? { value: { kind: 'string', value: bytes.toString() } } : { unsized: true };
  }
  if (type === 'hash') {
    const read = pairs(payload as string[]);
    if (!read.length) return { gone: true };
    if (!sized) return read.length < HASH_FIELDS_READ ? { value: { kind: 'hash', fields: Object.fromEntries(read), total: read.length } } : { unsized: true };
    const fields = Object.fromEntries(read);
    if (typeof mode === 'string') fields.mode = mode;
    return { value: { kind: 'hash', fields, total: Number(size) } };
  }
  if (type === 'zset') {
    const members = pairs(payload as string[]).map(([member, score]) => ({ member, score: Number(score) }));
    if (!members.length) return { gone: true };
    if (!sized) return members.length < ZSET_MEMBERS_READ ? { value: { kind: 'zset', members, total: members.length } } : { unsized: true };
    return { value: { kind: 'zset', members, total: Number(size) } };
  }
  return payload === type ? { value: { kind: 'other', type } } : { retype: String(payload) };
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

type Unsized = { key: string; type: string; pttl: number; read: Reply[] };

/** Values and TTLs of `keys` (all on the server behind `send`); keys gone since SCAN are left out. */
export async function readValues(send: Queue, keys: readonly string[], typeHints: ReadonlyMap<string, { type: string }>): Promise<BatchValues> {
  const out: BatchValues = { read: [], refused: [], unreadable: [] };
  const retyped: { key: string; pttl: number; type: string | undefined }[] = [];
  /** Settles a key from its read; a value that filled its bound goes to `unsized`, a WRONGTYPE (when `retry`) to `retyped`. */
  const settle = (key: string, type: string, pttl: number, read: Reply[], unsized: Unsized[], retry: boolean) => {
    const parsed = parseValue(type, read);
    if ('value' in parsed) out.read.push({ key, type, pttl, value: parsed.value });
    else if ('unsized' in parsed) unsized.push({ key, type, pttl, read });
    else if ('retype' in parsed && retry) retyped.push({ key, pttl, type: parsed.retype });
    // Failed, or changed type again within a few milliseconds: say so rather than chase it.
    else if (!('gone' in parsed)) out.unreadable.push(key);
  };
  const size = (unsized: Unsized[]) =>
    round(send, unsized, (p, { key, type }) => queueSize(p, key, type), ({ key, type, pttl, read }, replies) => settle(key, type, pttl, [...read, ...replies], [], false));

  // The value first, then PTTL: a key deleted in between reads as gone (-2), never as an empty value.
  const readThenTtl = (p: Pipeline, { key, type }: { key: string; type: string }) => {
    queueValue(p, key, type);
    p.pttl(key);
  };
  const settleWithTtl = (unsized: Unsized[], retry: boolean) => ({ key, type }: { key: string; type: string }, replies: Reply[]) => {
    const [err, pttl] = replies[replies.length - 1]!;
    if (err) out.refused.push({ key, error: err });
    else if (pttl !== -2) settle(key, type, Number(pttl), replies.slice(0, -1), unsized, retry);
  };
  const unsized: Unsized[] = [];
  const expected = keys.map((key) => ({ key, type: typeHints.get(key)?.type ?? 'string' }));
  await round(send, expected, readThenTtl, settleWithTtl(unsized, true));

  // Rare, and sent together: the size of values that filled their bound, TYPE of keys not of the expected type.
  await Promise.all([
    size(unsized),
    round(send, retyped.filter((r) => r.type === undefined), (p, { key }) => p.type(key), (r, [[err, type]]) => {
      if (err) out.unreadable.push(r.key);
      else r.type = String(type);
    }),
  ]);

  // The reads of the real type; other types need none: TYPE said it.
  const known = retyped.filter((r): r is typeof r & { type: string } => r.type !== undefined && r.type !== 'none');
  for (const { key, pttl, type } of known.filter((r) => !READ_TYPES.has(r.type))) out.read.push({ key, type, pttl, value: { kind: 'other', type } });
  const unsizedAgain: Unsized[] = [];
  await round(send, known.filter((r) => READ_TYPES.has(r.type)), readThenTtl, settleWithTtl(unsizedAgain, false));
  await size(unsizedAgain);
  return out;
}
