// "Go to Code That Takes This Lock": which acquire sites (from the server's lockwise/lockSites request)
// can produce a given key. A site's keyGlob is a Redis glob derived from the key expression in code.
import type { LockSite } from '../../../server/src/protocol';
import { globSpecificity, redisGlobToRegExp } from './redis-glob';

/** Sites whose glob matches the key, most specific first. A bare "*" (key unknown) never matches: it would point everywhere. */
export function sitesForKey(key: string, sites: readonly LockSite[]): LockSite[] {
  return sites
    .filter((site) => /[^*]/.test(site.keyGlob) && redisGlobToRegExp(site.keyGlob).test(key))
    .sort((a, b) => globSpecificity(b.keyGlob) - globSpecificity(a.keyGlob) || a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line);
}

/** The literal text before a glob's first wildcard ("lock:order:" for "lock:order:*:x"). */
function literalPrefix(glob: string): string {
  const m = /^(?:\\.|[^*?[\\])*/.exec(glob);
  return (m?.[0] ?? '').replace(/\\(.)/g, '$1');
}

/** "lock:*" style patterns: a literal prefix and one trailing star; they cover every glob sharing that prefix. */
function coveringPrefix(pattern: string): string | undefined {
  const prefix = literalPrefix(pattern);
  return pattern === `${prefix.replace(/[*?[\\]/g, '\\$&')}*` ? prefix : undefined;
}

/**
 * Globs from code to add to the SCAN patterns. Every pattern costs a full SCAN of the keyspace, so a
 * glob already covered by a pattern ("lock:order:*" by "lock:*") is not added, and a glob without a
 * literal prefix is never added: it would make every key in the database a "lock".
 */
export function scanGlobsFromSites(sites: readonly LockSite[], existing: readonly string[]): string[] {
  const chosen = new Set<string>();
  const globs = [...new Set(sites.map((s) => s.keyGlob))].filter((g) => literalPrefix(g) !== '');
  // Shorter prefixes first so that "order:*" is chosen before "order:eu:*", which it covers.
  globs.sort((a, b) => literalPrefix(a).length - literalPrefix(b).length || a.localeCompare(b));
  for (const glob of globs) {
    const prefix = literalPrefix(glob);
    const covered = [...existing, ...chosen].some((p) => {
      const cover = coveringPrefix(p);
      return p === glob || (cover !== undefined && prefix.startsWith(cover));
    });
    if (!covered) chosen.add(glob);
  }
  return [...chosen].sort();
}
