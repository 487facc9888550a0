// Re-reads one lock through the routing client (any topology), e.g. right before a confirmation dialog.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { readExisting, slotGroups } from './fence-lookup';
import { fenceCandidates, pickFence } from './fences';
import { readValueBounded } from './bounded-read';
import { decodeHolder, renderRaw } from './holders';
import { direct } from './shared-pipeline';
import { applyStates } from './states';
import type { LockRow } from './types';

export async function readOne(router: Redis | Cluster, key: string, previous?: LockRow): Promise<LockRow | undefined> {
  const type = await router.type(key);
  if (type === 'none') return undefined;
  // Through a Cluster router one pipeline per slot: its keys must share one.
  const [pttl, v, ...fences] = await Promise.all([
    router.pttl(key),
    readValueBounded(router, key, type),
    ...slotGroups(fenceCandidates(key, type), router.isCluster).map((group) => readExisting(direct(router), [group])),
  ]);
  if (!v || pttl === -2) return undefined;
  const row: LockRow = { key, type, pttl, holder: decodeHolder(key, v), raw: renderRaw(v), state: 'held' };
  const fence = pickFence(key, type, new Map(fences.flatMap((found) => [...found])));
  if (fence) row.fence = fence;
  applyStates([row], previous ? [previous] : undefined);
  return row;
}
