// The listing: SCAN MATCH per pattern on every master (never replicas, never KEYS), duplicates removed,
// a row cap, an optional pause between batches, and per SCAN batch one pipeline of TYPE + PTTL + STRLEN +
// GETRANGE (+ the fence candidates) and, only for hash/zset keys, a second one with HLEN + HRANDFIELD +
// HGET mode / ZCARD + ZRANGE: every value read is bounded (bounded-read.ts).
import type Redis from 'ioredis';
import { LockwiseError } from './errors';
import { fenceCandidates, isFenceValue, redissonFenceKey } from './fences';
import { HASH_FIELDS_READ, STRING_BYTES_READ, ZSET_MEMBERS_READ } from './bounded-read';
import { decodeHolder, pairs, renderRaw, type LockValue } from './holders';
import { applyStates, goneRows } from './states';
import type { ListOptions, ListResult, LockRow } from './types';

export const DEFAULT_PATTERNS = ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*'];
export const DEFAULT_COUNT = 1000;
export const DEFAULT_ROW_CAP = 5000;

/** One master to scan; `client` is absent when it could not be reached (then `error` says why). */
export interface MasterNode {
  name: string;
  client?: Redis;
  error?: LockwiseError;
}

export interface ScanContext {
  masters: MasterNode[];
  /** Cluster only: the master ("host:port") serving a key's slot. */
  ownerOf?(key: string): string | undefined;
  explain(err: unknown, node: string): LockwiseError;
}

type Reply = [Error | null, unknown][];

async function exec(pipeline: ReturnType<Redis['pipeline']>): Promise<Reply> {
  return ((await pipeline.exec()) ?? []) as Reply;
}

/** Redis 7.2 added CLIENT NO-TOUCH, so a listing does not refresh the keys' LRU clocks. */
export function supportsNoTouch(version: string | undefined): boolean {
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  return major > 7 || (major === 7 && minor >= 2);
}

const versions = new WeakMap<Redis, string | undefined>();

async function avoidTouching(client: Redis): Promise<void> {
  if (!versions.has(client)) {
    // INFO may be refused by a restricted ACL user: then we simply do not know and skip NO-TOUCH.
    const info = await client.info('server').catch(() => '');
    versions.set(client, /redis_version:([\d.]+)/.exec(info)?.[1]);
  }
  if (supportsNoTouch(versions.get(client))) await client.call('CLIENT', 'NO-TOUCH', 'ON').catch(() => undefined);
}

interface Collector {
  rows: LockRow[];
  seen: Set<string>;
  reserved: number;
  rowCap: number;
  capped: boolean;
  scanned: number;
  /** Per node and message, the first explained error. */
  errors: Map<string, { node: string; error: LockwiseError }>;
  /** Nodes that could not be scanned at all (as opposed to a single key that could not be read). */
  failedNodes: Set<string>;
  /** Cluster: fence candidates that live on another master, read once at the end. */
  elsewhere: { row: LockRow; candidates: string[] }[];
}

function noteError(c: Collector, node: string, error: LockwiseError): void {
  const id = `${node}\n${error.message}`;
  if (!c.errors.has(id)) c.errors.set(id, { node, error });
}

type Replies = [Error | null, unknown][];

/** The value from its bounded replies: [STRLEN, GETRANGE] for a string, [HLEN, HRANDFIELD, HGET mode] or [ZCARD, ZRANGE]. */
function readValue(type: string, replies: Replies): LockValue | undefined {
  if (type !== 'string' && type !== 'hash' && type !== 'zset') return { kind: 'other', type }; // a list, set, stream...: not read
  if (replies.some(([err]) => err)) return undefined;
  const [size, payload, mode] = replies.map(([, v]) => v);
  if (type === 'string') return typeof payload === 'string' ? { kind: 'string', value: payload, length: Number(size) } : undefined;
  if (type === 'hash') {
    const fields = Object.fromEntries(pairs(payload as string[]));
    if (typeof mode === 'string') fields.mode = mode;
    return { kind: 'hash', fields, total: Number(size) };
  }
  return { kind: 'zset', members: pairs(payload as string[]).map(([member, score]) => ({ member, score: Number(score) })), total: Number(size) };
}

