// A config's `ignore` globs compiled for matching. The `ignore` package turns each glob into a regular
// expression only when it first tests a path, so a glob that cannot be compiled (a 100,000-character
// "*a*a*a...") would surface as a SyntaxError in the middle of a walk. Each glob is compiled here, once,
// and a broken one is a config error that names it.
import ignore, { type Ignore } from 'ignore';
import { relative, sep } from 'node:path';
import { ConfigError } from './config';

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}… (${s.length} characters)` : s);

/** The compiled globs; throws ConfigError naming `file` and the first glob that cannot be compiled. */
export function compileIgnores(globs: readonly string[], file: string): Ignore {
  const compiled = ignore();
  for (const glob of globs) {
    try {
      // Testing a path compiles the glob's rule (and caches it for the real matching later).
      compiled.add(glob).ignores('lockwise-compile-check');
    } catch (err) {
      throw new ConfigError(file, `the "ignore" glob "${clip(glob)}" cannot be compiled (${clip((err as Error).message, 80)})`);
    }
  }
  return compiled;
}

/**
 * `path` as an `ignore` matcher rooted at `base` takes it: relative, '/'-separated. A walk's paths start
 * with the folder of their .gitignore or config, so a slice does it; path.relative would resolve both
 * paths again, for every entry and every level.
 */
export function ignorePath(base: string, path: string): string {
  const prefix = base.endsWith(sep) ? base : base + sep;
  const rel = path.startsWith(prefix) ? path.slice(prefix.length) : relative(base, path);
  return sep === '/' ? rel : rel.split(sep).join('/');
}
