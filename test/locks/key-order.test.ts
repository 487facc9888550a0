// The listing's row order is localeCompare's on the key, whether or not the previous listing's order is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortByKey } from '../../client/src/locks/key-order';

/** Keys whose collator order differs from code-point order: case, punctuation, digits, accents. */
const KEYS = ['lock:b', 'lock:B', 'Lock:a', 'lock:a-1', 'lock:a_1', 'lock:a1', 'lock:a10', 'lock:a2', 'lock:é', 'lock:e', 'lock:{x}', 'mutex:z', 'lock:ä', '', 'lock:'];
const localeOrder = (keys: string[]) => [...keys].sort((a, b) => a.localeCompare(b));
const rowsOf = (keys: string[]) => keys.map((key) => ({ key }));
/** A fixed shuffle, so a failure can be replayed. */
const shuffled = (keys: string[]) => keys.map((k, i) => ({ k, w: (i * 7919) % 13 })).sort((a, b) => a.w - b.w).map((x) => x.k);

test('without a previous listing the rows are in localeCompare order', () => {
  const rows = rowsOf(shuffled(KEYS));
  sortByKey(rows);
  assert.deepEqual(rows.map((r) => r.key), localeOrder(KEYS));
  assert.notDeepEqual(localeOrder(KEYS), [...KEYS].sort(), 'the keys tell collator order from code-point order');
});

test('with a previous listing in order, new keys fall in their collator place among the known ones', () => {
  const previous = rowsOf(localeOrder(KEYS.filter((_, i) => i % 2 === 0)));
  const current = [...KEYS.filter((_, i) => i % 3 !== 1), 'lock:c', 'LOCK:A'];
  const rows = rowsOf(shuffled(current));
  sortByKey(rows, previous);
  assert.deepEqual(rows.map((r) => r.key), localeOrder(current));
});

test('a previous listing out of order (or with a key twice) is not trusted', () => {
  for (const previous of [rowsOf([...KEYS].reverse()), rowsOf([...localeOrder(KEYS), 'lock:a'])]) {
    const rows = rowsOf(shuffled(KEYS));
    sortByKey(rows, previous);
    assert.deepEqual(rows.map((r) => r.key), localeOrder(KEYS));
  }
});
