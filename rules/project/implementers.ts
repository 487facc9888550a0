// Which project files declare a class that implements (or extends) a given type. Dependency
// injection hands a class its lock service typed by an interface or an abstract class
// (`constructor(@Inject(LOCKS) private locks: ILockService)`), and the class bound to it is written in
// a file the caller never imports. So the project is searched: once per package, on the first such
// type (named like a lock, or declaring lock operations), by the text of its class headers, through
// the host's folder listings.
import { dirname, join } from 'node:path';
import { LOCK_NAME } from '../engine/lock-name';
import type { ProjectHost } from './host';
import type { FileSummary } from './types';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const DECLARATION = /\.d\.[cm]?ts$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'vendor']);
const PACKAGE_MARKERS = ['package.json', 'tsconfig.json', 'jsconfig.json'];
/** A walk stops after this many files: a search, not a second workspace scan. */
const MAX_FILES = 20_000;
/** `class X<T> extends Base implements A, B {`: the header up to its body. */
const CLASS_HEADER = /\bclass\s+[\w$]+([^{;]*)\{/g;
const HERITAGE_NAME = /[\w$]+/g;
/**
 * A container binding of a type to a class: NestJS `{ provide: LockService, useClass: RedisLock }` (or
 * `useExisting`), inversify `bind<ILocks>(TYPES.Locks).to(RedisLocks)`. The class need not say
 * `implements`: the binding does.
 */
const BINDINGS = [
  /\bprovide\s*:\s*([\w$]+)\s*,\s*use(?:Class|Existing)\s*:\s*([\w$]+)/g,
  /\bbind\s*<\s*([\w$]+)\s*>\s*\([^()]*\)\s*\.\s*to\s*\(\s*([\w$]+)\s*\)/g,
];

/** A class bound to a type, by its name as written in the file that binds it. */
export interface Binding {
  path: string;
  cls: string;
}

/** type name -> bound class name, read from a file's text. */
function bindingsIn(text: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!/\b(?:provide|bind)\b/.test(text)) return found;
  for (const pattern of BINDINGS) for (const [, type, cls] of text.matchAll(pattern)) found.set(type, cls);
  return found;
}

/** The types the classes of a text implement or extend, read from the class headers. */
function heritageNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const header of text.matchAll(CLASS_HEADER)) {
    const heritage = header[1];
    if (!/\b(?:extends|implements)\b/.test(heritage)) continue;
    for (const [name] of heritage.matchAll(HERITAGE_NAME)) names.add(name);
  }
  return names;
}

/** The types a summarised file's classes implement or extend. */
function summaryHeritage(summary: FileSummary): Set<string> {
  const names = new Set<string>();
  for (const cls of Object.values(summary.classes)) {
    for (const name of [...cls.implements, ...(cls.base ? [cls.base] : [])]) names.add(name);
  }
  return names;
}

function sameBindings(before: ReadonlyMap<string, string> | undefined, after: ReadonlyMap<string, string>): boolean {
  if ((before?.size ?? 0) !== after.size) return false;
  for (const [type, cls] of after) if (before?.get(type) !== cls) return false;
  return true;
}

interface PackageTypes {
  /** file -> the types its classes implement or extend. */
  heritage: Map<string, Set<string>>;
  /** file -> the types it binds to a class (module providers, containers). */
  bindings: Map<string, Map<string, string>>;
}

export class Implementers {
  /** Package root -> what its files implement, extend and bind. */
  private readonly roots = new Map<string, PackageTypes>();

  constructor(private readonly host: ProjectHost) {}

  /** Is `name` a type worth searching implementations of by its name alone (call-meanings also asks its declaration)? */
  static wanted(name: string): boolean {
    return LOCK_NAME.test(name);
  }

  /** Files of the package around `fromPath` with a class implementing or extending `name`, by path. */
  filesFor(name: string, fromPath: string): string[] {
    const found: string[] = [];
    for (const [path, names] of this.typesOfPackage(fromPath).heritage) if (names.has(name)) found.push(path);
    return found.sort();
  }

  /** The classes the package around `fromPath` binds `name` to, by the binding file's path. */
  bindingsFor(name: string, fromPath: string): Binding[] {
    const found: Binding[] = [];
    for (const [path, bound] of this.typesOfPackage(fromPath).bindings) {
      const cls = bound.get(name);
      if (cls) found.push({ path, cls });
    }
    return found.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * A file changed (an edit): its entries follow its new summary and text in every walked package.
   * Answers whether the file's container bindings changed there: they are read from the text, not the
   * summary, so the files resolved through them must be told apart from a summary change.
   */
  update(path: string, summary: FileSummary, text: string): boolean {
    const names = summaryHeritage(summary);
    const bound = bindingsIn(text);
    let rebound = false;
    for (const [root, types] of this.roots) {
      if (!path.startsWith(`${root}/`)) continue;
      if (names.size > 0) types.heritage.set(path, names);
      else types.heritage.delete(path);
      rebound ||= !sameBindings(types.bindings.get(path), bound);
      if (bound.size > 0) types.bindings.set(path, bound);
      else types.bindings.delete(path);
    }
    return rebound;
  }

  /** Files were created, deleted or renamed: every package is walked again when next asked. */
  reset(): void {
    this.roots.clear();
  }

  private typesOfPackage(fromPath: string): PackageTypes {
    const root = this.packageRoot(dirname(fromPath));
    let types = this.roots.get(root);
    if (!types) this.roots.set(root, (types = this.walk(root)));
    return types;
  }

  /**
   * The nearest folder above `dir` with a package.json or tsconfig.json, or the repository's root (its
   * `.git`: a folder above a checkout is another project); else `dir`'s parent.
   */
  private packageRoot(dir: string): string {
    for (let d = dir, depth = 0; depth < 12; depth++) {
      const listing = this.host.listFolder?.(d);
      if (listing && (PACKAGE_MARKERS.some((m) => listing.files.includes(m)) || listing.folders.includes('.git') || listing.files.includes('.git'))) return d;
      const parent = dirname(d);
      if (parent === d) break;
      d = parent;
    }
    return dirname(dir);
  }

  private walk(root: string): PackageTypes {
    const types: PackageTypes = { heritage: new Map(), bindings: new Map() };
    const folders = [root];
    let seen = 0;
    while (folders.length > 0 && seen < MAX_FILES) {
      const dir = folders.pop() as string;
      const listing = this.host.listFolder?.(dir);
      if (!listing) continue;
      for (const folder of listing.folders) if (!folder.startsWith('.') && !SKIPPED_FOLDERS.has(folder)) folders.push(join(dir, folder));
      for (const file of listing.files) {
        if (!SOURCE.test(file) || DECLARATION.test(file) || ++seen > MAX_FILES) continue;
        const path = join(dir, file);
        const text = this.host.readFile(path);
        if (!text || !(text.includes('class') || text.includes('bind'))) continue;
        const names = heritageNames(text);
        if (names.size > 0) types.heritage.set(path, names);
        const bound = bindingsIn(text);
        if (bound.size > 0) types.bindings.set(path, bound);
      }
    }
    return types;
  }
}
