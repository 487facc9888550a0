// Rows are listed in the localeCompare order of their keys. Collating costs far more than comparing two
// numbers, and a refresh mostly lists the previous listing's keys again, which are in that order already:
// their positions there order them, and the collator decides only where a new key is involved. The result
// is the collator's order exactly: positions are used only when the previous keys are strictly ordered.
const byLocale = new Intl.Collator(); // what localeCompare uses, set up once

/** Each key's position in `previous`, when its keys are strictly in collator order; else undefined. */
function positions(previous: readonly { key: string }[] | undefined): Map<string, number> | undefined {
  if (!previous?.length) return undefined;
  const at = new Map<string, number>();
  for (let i = 0; i < previous.length; i++) {
    if (i > 0 && byLocale.compare(previous[i - 1]!.key, previous[i]!.key) >= 0) return undefined;
    at.set(previous[i]!.key, i);
  }
  return at;
}

/** Sorts `rows` by key in localeCompare order, using the order of the `previous` listing where it holds. */
export function sortByKey<T extends { key: string }>(rows: T[], previous?: readonly { key: string }[]): void {
  const at = positions(previous);
  if (!at) {
    rows.sort((a, b) => byLocale.compare(a.key, b.key));
    return;
  }
  const ranked = rows.map((row) => ({ row, at: at.get(row.key) ?? -1 }));
  ranked.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : byLocale.compare(a.row.key, b.row.key)));
  ranked.forEach((r, i) => (rows[i] = r.row));
}
