// Re-reads one lock through the routing client (any topology), e.g. right before a confirmation dialog.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { fenceCandidates, isFenceValue } from './fences';
import { decodeHolder, pairs, renderRaw, type LockValue } from './holders';
import { ZSET_MEMBERS_READ } from './scan';
import { applyStates } from './states';
import type { LockRow } from './types';

async function value(router: Redis | Cluster, key: string, type: string): Promise<LockValue | undefined> {
  if (type === 'string') {
    const v = await router.get(key);
    return v === null ? undefined : { kind: 'string', value: v };
  }
  if (type === 'hash') return { kind: 'hash', fields: await router.hgetall(key) };
  if (type === 'zset') {
    const flat = await router.zrange(key, 0, String(ZSET_MEMBERS_READ - 1), 'WITHSCORES');
    return { kind: 'zset', members: pairs(flat).map(([member, score]) => ({ member, score: Number(score) })) };
  }
  return { kind: 'other', type };
}

export async function readOne(router: Redis | Cluster, key: string, previous?: LockRow): Promise<LockRow | undefined> {
  const type = await router.type(key);
  if (type === 'none') return undefined;
  const [pttl, v] = await Promise.all([router.pttl(key), value(router, key, type)]);
  if (!v || pttl === -2) return undefined;
  const row: LockRow = { key, type, pttl, holder: decodeHolder(key, v), raw: renderRaw(v), state: 'held' };
  for (const f of fenceCandidates(key, type)) {
    const fence = await router.get(f).catch(() => null);
    if (isFenceValue(fence)) {
      row.fence = { key: f, value: fence };
      break;
    }
  }
  applyStates([row], previous ? [previous] : undefined);
  return row;
}
