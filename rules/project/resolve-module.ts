// Module specifiers to project files, the way TypeScript and Node find them, without the compiler:
// relative paths with or without extension (and `.js` written for a `.ts` file), `index` files, and
// tsconfig.json `paths` / `baseUrl` (following `extends` to a relative file), the monorepo's own packages
// by name and `#` subpath imports (workspace-packages.ts). Other bare package names are never followed:
// code in node_modules is not summarised (its lock libraries are recognised as such).
import { dirname, join, resolve } from 'node:path';
import type { ProjectHost } from './host';
import { parseJsonc } from './jsonc';
import { WorkspacePackages } from './workspace-packages';

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const JS_TO_TS: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

interface PathsConfig {
  /** Folder that `paths` targets are relative to. */
  base: string;
  paths: Array<{ prefix: string; suffix: string; wildcard: boolean; targets: string[] }>;
  baseUrl?: string;
}

export class ModuleResolver {
  private readonly configs = new Map<string, PathsConfig | null>();
  private readonly answers = new Map<string, string | null>();
  /**
   * The answers again by importing file, then specifier: a file asks of the same few specifiers many
   * times, and these strings are the same objects each time, so no key is built and hashed per question.
   */
  private readonly byFile = new Map<string, Map<string, string | null>>();

  private readonly workspace: WorkspacePackages;

  constructor(private readonly host: ProjectHost) {
    this.workspace = new WorkspacePackages(host);
  }

  /** The project file `specifier` names from `fromFile`, or undefined (a package, or nothing there). */
  resolve(specifier: string, fromFile: string): string | undefined {
    let answers = this.byFile.get(fromFile);
    if (!answers) this.byFile.set(fromFile, (answers = new Map()));
    let found = answers.get(specifier);
    if (found === undefined) answers.set(specifier, (found = this.resolveFrom(specifier, dirname(fromFile))));
    return found ?? undefined;
  }

  private resolveFrom(specifier: string, dir: string): string | null {
    const id = `${dir}\0${specifier}`;
    const known = this.answers.get(id);
    if (known !== undefined) return known;
    const found = this.find(specifier, dir) ?? null;
    this.answers.set(id, found);
    return found;
  }

  /** Forget cached answers (a file was created, deleted or renamed, or a tsconfig changed). */
  reset(): void {
    this.answers.clear();
    this.byFile.clear();
    this.configs.clear();
    this.workspace.reset();
  }

  private find(specifier: string, dir: string): string | undefined {
    if (specifier.startsWith('.') || specifier.startsWith('/')) return this.asFileOrFolder(resolve(dir, specifier));
    const config = this.pathsConfig(dir);
    return (config && this.viaPaths(specifier, config)) ?? this.viaWorkspace(specifier, dir);
  }

  /** A project package by name, or a `#` subpath import; a built entry stands for its source. */
  private viaWorkspace(specifier: string, dir: string): string | undefined {
    for (const candidate of this.workspace.candidates(specifier, dir)) {
      for (const path of WorkspacePackages.withSource(candidate)) {
        const found = this.asFileOrFolder(path);
        if (found) return found;
      }
    }
    return undefined;
  }

  private viaPaths(specifier: string, config: PathsConfig): string | undefined {
    for (const entry of config.paths) {
      const matches = entry.wildcard
        ? specifier.startsWith(entry.prefix) && specifier.endsWith(entry.suffix) && specifier.length >= entry.prefix.length + entry.suffix.length
        : specifier === entry.prefix;
      if (!matches) continue;
      const star = entry.wildcard ? specifier.slice(entry.prefix.length, specifier.length - entry.suffix.length) : '';
      for (const target of entry.targets) {
        const found = this.asFileOrFolder(resolve(config.base, target.replace('*', star)));
        if (found) return found;
      }
    }
    return config.baseUrl ? this.asFileOrFolder(resolve(config.baseUrl, specifier)) : undefined;
  }

