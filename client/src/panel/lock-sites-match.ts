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

/** Most globs from code added to the SCAN patterns: each one is another full walk of the keyspace. */
export const MAX_CODE_GLOBS = 4;

const escapeGlob = (text: string) => text.replace(/[*?[\\]/g, '\\$&');

/** A glob's first key segment as a covering glob: "tenant42:*" for "tenant42:lock:order:*". */
function firstSegmentGlob(glob: string): string {
  const prefix = literalPrefix(glob);
  const segment = /^[^:./_{}-]*[:./_{}-]/.exec(prefix)?.[0] ?? prefix;
  return `${escapeGlob(segment)}*`;
}

/** Globs with a literal prefix that no pattern (nor a shorter chosen glob) covers, sorted. */
function uncovered(globs: readonly string[], existing: readonly string[]): string[] {
  const chosen = new Set<string>();
  const candidates = [...new Set(globs)].filter((g) => literalPrefix(g) !== '');
  // Shorter prefixes first so that "order:*" is chosen before "order:eu:*", which it covers.
  candidates.sort((a, b) => literalPrefix(a).length - literalPrefix(b).length || a.localeCompare(b));
  for (const glob of candidates) {
    const prefix = literalPrefix(glob);
    const covered = [...existing, ...chosen].some((p) => {
      const cover = coveringPrefix(p);
      return p === glob || (cover !== undefined && prefix.startsWith(cover));
    });
    if (!covered) chosen.add(glob);
  }
  return [...chosen].sort();
}

/**
 * Globs from code to add to the SCAN patterns. Every pattern costs a full SCAN of the keyspace, so what
 * code can add is bounded, whatever the number of key prefixes in it:
 * 1. a glob already covered by a pattern ("lock:order:*" by "lock:*") is not added, and a glob without
 *    a literal prefix never is (it would make every key in the database a "lock");
 * 2. when more than MAX_CODE_GLOBS remain, each is widened to its first key segment ("tenant42:*" for
 *    "tenant42:lock:order:*"), which merges globs that share it;
 * 3. when still more than MAX_CODE_GLOBS remain, the MAX_CODE_GLOBS that cover the most acquire sites
 *    are kept (ties by name) and the rest are not scanned: add them to lockwise.redis.patterns.
 */
export function scanGlobsFromSites(sites: readonly LockSite[], existing: readonly string[]): string[] {
  const globs = uncovered(sites.map((s) => s.keyGlob), existing);
  if (globs.length <= MAX_CODE_GLOBS) return globs;
  const merged = uncovered(globs.map(firstSegmentGlob), existing);
  if (merged.length <= MAX_CODE_GLOBS) return merged;
  const covers = (glob: string, site: LockSite) => literalPrefix(site.keyGlob).startsWith(literalPrefix(glob));
  const weight = new Map(merged.map((g) => [g, sites.filter((site) => covers(g, site)).length]));
  return merged
    .sort((a, b) => weight.get(b)! - weight.get(a)! || a.localeCompare(b))
    .slice(0, MAX_CODE_GLOBS)
    .sort();
}
