// Bare specifiers that name the project's own code: a package of the monorepo by its name
// (`@acme/locks`, declared by package.json `workspaces`, pnpm-workspace.yaml or lerna.json), and
// Node's subpath imports (`#lib/lock`, package.json `imports`). Both are read from package.json files
// without node_modules: a checkout that was never installed resolves them too. What a package's
// manifest points at is often its build output (`dist/index.js`); where that is absent, the source
// beside it (`src/index.ts`) is the file meant.
import { dirname, join, resolve } from 'node:path';
import type { ProjectHost } from './host';
import { parseJsonc } from './jsonc';

interface Manifest {
  name?: unknown;
  workspaces?: unknown;
  main?: unknown;
  module?: unknown;
  types?: unknown;
  typings?: unknown;
  source?: unknown;
  exports?: unknown;
  imports?: unknown;
}

/** Conditions of an `exports` / `imports` target, the source-like ones first. */
const CONDITIONS = ['source', 'development', 'import', 'require', 'node', 'default', 'types'];
/** Folders a manifest's targets are built into; their sources sit in `src/`. */
const BUILD_FOLDER = /\/(?:dist|lib|build|out|esm|cjs)(?=\/)/;
/** How deep a `**` workspace pattern is searched for package folders. */
const MAX_GLOB_DEPTH = 3;

/** The paths a target of `exports` / `imports` may stand for, in order of preference. */
function targetPaths(target: unknown, star: string): string[] {
  if (typeof target === 'string') return [target.replace(/\*/g, star)];
  if (Array.isArray(target)) return target.flatMap((t) => targetPaths(t, star));
  if (!target || typeof target !== 'object') return [];
  const conditions = target as Record<string, unknown>;
  const known = CONDITIONS.filter((c) => c in conditions);
  const others = Object.keys(conditions).filter((c) => !CONDITIONS.includes(c));
  return [...known, ...others].flatMap((c) => targetPaths(conditions[c], star));
}

/** The entry of a subpath map (`exports` or `imports`) that matches `key`, exactly or by its one `*`. */
function matchSubpath(map: Record<string, unknown>, key: string): string[] {
  if (key in map) return targetPaths(map[key], '');
  for (const [pattern, target] of Object.entries(map)) {
    const star = pattern.indexOf('*');
    if (star < 0) continue;
    const [prefix, suffix] = [pattern.slice(0, star), pattern.slice(star + 1)];
    if (key.startsWith(prefix) && key.endsWith(suffix) && key.length >= prefix.length + suffix.length) {
      return targetPaths(target, key.slice(prefix.length, key.length - suffix.length));
    }
  }
  return [];
}

/** The `exports` map of a manifest as subpath -> target (a bare target or conditions are `"."`). */
function exportsMap(exportsField: unknown): Record<string, unknown> | undefined {
  if (exportsField === undefined || exportsField === null) return undefined;
  if (typeof exportsField === 'string' || Array.isArray(exportsField)) return { '.': exportsField };
  const keys = Object.keys(exportsField as object);
  return keys.some((k) => k.startsWith('.')) ? (exportsField as Record<string, unknown>) : { '.': exportsField };
}

/** `packages:` of a pnpm-workspace.yaml: its list items, quoted or not. */
function pnpmPatterns(text: string): string[] {
  const patterns: string[] = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^packages\s*:/.test(line)) inPackages = true;
    else if (/^\S/.test(line)) inPackages = false;
    else if (inPackages) {
      const item = /^\s*-\s*['"]?([^'"#]+?)['"]?\s*(?:#.*)?$/.exec(line);
      if (item) patterns.push(item[1]);
    }
  }
  return patterns;
}

export class WorkspacePackages {
  /** Folder -> the workspace root above it (or null: none). */
  private readonly roots = new Map<string, string | null>();
  /** Workspace root -> package name -> package folder. */
  private readonly packages = new Map<string, Map<string, string>>();
  private readonly manifests = new Map<string, Manifest | null>();

  constructor(private readonly host: ProjectHost) {}

  reset(): void {
    this.roots.clear();
    this.packages.clear();
    this.manifests.clear();
  }

  /** Candidate files for a bare specifier from `dir`: a workspace package's entry, or a `#` subpath import. */
  candidates(specifier: string, dir: string): string[] {
    if (specifier.startsWith('#')) return this.subpathImport(specifier, dir);
    const root = this.rootAbove(dir);
    if (!root) return [];
    const byName = this.packagesOf(root);
    const parts = specifier.split('/');
    const nameLength = specifier.startsWith('@') ? 2 : 1;
    const folder = byName.get(parts.slice(0, nameLength).join('/'));
    if (!folder) return [];
    const subpath = parts.slice(nameLength).join('/');
    return this.packageEntry(folder, subpath);
  }

