// Lists a workspace folder's source files for the background scan: honours every .gitignore on the
// way down (each relative to its own folder) and those above the folder up to its repository root,
// skips dependency and build output folders, symlinks (no cycles) and declaration files.
// Directories are taken in breadth-first order; the next LISTINGS_AHEAD of them are listed while the
// current one is filtered, so the walk does not wait on the file system one folder at a time.
import { existsSync, type Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ANALYZED_EXTENSIONS } from '../../rules/analyze';
import { ignorePath } from '../../rules/ignore-globs';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', '.git', '.hg', '.svn']);
const LISTINGS_AHEAD = 4;

interface GitIgnore {
  base: string;
  rules: Ignore;
}

export function isSourceFile(path: string): boolean {
  const lower = path.toLowerCase();
  if (/\.d\.[cm]?ts$/.test(lower)) return false;
  return ANALYZED_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

function ignoredByGit(stack: readonly GitIgnore[], path: string, isDir: boolean): boolean {
  for (const { base, rules } of stack) {
    const rel = ignorePath(base, path);
    if (rel && rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

async function readGitIgnore(dir: string): Promise<GitIgnore | undefined> {
  try {
    return { base: dir, rules: ignore().add(await readFile(join(dir, '.gitignore'), 'utf8')) };
  } catch {
    return undefined; // none here
  }
}

/** The .gitignore files of the folders above `root`, outermost first, up to its repository root. */
async function ancestorGitIgnores(root: string): Promise<GitIgnore[]> {
  const found: GitIgnore[] = [];
  for (let dir = root; !existsSync(join(dir, '.git')); ) {
    const parent = dirname(dir);
    if (parent === dir) return []; // not inside a repository: no outer .gitignore applies
    dir = parent;
    const own = await readGitIgnore(dir);
    if (own) found.unshift(own);
  }
  return found;
}

interface QueuedDir {
  dir: string;
  gitignores: GitIgnore[];
  /** Started when the folder is among the next LISTINGS_AHEAD; undefined when unreadable or vanished. */
  entries?: Promise<Dirent[] | undefined>;
}

/** Yields source file paths under `root`; stops early when `cancelled()` turns true. */
export async function* walkSourceFiles(root: string, cancelled: () => boolean): AsyncGenerator<string> {
  const queue: QueuedDir[] = [{ dir: root, gitignores: await ancestorGitIgnores(root) }];
  while (queue.length > 0 && !cancelled()) {
    for (const next of queue.slice(0, LISTINGS_AHEAD)) next.entries ??= readdir(next.dir, { withFileTypes: true }).catch(() => undefined);
    const { dir, gitignores, entries: listing } = queue.shift() as QueuedDir;
    const entries = await listing;
    if (!entries) continue; // vanished or unreadable: nothing to scan there
    const own = entries.some((e) => e.name === '.gitignore' && e.isFile()) ? await readGitIgnore(dir) : undefined;
    const stack = own ? [...gitignores, own] : gitignores;
    // dir is normalised and an entry's name holds no separator: concatenation is join without its normalising.
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    for (const entry of entries) {
      const path = prefix + entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !ignoredByGit(stack, path, true)) queue.push({ dir: path, gitignores: stack });
      } else if (entry.isFile() && isSourceFile(path) && !ignoredByGit(stack, path, false)) {
        yield path;
      }
    }
  }
}

/** True when one of the folder's .gitignore files (root down to the file's folder) excludes `path`. */
export async function isGitIgnored(root: string, path: string): Promise<boolean> {
  const rel = relative(root, path);
  if (rel.startsWith('..')) return false;
  const parts = rel.split(sep);
  let dir = root;
  const stack = await ancestorGitIgnores(root);
  for (let i = 0; i < parts.length; i++) {
    if (i < parts.length - 1 && SKIPPED_DIRS.has(parts[i])) return true;
    const own = await readGitIgnore(dir);
    if (own) stack.push(own);
    const next = join(dir, parts[i]);
    if (ignoredByGit(stack, next, i < parts.length - 1)) return true;
    dir = next;
  }
  return false;
}
