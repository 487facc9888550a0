// Bounded read-ahead for the workspace scan: the next files are read while the current one is
// analysed, so the scan does not wait on the file system one file at a time. At most `limit` reads
// are pending (running, or done and waiting for their turn) besides the one being analysed, which
// bounds both the open files and the texts in memory.

/**
 * Yields `load(item)` for each item, in the items' order, with at most `limit` loads pending; the next
 * one starts as one is handed over. `load` must not reject: a rejection would go unhandled until its
 * turn comes.
 */
export async function* loadAhead<T, R>(items: readonly T[], limit: number, load: (item: T) => Promise<R>): AsyncGenerator<R> {
  const pending: Promise<R>[] = [];
  let next = 0;
  const fill = () => {
    while (next < items.length && pending.length < limit) pending.push(load(items[next++]));
  };
  fill();
  while (pending.length > 0) {
    const result = await (pending.shift() as Promise<R>);
    fill(); // before yielding: the next read runs while the caller analyses this one
    yield result;
  }
}
