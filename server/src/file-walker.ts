// Lists a workspace folder's source files for the background scan: honours every .gitignore on the
// way down (each relative to its own folder), skips dependency and build output folders, symlinks
// (no cycles) and declaration files. Directories are read one at a time so the server stays responsive.
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ANALYZED_EXTENSIONS } from '../../rules/analyze';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'out', '.git', '.hg', '.svn']);

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
    const rel = relative(base, path).split(sep).join('/');
    if (rel && rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

async function readGitIgnore(dir: string, entries: Dirent[]): Promise<GitIgnore | undefined> {
  if (!entries.some((e) => e.name === '.gitignore' && e.isFile())) return undefined;
  try {
    return { base: dir, rules: ignore().add(await readFile(join(dir, '.gitignore'), 'utf8')) };
  } catch {
    return undefined;
  }
}

/** Yields source file paths under `root`; stops early when `cancelled()` turns true. */
export async function* walkSourceFiles(root: string, cancelled: () => boolean): AsyncGenerator<string> {
  const queue: { dir: string; gitignores: GitIgnore[] }[] = [{ dir: root, gitignores: [] }];
  while (queue.length > 0 && !cancelled()) {
    const { dir, gitignores } = queue.shift() as (typeof queue)[number];
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // vanished or unreadable: nothing to scan there
    }
    const own = await readGitIgnore(dir, entries);
    const stack = own ? [...gitignores, own] : gitignores;
    for (const entry of entries) {
      const path = join(dir, entry.name);
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
  const stack: GitIgnore[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i < parts.length - 1 && SKIPPED_DIRS.has(parts[i])) return true;
    try {
      stack.push({ base: dir, rules: ignore().add(await readFile(join(dir, '.gitignore'), 'utf8')) });
    } catch {
      // no .gitignore at this level
    }
    const next = join(dir, parts[i]);
    if (ignoredByGit(stack, next, i < parts.length - 1)) return true;
    dir = next;
  }
  return false;
}
