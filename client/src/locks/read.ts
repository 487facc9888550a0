// Re-reads one lock through the routing client (any topology), e.g. right before a confirmation dialog.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { fenceCandidates, isFenceValue } from './fences';
import { readValueBounded } from './bounded-read';
import { decodeHolder, renderRaw } from './holders';
import { applyStates } from './states';
import type { LockRow } from './types';

export async function readOne(router: Redis | Cluster, key: string, previous?: LockRow): Promise<LockRow | undefined> {
  const type = await router.type(key);
  if (type === 'none') return undefined;
  const [pttl, v] = await Promise.all([router.pttl(key), readValueBounded(router, key, type)]);
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