  /** Where a built path's source is (`dist/lock.js` -> `src/lock.ts`), after the path itself. */
  static withSource(path: string): string[] {
    const source = path.replace(BUILD_FOLDER, '/src').replace(/\.d\.([cm]?)ts$/, '.$1ts');
    return source === path ? [path] : [path, source];
  }

  private manifest(path: string): Manifest | undefined {
    let found = this.manifests.get(path);
    if (found === undefined) {
      // Asked first: a snapshot host answers from the folder's listing, without a read that fails.
      const text = this.host.fileExists(path) ? this.host.readFile(path) : undefined;
      try {
        found = text === undefined ? null : ((parseJsonc(text) ?? null) as Manifest | null);
      } catch {
        found = null; // a broken package.json declares nothing; npm itself reports it
      }
      this.manifests.set(path, found);
    }
    return found ?? undefined;
  }

  private subpathImport(specifier: string, dir: string): string[] {
    for (let d = dir; ; d = dirname(d)) {
      const manifest = this.manifest(join(d, 'package.json'));
      if (manifest?.imports && typeof manifest.imports === 'object') {
        return matchSubpath(manifest.imports as Record<string, unknown>, specifier).filter((t) => t.startsWith('./')).map((t) => resolve(d, t));
      }
      if (manifest || dirname(d) === d || d.endsWith('/node_modules')) return [];
    }
  }

  private packageEntry(folder: string, subpath: string): string[] {
    const manifest = this.manifest(join(folder, 'package.json')) ?? {};
    const key = subpath ? `./${subpath}` : '.';
    const mapped = exportsMap(manifest.exports);
    const targets = mapped ? matchSubpath(mapped, key) : [];
    if (!subpath) {
      for (const field of [manifest.source, manifest.module, manifest.main, manifest.types, manifest.typings]) if (typeof field === 'string') targets.push(field);
      targets.push('src/index', 'index');
    } else targets.push(subpath, `src/${subpath}`);
    return targets.map((t) => resolve(folder, t));
  }

  private rootAbove(dir: string): string | undefined {
    const known = this.roots.get(dir);
    if (known !== undefined) return known ?? undefined;
    let root: string | undefined;
    if (this.patternsOf(dir)) root = dir;
    else if (dirname(dir) !== dir && !dir.endsWith('/node_modules')) root = this.rootAbove(dirname(dir));
    this.roots.set(dir, root ?? null);
    return root;
  }

  /** The workspace patterns declared in `dir`, if it is a workspace root. */
  private patternsOf(dir: string): string[] | undefined {
    const workspaces = this.manifest(join(dir, 'package.json'))?.workspaces;
    const listed = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
    if (Array.isArray(listed)) return listed.filter((p): p is string => typeof p === 'string');
    const pnpmFile = join(dir, 'pnpm-workspace.yaml');
    const pnpm = this.host.fileExists(pnpmFile) ? this.host.readFile(pnpmFile) : undefined;
    if (pnpm !== undefined) return pnpmPatterns(pnpm);
    const lerna = this.manifest(join(dir, 'lerna.json')) as { packages?: unknown } | undefined;
    return Array.isArray(lerna?.packages) ? lerna.packages.filter((p): p is string => typeof p === 'string') : undefined;
  }

  private packagesOf(root: string): Map<string, string> {
    let byName = this.packages.get(root);
    if (byName) return byName;
    byName = new Map();
    for (const pattern of this.patternsOf(root) ?? []) {
      if (pattern.startsWith('!')) continue;
      for (const folder of this.expand(root, pattern.replace(/^\.\//, '').replace(/\/+$/, '').split('/'), 0)) {
        const name = this.manifest(join(folder, 'package.json'))?.name;
        if (typeof name === 'string' && !byName.has(name)) byName.set(name, folder);
      }
    }
    this.packages.set(root, byName);
    return byName;
  }

  /** The folders a workspace pattern (`packages/*`, `apps/**`, `libs/core`) names under `dir`. */
  private expand(dir: string, parts: string[], depth: number): string[] {
    if (parts.length === 0) return [dir];
    const [head, ...rest] = parts;
    if (!head.includes('*')) return this.expand(join(dir, head), rest, depth);
    const folders = (this.host.listFolder?.(dir)?.folders ?? []).filter((f) => f !== 'node_modules' && !f.startsWith('.'));
    if (head === '**') {
      const here = this.expand(dir, rest, depth);
      if (depth >= MAX_GLOB_DEPTH) return here;
      return [...here, ...folders.flatMap((f) => this.expand(join(dir, f), parts, depth + 1))];
    }
    const pattern = new RegExp(`^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    return folders.filter((f) => pattern.test(f)).flatMap((f) => this.expand(join(dir, f), rest, depth));
  }
}
