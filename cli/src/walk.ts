// The files `lockwise check` reads. Folders are walked top-down so an ignored folder is never entered:
// .gitignore files at every level (and above the start folder, up to the repository root), each
// config's `ignore` globs, and folders that never hold project source (node_modules, dist, build, .git).
import ignore, { type Ignore } from 'ignore';
import { ignorePath } from '../../rules/ignore-globs';
import { skipsAsTest } from '../../rules/test-files';
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, statSync, type Dirent, type Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { CONFIG_FILE } from '../../rules/config';
import { decodeSource, MAX_SOURCE_BYTES, readOpenFile } from '../../rules/project/source-text';
import { analyzerManifest } from './analyzer-manifest';
import type { ConfigResolver, ConfigScope } from './check-config';

const BINARY_SNIFF_BYTES = 8 * 1024;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', '.git']);
// Declaration files hold no statements, so no lock code: not worth parsing.
const DECLARATION_FILE = /\.d\.[cm]?ts$/i;

export interface SourceFileEntry {
  path: string;
  scope: ConfigScope;
}

export interface PathProblem {
  path: string;
  message: string;
}

export interface WalkResult {
  files: SourceFileEntry[];
  /** Named on the command line but not JavaScript/TypeScript. */
  skipped: PathProblem[];
  /** Folders and .gitignore files that could not be read. */
  errors: PathProblem[];
}

interface GitignoreLevel {
  base: string;
  rules: Ignore;
}

export function isAnalyzable(name: string): boolean {
  const lower = name.toLowerCase();
  return analyzerManifest().extensions.some((ext) => lower.endsWith(ext)) && !DECLARATION_FILE.test(lower);
}

/**
 * Expands absolute `paths` (which must exist) into the files to check, handing each to `onFile` as soon
 * as it is found (with its index in `files`). A file named explicitly is checked even when an ignore
 * rule covers it: the user asked for it.
 */
export function walk(paths: readonly string[], configs: ConfigResolver, onFile: (file: SourceFileEntry, index: number) => void): WalkResult {
  const result: WalkResult = { files: [], skipped: [], errors: [] };
  const seen = new Set<string>();
  const add = (path: string, scope: ConfigScope): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const file = { path, scope };
    onFile(file, result.files.push(file) - 1);
  };
  for (const path of paths) {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      walkDir(path, ancestorGitignores(path, result), configs.forDir(path), configs, add, result);
    } else if (!stat.isFile()) {
      // Reading a FIFO would wait for a writer forever; a device or socket is no source either.
      result.skipped.push({ path, message: `skipped: not a regular file (${specialKind(stat)})` });
    } else if (isAnalyzable(path)) {
      add(path, configs.forDir(dirname(path)));
    } else {
      const what = DECLARATION_FILE.test(path) ? 'a declaration file' : 'not a JavaScript or TypeScript file';
      result.skipped.push({ path, message: `skipped: ${what}` });
    }
  }
  return result;
}

function walkDir(
  dir: string,
  inherited: GitignoreLevel[],
  inheritedScope: ConfigScope,
  configs: ConfigResolver,
  add: (path: string, scope: ConfigScope) => void,
  result: WalkResult,
): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    result.errors.push({ path: dir, message: `cannot read the folder (${(err as NodeJS.ErrnoException).code ?? String(err)})` });
    return;
  }
  let levels = inherited;
  let scope = inheritedScope;
  for (const entry of entries) {
    if (entry.name === '.gitignore' && entry.isFile()) {
      const level = gitignoreLevel(dir, result);
      if (level) levels = [...inherited, level];
    } else if (entry.name === CONFIG_FILE || entry.name === 'package.json') {
      // Only folders that may hold a config can change it; the rest inherit their parent's.
      scope = configs.forDir(dir);
    }
  }
  // A readdir name holds no separator and `dir` is resolved already: join's normalising pass over the
  // whole path, per entry, is not needed.
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  for (const entry of entries) {
    const path = prefix + entry.name;
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      // Linked files are read; linked folders are not followed (they can form cycles).
      try {
        isFile = statSync(path).isFile();
      } catch {
        continue; // a dangling link
      }
    }
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !isIgnored(levels, scope, path, true)) {
        walkDir(path, levels, scope, configs, add, result);
      }
    } else if (isFile && isAnalyzable(entry.name) && !isIgnored(levels, scope, path, false) && !skipsAsTest(path, scope.config)) {
      add(path, scope);
    }
  }
}

/** The folder's .gitignore rules; an unreadable file is reported like an unreadable source file, and the walk goes on. */
function gitignoreLevel(dir: string, result: WalkResult): GitignoreLevel | undefined {
  const file = join(dir, '.gitignore');
  try {
    return { base: dir, rules: ignore().add(readFileSync(file, 'utf8')) };
  } catch (err) {
    result.errors.push({ path: file, message: `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); its rules were not applied` });
    return undefined;
  }
}

function specialKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a file';
}

/** .gitignore files above `start`, up to the repository root (git reads none above it); none outside a repository. */
function ancestorGitignores(start: string, result: WalkResult): GitignoreLevel[] {
  if (existsSync(join(start, '.git'))) return [];
  const chain: string[] = [];
  for (let dir = dirname(start); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (existsSync(join(dir, '.git'))) break;
    if (dirname(dir) === dir) return [];
  }
  return chain.filter((dir) => existsSync(join(dir, '.gitignore'))).flatMap((dir) => gitignoreLevel(dir, result) ?? []);
}

/** Git's precedence: the deepest .gitignore with a matching rule decides; the config's globs always ignore. */
function isIgnored(levels: readonly GitignoreLevel[], scope: ConfigScope, path: string, isDir: boolean): boolean {
  const suffix = isDir ? '/' : '';
  if (scope.ignores) {
    const own = ignorePath(scope.base, path);
    if (own !== '..' && !own.startsWith('../') && scope.ignores.ignores(own + suffix)) return true;
  }
  for (let i = levels.length - 1; i >= 0; i--) {
    const verdict = levels[i].rules.test(ignorePath(levels[i].base, path) + suffix);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

export type SourceText = { text: string } | { skipped: string };

/** Reads one file for analysis, or says why it is skipped (too large, binary). Throws on I/O errors. */
export function readSource(path: string): SourceText {
  // One open, fstat, read and close per file (thousands per check). Non-blocking, so that a file replaced
  // by a FIFO since the walk is reported rather than waited on.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { skipped: `skipped: not a regular file (${specialKind(stat)})` };
    if (stat.size > MAX_SOURCE_BYTES) {
      return { skipped: `skipped: ${(stat.size / (1024 * 1024)).toFixed(1)} MB is over the 2 MB limit` };
    }
    const bytes = readOpenFile(fd);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      return { skipped: 'skipped: binary file (NUL byte in the first 8 KB)' };
    }
    return { text: decodeSource(bytes) };
  } finally {
    closeSync(fd);
  }
}