/** Reads TYPE, PTTL, value and fence of a batch of keys that all live on `node`. */
async function readBatch(ctx: ScanContext, c: Collector, node: MasterNode & { client: Redis }, keys: string[]): Promise<void> {
  const local = (k: string) => !ctx.ownerOf || ctx.ownerOf(k) === node.name;
  const candidates = keys.map((k) => fenceCandidates(k, 'string'));
  const first = node.client.pipeline();
  keys.forEach((key, i) => {
    first.type(key).pttl(key).strlen(key).getrange(key, 0, STRING_BYTES_READ - 1);
    for (const f of candidates[i]!.filter(local)) first.get(f);
  });
  const r1 = await exec(first);

  let at = 0;
  const readable: { key: string; type: string; pttl: number; string: Replies; fences: [string, [Error | null, unknown]][]; remote: string[] }[] = [];
  keys.forEach((key, i) => {
    const [typeReply, pttlReply] = [r1[at]!, r1[at + 1]!];
    const string = [r1[at + 2]!, r1[at + 3]!];
    const here = candidates[i]!.filter(local);
    const fences = here.map((f, j): [string, [Error | null, unknown]] => [f, r1[at + 4 + j]!]);
    at += 4 + here.length;
    const err = typeReply[0] ?? pttlReply[0];
    if (err) return noteError(c, node.name, ctx.explain(err, node.name)); // e.g. an ACL that denies this key
    if (typeReply[1] === 'none') return; // expired between SCAN and now
    readable.push({ key, type: String(typeReply[1]), pttl: Number(pttlReply[1]), string, fences, remote: candidates[i]!.filter((f) => !local(f)) });
  });

  // Second round trip only for the (rare) hash and zset locks.
  const complex = readable.filter((p) => p.type === 'hash' || p.type === 'zset');
  const r2 = new Map<string, Replies>();
  if (complex.length) {
    const second = node.client.pipeline();
    for (const p of complex) {
      // The Redisson counter shares the lock's slot by construction (same hash tag).
      if (p.type === 'hash') second.hlen(p.key).hrandfield(p.key, HASH_FIELDS_READ, 'WITHVALUES').hget(p.key, 'mode').get(redissonFenceKey(p.key));
      else second.zcard(p.key).zrange(p.key, 0, String(ZSET_MEMBERS_READ - 1), 'WITHSCORES');
    }
    const r = await exec(second);
    let j = 0;
    for (const p of complex) {
      const n = p.type === 'hash' ? 3 : 2;
      r2.set(p.key, r.slice(j, j + n));
      j += n;
      if (p.type === 'hash') p.fences.push([redissonFenceKey(p.key), r[j++]!]);
    }
  }

  for (const p of readable) {
    const value = readValue(p.type, p.type === 'string' ? p.string : (r2.get(p.key) ?? []));
    if (!value) {
      noteError(c, node.name, new LockwiseError('server', `Could not read the value of ${p.key} on ${node.name}.`, 'It may have changed type or been moved; refresh.'));
      continue;
    }
    const row: LockRow = { key: p.key, type: p.type, pttl: p.pttl, holder: decodeHolder(p.key, value), raw: renderRaw(value), state: 'held', node: node.name };
    const found = p.fences.find(([, [err, v]]) => !err && isFenceValue(v));
    if (found) row.fence = { key: found[0], value: found[1][1] as string };
    else if (p.remote.length) c.elsewhere.push({ row, candidates: p.remote });
    c.rows.push(row);
  }
}

