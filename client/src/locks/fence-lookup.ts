// Fence counters are read only where the fence key exists. A lock has up to four candidate names
// (fences.ts) and most locks have none of them, so guessing with a GET per name costs four commands per
// lock for nothing. Instead: one multi-key EXISTS per group of candidates (a lock's candidates; in a
// Cluster those of one slot), a single-key EXISTS per name only in the rare group where some but not all
// exist (EXISTS counts, it does not say which; the count gives the last name), and a GET only for the
// names that exist.
import { keySlot } from './fences';
import type { Queue, Reply } from './shared-pipeline';

/** One `command` per entry of `args`, in one round trip. */
async function each(send: Queue, command: 'exists' | 'get', args: readonly string[][]): Promise<Reply[]> {
  return args.length ? send((p) => args.forEach((a) => p.call(command, ...a))) : [];
}

/** Candidates split so that each group can go into one multi-key command: per slot in a Cluster. */
export function slotGroups(keys: readonly string[], cluster: boolean): string[][] {
  if (!cluster) return keys.length ? [[...keys]] : [];
  const bySlot = new Map<number, string[]>();
  for (const key of keys) {
    const slot = keySlot(key);
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), key]);
  }
  return [...bySlot.values()];
}

/** The values of those keys of `groups` that exist (a failed read, e.g. another type or an ACL denial, is left out). */
export async function readExisting(send: Queue, groups: readonly string[][]): Promise<Map<string, string>> {
  const counts = await each(send, 'exists', groups);
  const existing = new Set<string>();
  /** Groups where some but not all exist; `count` is absent when the group EXISTS failed (one name the ACL denies). */
  const unsure: { group: string[]; count?: number }[] = [];
  groups.forEach((group, i) => {
    const [err, n] = counts[i] ?? [null, 0];
    if (!err && n === 0) return;
    if (!err && n === group.length) group.forEach((k) => existing.add(k));
    else unsure.push({ group, count: err ? undefined : Number(n) });
  });
  // Name by name, but the last name of a counted group follows from the count.
  const asked = [...new Set(unsure.flatMap(({ group, count }) => (count === undefined ? group : group.slice(0, -1))))];
  const answers = await each(send, 'exists', asked.map((k) => [k]));
  const exists = new Set(asked.filter((_, i) => !answers[i]![0] && answers[i]![1] === 1));
  for (const { group, count } of unsure) {
    const named = group.filter((k) => exists.has(k));
    named.forEach((k) => existing.add(k));
    if (count !== undefined && count > named.length) existing.add(group[group.length - 1]!);
  }
  const keys = [...existing];
  const values = await each(send, 'get', keys.map((k) => [k]));
  const out = new Map<string, string>();
  keys.forEach((k, i) => {
    const [err, v] = values[i] ?? [null, null];
    if (!err && typeof v === 'string') out.set(k, v);
  });
  return out;
}
