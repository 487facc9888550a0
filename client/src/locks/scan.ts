// The listing: SCAN MATCH per pattern on every master (never replicas, never KEYS), duplicates removed,
// a row cap, an optional pause between batches. Each SCAN batch is read (script-read.ts: one read-only
// script per batch for values, TTLs and fences; where it cannot run, batch-read.ts and fence-lookup.ts
// per command) while the next SCAN is already on its way, so the walk of the keyspace never waits for the reads.
import type Redis from 'ioredis';
import { readValues } from './batch-read';
import { LockwiseError } from './errors';
import { readExisting, slotGroups } from './fence-lookup';
import { fenceCandidates, pickFence } from './fences';
import { decodeHolder, renderRaw, type LockValue } from './holders';
import { sortByKey } from './key-order';
import { readByScript, scriptRefused } from './script-read';
import { direct, SharedPipeline, type Queue } from './shared-pipeline';
import { applyStates, goneRows } from './states';
import type { Holder, ListOptions, ListResult, LockRow } from './types';

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
  /** Each key's row in the previous listing: its type is what its value is read as first. */
  before: ReadonlyMap<string, LockRow>;
}

function noteError(c: Collector, node: string, error: LockwiseError): void {
  const id = `${node}\n${error.message}`;
  if (!c.errors.has(id)) c.errors.set(id, { node, error });
}

/** Reads one batch of keys that all live on `node` (through `send`): values and TTLs, and beside them the fences that exist. */
async function readBatch(ctx: ScanContext, c: Collector, node: string, client: Redis, send: Queue, keys: string[]): Promise<void> {
  const cluster = ctx.ownerOf !== undefined;
  const local = (k: string) => !cluster || ctx.ownerOf!(k) === node;
  // Every candidate, the Redisson one too: the type is not known yet (it counts only for a hash).
  const candidates = (k: string) => fenceCandidates(k, 'hash').filter(local);
  const scripted = scriptRefused(client) ? undefined : await readByScript(client, send, keys, cluster, c.before);
  const rest = scripted?.rest ?? keys;
  // What the script did not cover: keys it could not read, and in a Cluster the candidates in other slots.
  const unchecked = cluster || rest.length ? keys.flatMap(candidates).filter((f) => !scripted?.checked.has(f)) : [];
  const [values, fences] = rest.length || unchecked.length
    ? await Promise.all([readValues(send, rest, c.before), readExisting(send, slotGroups(unchecked, cluster))])
    : [{ read: [], refused: [], unreadable: [] }, new Map<string, string>()];
  for (const [k, v] of scripted?.fences ?? []) fences.set(k, v);

  for (const { error } of values.refused) noteError(c, node, ctx.explain(error, node)); // e.g. an ACL that denies this key
  for (const key of values.unreadable) {
    noteError(c, node, new LockwiseError('server', `Could not read the value of ${key} on ${node}.`, 'It may have changed type or been moved; refresh.'));
  }
  for (const { key, type, pttl, value } of scripted ? [...scripted.read, ...values.read] : values.read) {
    const row: LockRow = { key, type, pttl, holder: holderOf(key, value, c.before.get(key)), raw: renderRaw(value), state: 'held', node };
    const fence = fences.size ? pickFence(key, type, fences) : undefined;
    if (fence) row.fence = fence;
    else if (cluster) {
      const remote = fenceCandidates(key, type).filter((f) => !local(f));
      if (remote.length) c.elsewhere.push({ row, candidates: remote });
    }
    c.rows.push(row);
  }
}

/**
 * A holder is decoded from the key and its value alone, so a whole string value that is still the one the
 * previous listing decoded (its token) keeps that holder: a refresh decodes only what changed.
 */
function holderOf(key: string, value: LockValue, previous: LockRow | undefined): Holder {
  const unchanged = previous?.type === 'string' && value.kind === 'string' && value.length === undefined && previous.holder.token === value.value;
  return unchanged ? previous.holder : decodeHolder(key, value);
}