/** Cluster: fence candidates in another master's slots, one pipeline per master; failed masters are skipped. */
async function readRemoteFences(ctx: ScanContext, c: Collector): Promise<void> {
  const byNode = new Map<string, { row: LockRow; key: string }[]>();
  for (const { row, candidates } of c.elsewhere) {
    for (const key of candidates) {
      const owner = ctx.ownerOf?.(key);
      if (!owner) continue;
      if (!byNode.has(owner)) byNode.set(owner, []);
      byNode.get(owner)!.push({ row, key });
    }
  }
  await Promise.all(
    [...byNode].map(async ([name, lookups]) => {
      const client = ctx.masters.find((m) => m.name === name)?.client;
      if (!client || client.status !== 'ready') return;
      const pipeline = client.pipeline();
      for (const l of lookups) pipeline.get(l.key);
      const replies = await exec(pipeline).catch(() => []);
      lookups.forEach((l, i) => {
        const [err, v] = replies[i] ?? [null, null];
        if (!err && !l.row.fence && isFenceValue(v)) l.row.fence = { key: l.key, value: v };
      });
    }),
  );
}

async function scanNode(ctx: ScanContext, c: Collector, node: MasterNode, options: Required<Omit<ListOptions, 'previous'>>): Promise<void> {
  if (!node.client) {
    c.failedNodes.add(node.name);
    noteError(c, node.name, node.error ?? new LockwiseError('disconnected', `Master ${node.name} is not connected.`, ''));
    return;
  }
  const target = { ...node, client: node.client };
  try {
    await avoidTouching(node.client);
    for (const pattern of options.patterns) {
      let cursor = '0';
      do {
        if (c.capped) return;
        const [next, keys] = await node.client.scan(cursor, 'MATCH', pattern, 'COUNT', options.count);
        cursor = next;
        c.scanned += keys.length;
        const fresh = keys.filter((k) => !c.seen.has(k));
        fresh.forEach((k) => c.seen.add(k));
        const room = Math.max(0, c.rowCap - c.reserved);
        if (fresh.length > room) c.capped = true;
        const batch = fresh.slice(0, room);
        c.reserved += batch.length;
        if (batch.length) await readBatch(ctx, c, target, batch);
        if (options.pauseMs > 0 && cursor !== '0') await new Promise((r) => setTimeout(r, options.pauseMs));
      } while (cursor !== '0');
    }
  } catch (err) {
    c.failedNodes.add(node.name);
    noteError(c, node.name, ctx.explain(err, node.name));
  }
}

export async function listLocks(ctx: ScanContext, options: ListOptions = {}): Promise<ListResult> {
  const resolved = {
    patterns: [...new Set(options.patterns?.length ? options.patterns : DEFAULT_PATTERNS)],
    count: options.count ?? DEFAULT_COUNT,
    rowCap: options.rowCap ?? DEFAULT_ROW_CAP,
    pauseMs: options.pauseMs ?? 0,
  };
  const c: Collector = { rows: [], seen: new Set(), reserved: 0, rowCap: resolved.rowCap, capped: false, scanned: 0, errors: new Map(), failedNodes: new Set(), elsewhere: [] };
  await Promise.all(ctx.masters.map((node) => scanNode(ctx, c, node, resolved)));
  await readRemoteFences(ctx, c);

  // A fence key that itself matched a pattern (lock:{x}:fence matches lock:*) is shown with its lock only.
  const fenceKeys = new Set(c.rows.flatMap((r) => (r.fence ? [r.fence.key] : [])));
  const rows = c.rows.filter((r) => !fenceKeys.has(r.key));
  const failures = [...c.errors.values()];
  // When every master failed (always so for a single server) the refresh failed: an error, not a partial result.
  if (ctx.masters.length && ctx.masters.every((m) => c.failedNodes.has(m.name))) {
    throw failures.find((f) => f.node === ctx.masters[0]!.name)!.error;
  }
  const errors = failures.map((f) => ({ node: f.node, message: f.error.message }));
  const partial = c.capped || errors.length > 0;
  applyStates(rows, options.previous);
  // Only a complete listing can tell that a lock disappeared.
  if (!partial) rows.push(...goneRows(rows, options.previous));
  rows.sort((a, b) => a.key.localeCompare(b.key));
  return { rows, partial, scanned: c.scanned, errors };
}
