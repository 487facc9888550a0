// The view's filter: a Redis glob ("lock:order:*") matches keys; any other text matches, case-insensitively,
// a key, a holder label, a holder format or a state.
import type { LockRow } from '../locks/types';
import { hasGlobSyntax, redisGlobToRegExp } from './redis-glob';

export type RowFilter = (row: LockRow) => boolean;

export function rowFilter(text: string): RowFilter | undefined {
  const query = text.trim();
  if (!query) return undefined;
  if (hasGlobSyntax(query)) {
    const re = redisGlobToRegExp(query);
    return (row) => re.test(row.key);
  }
  const needle = query.toLowerCase();
  return (row) =>
    [row.key, row.holder.label, row.holder.format, row.state].some((field) => field.toLowerCase().includes(needle));
}