/** Cluster: fence candidates in another master's slots, looked up the same way on that master; failed masters are skipped. */
async function readRemoteFences(ctx: ScanContext, c: Collector): Promise<void> {
  const byNode = new Map<string, Set<string>>();
  for (const { candidates } of c.elsewhere) {
    for (const key of candidates) {
      const owner = ctx.ownerOf?.(key);
      if (owner) byNode.set(owner, (byNode.get(owner) ?? new Set()).add(key));
    }
  }
  const found = new Map<string, string>();
  await Promise.all(
    [...byNode].map(async ([name, keys]) => {
      const client = ctx.masters.find((m) => m.name === name)?.client;
      if (!client || client.status !== 'ready') return;
      const values = await readExisting(direct(client), slotGroups([...keys], true)).catch(() => new Map<string, string>());
      for (const [k, v] of values) found.set(k, v);
    }),
  );
  for (const { row } of c.elsewhere) {
    const fence = pickFence(row.key, row.type, found);
    if (fence) row.fence = fence;
  }
}

async function scanNode(ctx: ScanContext, c: Collector, node: MasterNode, options: Required<Omit<ListOptions, 'previous'>>): Promise<void> {
  if (!node.client) {
    c.failedNodes.add(node.name);
    noteError(c, node.name, node.error ?? new LockwiseError('disconnected', `Master ${node.name} is not connected.`, ''));
    return;
  }
  const { client } = node;
  // Each SCAN is written on its own and the walk waits only for it; the reads of the batch it found are queued
  // once the next SCAN has gone out, and go out together behind it (shared-pipeline.ts), so the server answers
  // the walk before it runs them and the walk never waits for a batch's reads. A failed read stops this
  // node's walk like a failed SCAN.
  const send = new SharedPipeline(client).queue;
  const reading: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;
  const read = (batch: string[]) => {
    reading.push(readBatch(ctx, c, node.name, client, send, batch).catch((error: unknown) => void (failure ??= { error })));
  };
  /** The batch the last SCAN found, read once the next SCAN has gone out. */
  let found: string[] | undefined;
  try {
    await avoidTouching(client);
    for (const pattern of options.patterns) {
      let cursor = '0';
      do {
        if (c.capped || failure) break;
        const scan = client.scan(cursor, 'MATCH', pattern, 'COUNT', options.count);
        if (found) read(found);
        found = undefined;
        const [next, keys] = await scan;
        cursor = next;
        c.scanned += keys.length;
        const fresh = keys.filter((k) => !c.seen.has(k));
        for (const k of fresh) c.seen.add(k);
        const room = Math.max(0, c.rowCap - c.reserved);
        if (fresh.length > room) c.capped = true;
        const batch = fresh.slice(0, room);
        c.reserved += batch.length;
        if (batch.length) found = batch;
        if (options.pauseMs > 0 && cursor !== '0') await new Promise((r) => setTimeout(r, options.pauseMs));
      } while (cursor !== '0');
    }
  } catch (err) {
    failure ??= { error: err };
  }
  if (found) read(found);
  await Promise.all(reading);
  if (failure) {
    c.failedNodes.add(node.name);
    noteError(c, node.name, ctx.explain(failure.error, node.name));
  }
}

export async function listLocks(ctx: ScanContext, options: ListOptions = {}): Promise<ListResult> {
  const resolved = {
    patterns: [...new Set(options.patterns?.length ? options.patterns : DEFAULT_PATTERNS)],
    count: options.count ?? DEFAULT_COUNT,
    rowCap: options.rowCap ?? DEFAULT_ROW_CAP,
    pauseMs: options.pauseMs ?? 0,
  };
  const c: Collector = { rows: [], seen: new Set(), reserved: 0, rowCap: resolved.rowCap, capped: false, scanned: 0, errors: new Map(), failedNodes: new Set(), elsewhere: [], before: new Map((options.previous ?? []).map((r) => [r.key, r])) };
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
  sortByKey(rows, options.previous);
  return { rows, partial, scanned: c.scanned, errors };
}
