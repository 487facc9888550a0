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

export class Implementers {
  /** Package root -> (file -> the types its classes implement or extend). */
  private readonly roots = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly host: ProjectHost) {}

  /** Is `name` a type worth searching implementations of by its name alone (call-meanings also asks its declaration)? */
  static wanted(name: string): boolean {
    return LOCK_NAME.test(name);
  }

  /** Files of the package around `fromPath` with a class implementing or extending `name`, by path. */
  filesFor(name: string, fromPath: string): string[] {
    const files = this.filesOfPackage(fromPath);
    const found: string[] = [];
    for (const [path, names] of files) if (names.has(name)) found.push(path);
    return found.sort();
  }

  /** A file's classes changed (an edit): its entry follows its new summary in every walked package. */
  update(path: string, summary: FileSummary): void {
    for (const [root, files] of this.roots) {
      if (!path.startsWith(`${root}/`)) continue;
      const names = summaryHeritage(summary);
      if (names.size > 0) files.set(path, names);
      else files.delete(path);
    }
  }

  /** Files were created, deleted or renamed: every package is walked again when next asked. */
  reset(): void {
    this.roots.clear();
  }

  private filesOfPackage(fromPath: string): Map<string, Set<string>> {
    const root = this.packageRoot(dirname(fromPath));
    let files = this.roots.get(root);
    if (!files) this.roots.set(root, (files = this.walk(root)));
    return files;
  }

  /** The nearest folder above `dir` with a package.json or tsconfig.json; else `dir`'s parent. */
  private packageRoot(dir: string): string {
    for (let d = dir, depth = 0; depth < 12; depth++) {
      const listing = this.host.listFolder?.(d);
      if (listing && PACKAGE_MARKERS.some((m) => listing.files.includes(m))) return d;
      const parent = dirname(d);
      if (parent === d) break;
      d = parent;
    }
    return dirname(dir);
  }

  private walk(root: string): Map<string, Set<string>> {
    const files = new Map<string, Set<string>>();
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
        if (!text || !text.includes('class')) continue;
        const names = heritageNames(text);
        if (names.size > 0) files.set(path, names);
      }
    }
    return files;
  }
}
