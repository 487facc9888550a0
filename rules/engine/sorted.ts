// Binary search over lists kept in document order (the file index, finding spans).

/** The index of the first item whose `key` is at least `value` (the length when there is none). */
export function firstAtOrAfter<T>(sorted: readonly T[], value: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(sorted[mid]) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
