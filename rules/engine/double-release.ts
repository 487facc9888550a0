// `try { work; await release(key) } finally { await release(key) }`: on the path that released in the
// try, the finally releases again. Between the two the lock is free, another process can take it, and a
// second release that does not compare the token deletes that holder's lock.
import { ts } from './typescript';
import { sameKey } from './keys';
import type { Release } from './model';
import { ancestorWhere, contains, isFunctionLike, type Node } from './nodes';

/** The try whose finally block holds `release` (in the release's own function). */
function finallyOf(release: Release): ts.TryStatement | undefined {
  for (let node: Node = release.call; node.parent && !isFunctionLike(node); node = node.parent) {
    const parent = node.parent;
    if (ts.isTryStatement(parent) && parent.finallyBlock === node) return parent;
  }
  return undefined;
}

function sameLock(a: Release, b: Release): boolean {
  if (a.handle || b.handle) return a.handle === b.handle;
  return !!a.key && !!b.key && sameKey(a.key, b.key);
}

/** The release in the try block that already freed the lock before `release`, in a finally, runs again. */
export function releasedBefore(release: Release, releases: readonly Release[]): Release | undefined {
  const tryStatement = finallyOf(release);
  if (!tryStatement) return undefined;
  const fn = ancestorWhere(release.call, isFunctionLike);
  return releases.find((r) =>
    r !== release && contains(tryStatement.tryBlock, r.call) && ancestorWhere(r.call, isFunctionLike) === fn && sameLock(r, release));
}