  private asFileOrFolder(path: string): string | undefined {
    if (/\.d\.[cm]?ts$/.test(path)) return undefined;
    const dot = path.lastIndexOf('.');
    const ext = dot > path.lastIndexOf('/') ? path.slice(dot) : '';
    // `import './lock.js'` in TypeScript names lock.ts.
    for (const ts of JS_TO_TS[ext] ?? []) if (this.host.fileExists(path.slice(0, dot) + ts)) return path.slice(0, dot) + ts;
    if (EXTENSIONS.includes(ext) && this.host.fileExists(path)) return path;
    for (const e of EXTENSIONS) if (this.host.fileExists(path + e)) return path + e;
    for (const e of EXTENSIONS) if (this.host.fileExists(join(path, `index${e}`))) return join(path, `index${e}`);
    return undefined;
  }

  /** The nearest tsconfig.json (or jsconfig.json) with `paths` or `baseUrl`, walking up from `dir`. */
  private pathsConfig(dir: string): PathsConfig | undefined {
    const cached = this.configs.get(dir);
    if (cached !== undefined) return cached ?? undefined;
    let found: PathsConfig | undefined;
    for (const name of ['tsconfig.json', 'jsconfig.json']) {
      const file = join(dir, name);
      if (this.host.fileExists(file)) {
        found = this.readConfig(file, 0);
        if (found) break;
      }
    }
    const parent = dirname(dir);
    if (!found && parent !== dir && !dir.endsWith('/node_modules')) found = this.pathsConfig(parent);
    this.configs.set(dir, found ?? null);
    return found;
  }

  private readConfig(file: string, depth: number): PathsConfig | undefined {
    let json: { extends?: unknown; references?: unknown; compilerOptions?: { paths?: Record<string, string[]>; baseUrl?: string } };
    try {
      json = parseJsonc(this.host.readFile(file) ?? '') as typeof json;
    } catch {
      return undefined; // a broken tsconfig resolves nothing; the TypeScript build reports it
    }
    const options = json?.compilerOptions ?? {};
    const dir = dirname(file);
    if (options.paths || options.baseUrl) {
      const baseUrl = options.baseUrl !== undefined ? resolve(dir, options.baseUrl) : undefined;
      const base = baseUrl ?? dir;
      const paths = Object.entries(options.paths ?? {}).map(([pattern, targets]) => {
        const star = pattern.indexOf('*');
        return { prefix: star < 0 ? pattern : pattern.slice(0, star), suffix: star < 0 ? '' : pattern.slice(star + 1), wildcard: star >= 0, targets: Array.isArray(targets) ? targets : [] };
      });
      // Longest prefix first, as TypeScript matches.
      paths.sort((a, b) => b.prefix.length - a.prefix.length);
      return { base, paths, baseUrl };
    }
    if (typeof json?.extends === 'string' && json.extends.startsWith('.') && depth < 5) {
      const parent = resolve(dir, json.extends.endsWith('.json') ? json.extends : `${json.extends}.json`);
      return this.host.fileExists(parent) ? this.readConfig(parent, depth + 1) : undefined;
    }
    return Array.isArray(json?.references) && depth < 5 ? this.referencedConfig(dir, json.references, depth) : undefined;
  }

  /**
   * A solution-style tsconfig (`"files": []` and `"references"` to tsconfig.app.json, tsconfig.node.json...)
   * holds no options itself: the aliases are in the configs it references, the first of which with
   * `paths` or `baseUrl` is taken (the application's config comes first in the usual layouts).
   */
  private referencedConfig(dir: string, references: unknown[], depth: number): PathsConfig | undefined {
    for (const reference of references) {
      const path = (reference as { path?: unknown } | null)?.path;
      if (typeof path !== 'string') continue;
      const target = resolve(dir, path);
      const file = target.endsWith('.json') ? target : join(target, 'tsconfig.json');
      const found = this.host.fileExists(file) ? this.readConfig(file, depth + 1) : undefined;
      if (found) return found;
    }
    return undefined;
  }
}
