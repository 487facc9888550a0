// Fence counters are read only where the fence key exists. A lock has up to four candidate names
// (fences.ts) and most locks have none of them, so guessing with a GET per name costs four commands per
// lock for nothing. Instead one multi-key EXISTS asks about all candidates of a SCAN batch at once (in a
// Cluster, those of one slot). EXISTS counts but does not say which: where some but not all exist, the
// names are halved and the first half asked (the second half's count follows), until each name is
// decided. A batch without fences costs one command, a lone fence among n names about log2(n) more, and
// a GET goes only to names that exist.
import { keySlot } from './fences';
import type { Queue, Reply } from './shared-pipeline';

/** One `command` per entry of `args`, in one round trip. */
async function each(send: Queue, command: 'exists' | 'get', args: readonly string[][]): Promise<Reply[]> {
  return args.length ? send((p) => args.forEach((a) => p.call(command, ...a))) : [];
}

/** Distinct keys split so that each group can go into one multi-key command: per slot in a Cluster. */
export function slotGroups(all: readonly string[], cluster: boolean): string[][] {
  const keys = [...new Set(all)];
  if (!cluster) return keys.length ? [keys] : [];
  const bySlot = new Map<number, string[]>();
  for (const key of keys) {
    const slot = keySlot(key);
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), key]);
  }
  return [...bySlot.values()];
}

/** Redis's refusal of the command itself, as opposed to one of its keys. */
const EXISTS_DENIED = /permissions to run the 'exists' command/i;

interface Part {
  keys: string[];
  /** How many of `keys` exist; absent while unknown or when its EXISTS failed (one name the ACL denies, say). */
  count?: number;
}

/** Halves of a part, asked next; the second half's count follows from the part's and the first's. */
const halves = (part: Part): [Part, Part] => {
  const mid = Math.ceil(part.keys.length / 2);
  return [{ keys: part.keys.slice(0, mid) }, { keys: part.keys.slice(mid) }];
};

/** Which keys exist, by halving: each round asks one EXISTS per undecided part, only where some but not all exist. */
async function existing(send: Queue, roots: readonly string[][]): Promise<string[]> {
  const found: string[] = [];
  let asked: Part[] = roots.filter((keys) => keys.length).map((keys) => ({ keys }));
  let derived: { part: Part; whole: Part; sibling: Part }[] = [];
  while (asked.length || derived.length) {
    const counts = await each(send, 'exists', asked.map((p) => p.keys));
    asked.forEach((p, i) => {
      const [err, n] = counts[i] ?? [null, 0];
      // A user whose ACL predates EXISTS in the browse rules: every name may exist, GET tells (as before EXISTS).
      if (err && EXISTS_DENIED.test(err.message)) p.count = p.keys.length;
      else if (!err) p.count = Number(n);
    });
    const known = asked;
    asked = [];
    for (const { part, whole, sibling } of derived) {
      if (sibling.count === undefined) asked.push(part);
      else known.push({ ...part, count: whole.count! - sibling.count });
    }
    derived = [];
    for (const part of known) {
      if (part.count === undefined) {
        // Failed: ask its halves, down to single names, so the names that may be read still count.
        if (part.keys.length > 1) asked.push(...halves(part));
      } else if (part.count >= part.keys.length) found.push(...part.keys);
      else if (part.count > 0) {
        const [first, second] = halves(part);
        asked.push(first);
        derived.push({ part: second, whole: part, sibling: first });
      }
    }
  }
  return found;
}

/** The values of those keys of `roots` that exist; each root is one multi-key EXISTS (its keys share a slot in a Cluster). */
export async function readExisting(send: Queue, roots: readonly string[][]): Promise<Map<string, string>> {
  const keys = await existing(send, roots);
  const values = await each(send, 'get', keys.map((k) => [k]));
  const out = new Map<string, string>();
  keys.forEach((k, i) => {
    const [err, v] = values[i] ?? [null, null];
    if (!err && typeof v === 'string') out.set(k, v);
  });
  return out;
}
