// What a call in a file means when it calls the project's own code: the callee is found without the
// type checker, through the file's imports and exports (project-index.ts resolves module specifiers),
// module-level singletons, `new X()` variables, objects a project factory returned, typed parameters,
// and `this.x` fields typed by a constructor parameter property or set from `new X()` (the NestJS
// shape), and the callee's summary says what the call does to locks.
import { ts } from '../engine/typescript';
import { ancestorWhere, bindingElementOf, declarationOf, isFunctionLike, methodOf, unwrap, type Node } from '../engine/nodes';
import { importOf, newClassName, typeClassName } from './file-symbols';
import { Implementers } from './implementers';
import { LOCK_NAME } from '../engine/lock-name';
import type { ClientPackages } from './packages';
import { REDLOCK_MODULES, SEMAPHORE_MODULE } from '../engine/imports';
import { hasLockMeaning, type ClassSummary, type FileSummary, type FunctionSummary, type ImportRef, type WrapperSummary } from './types';

export type CallMeaning =
  /** A project function that does nothing to locks (it may share a name with a Redis command or withLock). */
  | { kind: 'none' }
  | { kind: 'wrapper'; name: string; wrapper: WrapperSummary }
  /** `receiverNew`: the `new X(...)` or factory call that made the receiver, whose arguments may be the key. */
  | { kind: 'helper'; name: string; summary: FunctionSummary; file: string; receiver?: Node; receiverNew?: ts.NewExpression | ts.CallExpression };

export type LockLibrary = 'redlock' | 'redis-semaphore';

/** What the project layer gives a file's lock model (engine/model.ts). */
export interface ProjectContext {
  /** Callee names worth resolving: those of reachable project functions with a lock meaning. */
  names: ReadonlySet<string>;
  meaningOf(call: ts.CallExpression): CallMeaning | undefined;
  /** Imported names that are lock-library objects made in another project file (`export const locks = new Redlock(...)`). */
  libraries: ReadonlyMap<string, LockLibrary>;
  /** Does the call run a project function handing back a client that is null only when not configured? */
  unconfiguredNull(call: ts.CallExpression): boolean;
  /** The Redis client packages the file's package.json depends on (packages.ts). */
  packages?: ClientPackages;
  /**
   * The client the file's own project imports make (`import redis from '../config/redis'` of a module
   * calling node-redis' `createClient`), asked only when the packages leave it open: both clients listed.
   */
  importedClient?(): 'node-redis' | 'ioredis' | undefined;
  /** The text of a file beside this one (`lock.lua` read with readFileSync), by path relative to its folder. */
  readBeside?(relative: string): string | undefined;
  /** The text of the project module an import specifier of this file resolves to. */
  moduleText?(specifier: string): string | undefined;
}

/** Summaries of other files, by specifier as written in a file. */
export interface SummaryLookup {
  summaryOf(specifier: string, fromPath: string): FileSummary | undefined;
  /** Summaries of the files near `fromPath` with a class implementing or extending the type `name` (implementers.ts). */
  implementationsOf?(name: string, fromPath: string): FileSummary[];
  /** The classes a container binds the type `name` to (`provide: X, useClass: Y`), named in the binding file. */
  bindingsOf?(name: string, fromPath: string): Array<{ module: FileSummary; cls: string }>;
  /**
   * The words of the module's text, undefined when it has `export * from` lines of its own (or cannot
   * be read): a name it exports is one of them, so a barrel's modules without it are not summarised.
   */
  wordsOf?(specifier: string, fromPath: string): ReadonlySet<string> | undefined;
}

/** A DI container's lookup by class: typedi and NestJS `get`, tsyringe and inversify `resolve`. */
const CONTAINER_GETS = new Set(['get', 'resolve', 'getAsync', 'resolveAsync']);

// A class bound to an interface in a test or for local runs is not the one production injects.
const STAND_IN = /mock|fake|stub|dummy|noop|in-?memory|local/i;
const TEST_PATH = /(?:^|[/.])(?:tests?|spec|__tests__|__mocks__|mocks?|fixtures?)(?:[/.]|$)/i;

type Target =
  | { kind: 'function'; file: FileSummary; summary: FunctionSummary }
  | { kind: 'class'; file: FileSummary; cls: ClassSummary }
  | { kind: 'instance'; file: FileSummary; cls: ClassSummary; made?: ts.NewExpression | ts.CallExpression }
  | { kind: 'object'; file: FileSummary; members: Record<string, FunctionSummary>; refs?: Record<string, string> }
  | { kind: 'module'; file: FileSummary }
  /** A redlock or redis-semaphore object a project file made: its calls are the library's. */
  | { kind: 'library'; file: FileSummary; library: LockLibrary };
type ObjectTarget = Extract<Target, { kind: 'object' }>;

const MAX_DEPTH = 8;
const own = <T>(record: Record<string, T>, key: string): T | undefined => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined);

export class Resolution {
  constructor(private readonly lookup: SummaryLookup) {}

  // Summaries are never changed once made (a changed file gets a new one): answers keep per summary.
  // Inside an import cycle a module lends an empty stand-in, which is a new object and never reused.
  private readonly exportsCache = new WeakMap<FileSummary, Map<string, Target | undefined>>();
  private readonly starIndex = new WeakMap<FileSummary, Map<string, FileSummary[]>>();
  /** Per barrel, the words of each `export * from` module's text (undefined: any name may come from it). */
  private readonly starWords = new WeakMap<FileSummary, Array<ReadonlySet<string> | undefined>>();

  exportOf(file: FileSummary, name: string, depth = 0): Target | undefined {
    let cache = this.exportsCache.get(file);
    if (!cache) this.exportsCache.set(file, (cache = new Map()));
    if (cache.has(name)) return cache.get(name);
    const target = this.findExport(file, name, depth);
    cache.set(name, target);
    return target;
  }

  private findExport(file: FileSummary, name: string, depth: number): Target | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const target = own(file.exports, name);
    if (target) {
      if ('local' in target) return this.localOf(file, target.local, depth + 1);
      const module = this.lookup.summaryOf(target.from, file.path);
      if (!module) return undefined;
      return target.name === '*' ? { kind: 'module', file: module } : this.exportOf(module, target.name, depth + 1);
    }
    if (name !== 'default') {
      for (const module of this.starModulesNaming(file, name)) {
        const found = this.exportOf(module, name, depth + 1);
        if (found) return found;
      }
    }
    // `import locks from './locks'` of a CommonJS `module.exports = { ... }`: the module itself.
    return name === 'default' && Object.keys(file.exports).length > 0 ? { kind: 'module', file } : undefined;
  }

  /**
   * The modules of `file`'s `export * from` lines that export `name` (directly or through stars of
   * their own), in the order written. Only the modules whose text can export the name are summarised:
   * a barrel of a hundred modules is not summarised whole because one name is asked of it.
   */
  private starModulesNaming(file: FileSummary, name: string): FileSummary[] {
    let index = this.starIndex.get(file);
    if (!index) this.starIndex.set(file, (index = new Map()));
    let modules = index.get(name);
    if (modules) return modules;
    modules = [];
    for (const module of this.starModulesThatMayExport(file, name)) {
      if (!modules.includes(module) && this.exportsThroughStars(module, name, new Set(), 0)) modules.push(module);
    }
    index.set(name, modules);
    return modules;
  }

  private starModulesThatMayExport(file: FileSummary, name: string): FileSummary[] {
    let words = this.starWords.get(file);
    if (!words) this.starWords.set(file, (words = file.stars.map((star) => this.lookup.wordsOf?.(star, file.path))));
    const modules: FileSummary[] = [];
    file.stars.forEach((star, i) => {
      if (words[i] && !words[i].has(name)) return;
      const module = this.lookup.summaryOf(star, file.path);
      if (module) modules.push(module);
    });
    return modules;
  }

  /** Does a module export `name`, itself or through its stars (`seen` stops cycles)? */
  private exportsThroughStars(file: FileSummary, name: string, seen: Set<FileSummary>, depth: number): boolean {
    if (seen.has(file) || depth > MAX_DEPTH) return false;
    seen.add(file);
    if (own(file.exports, name)) return true;
    return this.starModulesThatMayExport(file, name).some((module) => this.exportsThroughStars(module, name, seen, depth + 1));
  }

  localOf(file: FileSummary, name: string, depth = 0): Target | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const fn = own(file.functions, name);
    if (fn) return { kind: 'function', file, summary: fn };
    const cls = own(file.classes, name);
    if (cls) return { kind: 'class', file, cls };
    const members = own(file.objects, name);
    if (members) return { kind: 'object', file, members, refs: own(file.objectRefs, name) };
    const instanceOf = own(file.instances, name);
    if (instanceOf) {
      const made = this.classNamed(file, instanceOf, depth + 1);
      if (made) return { kind: 'instance', file: made.file, cls: made.cls };
      const library = libraryClass(file, instanceOf);
      return library ? { kind: 'library', file, library } : undefined;
    }
    const imported = importOf(file, name);
    return imported ? this.importTarget(file, imported, depth + 1) : undefined;
  }

  private importTarget(file: FileSummary, ref: ImportRef, depth: number): Target | undefined {
    const module = this.lookup.summaryOf(ref.from, file.path);
    if (!module) return undefined;
    if (ref.name !== '*') return this.exportOf(module, ref.name, depth);
    // `const locks = require('./locks')` of `module.exports = new Redlock(...)`: the one value it exports.
    const only = Object.keys(module.exports);
    return only.length === 1 && only[0] === 'default' ? (this.exportOf(module, 'default', depth) ?? { kind: 'module', file: module }) : { kind: 'module', file: module };
  }

  classNamed(file: FileSummary, name: string, depth = 0): { file: FileSummary; cls: ClassSummary } | undefined {
    const target = this.localOf(file, name, depth);
    return target?.kind === 'class' ? { file: target.file, cls: target.cls } : undefined;
  }

  /**
   * The class a value typed `name` is: the class of that name, or, when `name` is an interface or an
   * abstract class with no lock work of its own (a dependency-injection token), the one project class
   * that implements or extends it with a lock meaning (stand-ins for tests left out).
   */
  typedAs(file: FileSummary, name: string, depth = 0, inLockCode = false): { file: FileSummary; cls: ClassSummary } | undefined {
    const named = this.classNamed(file, name, depth);
    if (named && (!named.cls.abstract || this.methodsOfClass(named.file, named.cls).some(hasLockMeaning))) return named;
    return this.implementationOf(file, name, inLockCode) ?? named;
  }

  /**
   * `inLockCode`: the type is asked for lock code (a field of a class named like a lock) and is the
   * project's own, so a type named like anything (`KeyValueStore` under a `LockService`) is worth the
   * search for its implementation.
   */
  implementationOf(file: FileSummary, name: string, inLockCode = false): { file: FileSummary; cls: ClassSummary } | undefined {
    if (!this.lookup.implementationsOf || !(inLockCode || Implementers.wanted(name) || this.isLockType(file, name))) return undefined;
    const bound = this.boundClass(file, name);
    if (bound) return bound;
    const found: Array<{ file: FileSummary; cls: ClassSummary }> = [];
    for (const module of this.lookup.implementationsOf(name, file.path)) {
      if (TEST_PATH.test(module.path)) continue;
      for (const cls of Object.values(module.classes)) {
        if (!cls.implements.includes(name) && cls.base !== name) continue;
        if (STAND_IN.test(cls.name) || !this.methodsOfClass(module, cls).some(hasLockMeaning)) continue;
        found.push({ file: module, cls });
      }
    }
    // Two production implementations (Redis and another store): which one is bound cannot be told.
    return found.length === 1 ? found[0] : undefined;
  }

  /** Is `name` imported from a module of the project (not a package's type such as ioredis' `Redis`)? */
  private projectType(file: FileSummary, name: string): boolean {
    const ref = importOf(file, name);
    return !!ref && !!this.lookup.summaryOf(ref.from, file.path);
  }

  /** The one class with lock work that the project's container bindings bind `name` to. */
  private boundClass(file: FileSummary, name: string): { file: FileSummary; cls: ClassSummary } | undefined {
    const found = new Map<ClassSummary, { file: FileSummary; cls: ClassSummary }>();
    for (const { module, cls } of this.lookup.bindingsOf?.(name, file.path) ?? []) {
      if (TEST_PATH.test(module.path)) continue;
      const named = this.classNamed(module, cls);
      if (named && !STAND_IN.test(named.cls.name) && this.methodsOfClass(named.file, named.cls).some(hasLockMeaning)) found.set(named.cls, named);
    }
    return found.size === 1 ? [...found.values()][0] : undefined;
  }

  /**
   * Is `name`, in `file`, a project type that declares lock operations (`interface JobService {
   * acquireLock(...) }`), declared there or imported (through re-exports)? Its implementation is then
   * searched for even though its own name says nothing of locks.
   */
  isLockType(file: FileSummary, name: string, depth = 0): boolean {
    if (file.lockTypes.includes(name)) return true;
    const exported = own(file.exports, name);
    const ref = importOf(file, name) ?? (exported && 'from' in exported ? exported : undefined);
    if (!ref || ref.name === '*' || depth > MAX_DEPTH) return false;
    const module = this.lookup.summaryOf(ref.from, file.path);
    return !!module && this.isLockType(module, ref.name, depth + 1);
  }

  /** A method of a class, looked up its `extends` chain. */
  methodOf(file: FileSummary, cls: ClassSummary, name: string, depth = 0): { file: FileSummary; summary: FunctionSummary } | undefined {
    const method = own(cls.methods, name);
    if (method) return { file, summary: method };
    if (!cls.base || depth > MAX_DEPTH) return undefined;
    const base = this.classNamed(file, cls.base, depth + 1);
    return base ? this.methodOf(base.file, base.cls, name, depth + 1) : undefined;
  }

  fieldType(file: FileSummary, cls: ClassSummary, field: string, depth = 0): { file: FileSummary; cls: ClassSummary } | undefined {
    const type = own(cls.fieldTypes, field);
    if (type) return this.typedAs(file, type, depth + 1, LOCK_NAME.test(cls.name) && this.projectType(file, type));
    if (!cls.base || depth > MAX_DEPTH) return undefined;
    const base = this.classNamed(file, cls.base, depth + 1);
    return base ? this.fieldType(base.file, base.cls, field, depth + 1) : undefined;
  }

  memberOf(target: Target, name: string): { file: FileSummary; summary: FunctionSummary } | undefined {
    switch (target.kind) {
      case 'module': {
        const found = this.exportOf(target.file, name);
        return found?.kind === 'function' ? { file: found.file, summary: found.summary } : undefined;
      }
      case 'object':
        return this.objectMember(target, name);
      case 'instance':
      case 'class':
        return this.methodOf(target.file, target.cls, name);
      default:
        return undefined;
    }
  }

  /** A member of an object of functions: one it defines, or one it holds (`{ lock: acquireLock }`). */
  private objectMember(target: ObjectTarget, name: string): { file: FileSummary; summary: FunctionSummary } | undefined {
    const fn = own(target.members, name);
    if (fn) return { file: target.file, summary: fn };
    const held = target.refs && own(target.refs, name);
    const found = held ? this.localOf(target.file, held, 1) : undefined;
    return found?.kind === 'function' ? { file: found.file, summary: found.summary } : undefined;
  }

  /** Every function member of an object, defined or held, by member name. */
  private objectFunctions(target: ObjectTarget): Array<[string, { file: FileSummary; summary: FunctionSummary }]> {
    const found: Array<[string, { file: FileSummary; summary: FunctionSummary }]> = Object.entries(target.members).map(([name, summary]) => [name, { file: target.file, summary }]);
    for (const name of Object.keys(target.refs ?? {})) {
      const held = own(target.members, name) ? undefined : this.objectMember(target, name);
      if (held) found.push([name, held]);
    }
    return found;
  }

  /**
   * The exported names of a file through which a caller can reach a lock meaning: lock helpers
   * (acquire, release, extend, locked routine), or with `wrappers` thin command wrappers only.
   */
  exportedLockNames(file: FileSummary, wrappers = false): Set<string> {
    const names = new Set<string>();
    const counts = (fn: FunctionSummary) => (wrappers ? !!fn.wraps : hasLockMeaning(fn) && !fn.wraps);
    for (const name of Object.keys(file.exports)) {
      const target = this.exportOf(file, name);
      if (!this.leadsTo(target, counts, !wrappers, 0)) continue;
      names.add(name);
      if (target && (target.kind === 'class' || target.kind === 'instance')) names.add(target.cls.name);
    }
    for (const star of file.stars) {
      const module = this.lookup.summaryOf(star, file.path);
      if (module) for (const name of this.exportedLockNames(module, wrappers)) names.add(name);
    }
    return names;
  }

  /** Does the export `name` of `file` lead a caller to a lock helper or a command wrapper? */
  exportLeadsToLock(file: FileSummary, name: string): boolean {
    return this.leadsTo(this.exportOf(file, name), (fn) => hasLockMeaning(fn) || !!fn.wraps, true, 0);
  }

  /** Has the target a function that `counts` (a library object counts when `libraries` do)? */
  private leadsTo(target: Target | undefined, counts: (fn: FunctionSummary) => boolean, libraries: boolean, depth: number): boolean {
    if (!target || depth > MAX_DEPTH) return false;
    switch (target.kind) {
      case 'function':
        return counts(target.summary) || this.madeLeads(target.file, target.summary, counts);
      case 'object':
        return this.objectFunctions(target).some(([, f]) => counts(f.summary) || this.madeLeads(f.file, f.summary, counts));
      case 'class':
      case 'instance':
        return this.methodsOfClass(target.file, target.cls).some(counts);
      case 'module':
        return Object.keys(target.file.exports).some((name) => this.leadsTo(this.exportOf(target.file, name), counts, libraries, depth + 1));
      case 'library':
        return libraries;
    }
  }

  /** The class standing for the object a factory returns (FunctionSummary.makes). */
  madeClass(file: FileSummary, fn: FunctionSummary): ClassSummary | undefined {
    return fn.makes ? own(file.classes, fn.makes) : undefined;
  }

  /** Does the object or instance a function hands back have a function that `counts`? */
  private madeLeads(file: FileSummary, fn: FunctionSummary, counts: (fn: FunctionSummary) => boolean): boolean {
    const made = this.madeClass(file, fn);
    if (made) return Object.values(made.methods).some(counts);
    const returned = fn.instanceOf ? this.classNamed(file, fn.instanceOf) : undefined;
    return !!returned && this.methodsOfClass(returned.file, returned.cls).some(counts);
  }

  methodsOfClass(file: FileSummary, cls: ClassSummary, depth = 0): FunctionSummary[] {
    const own = Object.values(cls.methods);
    const base = cls.base && depth < MAX_DEPTH ? this.classNamed(file, cls.base) : undefined;
    return base ? [...own, ...this.methodsOfClass(base.file, base.cls, depth + 1)] : own;
  }

  private namesOfClass(file: FileSummary, cls: ClassSummary, depth = 0): Set<string> {
    const names = new Set<string>();
    for (const [name, fn] of Object.entries(cls.methods)) if (hasLockMeaning(fn)) names.add(name);
    if (cls.base && depth < MAX_DEPTH) {
      const base = this.classNamed(file, cls.base);
      if (base) for (const name of this.namesOfClass(base.file, base.cls, depth + 1)) names.add(name);
    }
    return names;
  }

  /** Every name a caller of `file` could call with a lock meaning: its own and what it imports. */
  namesFor(file: FileSummary): Set<string> {
    const names = new Set<string>();
    const addFunctions = (fns: Record<string, FunctionSummary>, as?: (name: string) => string) => {
      for (const [name, fn] of Object.entries(fns)) if (hasLockMeaning(fn)) names.add(as ? as(name) : name);
    };
    const addClass = (f: FileSummary, cls: ClassSummary) => {
      for (const name of this.namesOfClass(f, cls)) names.add(name);
    };
    const addMade = (f: FileSummary, fns: FunctionSummary[]) => {
      for (const fn of fns) {
        const made = this.madeClass(f, fn);
        if (made) addClass(f, made);
        const returned = fn.instanceOf ? this.classNamed(f, fn.instanceOf) : undefined;
        if (returned) addClass(returned.file, returned.cls);
      }
    };
    const addObject = (target: ObjectTarget) => {
      for (const [name, f] of this.objectFunctions(target)) {
        if (hasLockMeaning(f.summary)) names.add(name);
        addMade(f.file, [f.summary]);
      }
    };
    const addTarget = (target: Target | undefined, local: string) => {
      if (!target) return;
      if (target.kind === 'function') {
        if (hasLockMeaning(target.summary)) names.add(local);
        addMade(target.file, [target.summary]);
      } else if (target.kind === 'object') addObject(target); else if (target.kind === 'class' || target.kind === 'instance') addClass(target.file, target.cls);
      else if (target.kind === 'module') {
        for (const name of Object.keys(target.file.exports)) addTarget(this.exportOf(target.file, name), name);
      }
    };
    addFunctions(file.functions);
    for (const [name, members] of Object.entries(file.objects)) addObject({ kind: 'object', file, members, refs: own(file.objectRefs, name) });
    for (const cls of Object.values(file.classes)) {
      addClass(file, cls);
      for (const field of Object.keys(cls.fieldTypes)) {
        const held = this.fieldType(file, cls, field);
        if (held) addClass(held.file, held.cls);
      }
    }
    for (const [local, ref] of Object.entries(file.imports)) {
      const target = this.localOf(file, local);
      addTarget(target, local);
      // An interface or abstract class of the project, typing an injected value: its implementation's names.
      const typeOnly = !target || (target.kind === 'class' && target.cls.abstract);
      if (typeOnly && (Implementers.wanted(ref.name) || this.isLockType(file, local)) && this.lookup.summaryOf(ref.from, file.path)) {
        const implementation = this.implementationOf(file, ref.name);
        if (implementation) addClass(implementation.file, implementation.cls);
      }
    }
    return names;
  }
}

function enclosingClassName(node: Node): string | undefined {
  const cls = ancestorWhere<ts.ClassLikeDeclaration>(node, (a) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
  if (!cls) return prototypeOwner(node);
  if (cls.name) return cls.name.text;
  const parent = cls.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  // `exports.Locker = class { ... }`: stored under the name it is exported by (file-symbols.ts).
  const member = parent && ts.isBinaryExpression(parent) ? /^(?:module\.)?exports\.([\w$]+)$/.exec(parent.left.getText().replace(/\s+/g, '')) : null;
  return member ? `export:${member[1]}` : 'export:default';
}

/** `Gate.prototype.enter = function () { ... this ... }`: the constructor function whose method `node` is in. */
function prototypeOwner(node: Node): string | undefined {
  for (let fn = ancestorWhere(node, isFunctionLike); fn; fn = ancestorWhere(fn, isFunctionLike)) {
    if (ts.isArrowFunction(fn)) continue;
    const assignment = fn.parent;
    if (!ts.isBinaryExpression(assignment) || assignment.right !== fn || assignment.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return undefined;
    return /^([\w$]+)\.prototype\.[\w$]+$/.exec(assignment.left.getText().replace(/\s+/g, ''))?.[1];
  }
  return undefined;
}

function isTopLevel(decl: Node): boolean {
  return ts.isVariableDeclaration(decl) && ts.isSourceFile(decl.parent.parent.parent);
}

/** The project context of one file, from its summary (own functions included) and the project's. */
export function projectContext(file: FileSummary, resolution: Resolution): ProjectContext {
  const names = resolution.namesFor(file);
  const libraries = new Map<string, LockLibrary>();
  for (const local of Object.keys(file.imports)) {
    const target = resolution.localOf(file, local);
    if (target?.kind === 'library') libraries.set(local, target.library);
  }

  /**
   * `createLock(key)`, `await locks.lockFor(key)`: the object a project factory returned, as an instance
   * of the class standing for it; `LockService.getInstance()`, `getLocks()`: the project class instance a
   * function hands back; `Container.get(LockService)`, `moduleRef.get(LockService)`: what a DI container
   * gives for a project class.
   */
  const madeBy = (init: Node | undefined, depth: number): Target | undefined => {
    let n = init && unwrap(init);
    if (n && ts.isAwaitExpression(n)) n = unwrap(n.expression);
    if (!n || !ts.isCallExpression(n) || depth > MAX_DEPTH) return undefined;
    const fromContainer = containerGet(n);
    if (fromContainer) return fromContainer;
    const factory = functionCalled(n, depth + 1);
    const made = factory && resolution.madeClass(factory.file, factory.summary);
    if (made) return { kind: 'instance', file: factory.file, cls: made, made: n };
    const returned = factory?.summary.instanceOf ? resolution.classNamed(factory.file, factory.summary.instanceOf) : undefined;
    return returned ? { kind: 'instance', ...returned } : undefined;
  };

  const containerGet = (call: ts.CallExpression): Target | undefined => {
    const method = methodOf(call);
    const arg = call.arguments.length === 1 ? unwrap(call.arguments[0]) : undefined;
    if (!method || !CONTAINER_GETS.has(method.name) || !arg || !ts.isIdentifier(arg)) return undefined;
    const cls = resolution.typedAs(file, arg.text);
    return cls ? { kind: 'instance', ...cls } : undefined;
  };

  const valueTarget = (node: Node, depth = 0): Target | undefined => {
    const n = unwrap(node);
    if (n.kind === ts.SyntaxKind.ThisKeyword) {
      const name = enclosingClassName(n);
      const cls = name ? own(file.classes, name) : undefined;
      return cls ? { kind: 'instance', file, cls } : undefined;
    }
    if (ts.isPropertyAccessExpression(n) && unwrap(n.expression).kind === ts.SyntaxKind.ThisKeyword) {
      const name = enclosingClassName(n);
      const cls = name ? own(file.classes, name) : undefined;
      const held = cls ? resolution.fieldType(file, cls, n.name.text) : undefined;
      return held ? { kind: 'instance', file: held.file, cls: held.cls } : undefined;
    }
    if (ts.isCallExpression(n) || ts.isAwaitExpression(n)) return madeBy(n, depth);
    if (ts.isPropertyAccessExpression(n)) {
      // ns.locks.acquire(): a member of an imported module or object.
      const outer = valueTarget(n.expression);
      if (outer?.kind === 'module') return resolution.exportOf(outer.file, n.name.text);
      return undefined;
    }
    if (!ts.isIdentifier(n)) return undefined;
    const decl = declarationOf(n);
    // `var self = this`: the object `this` is.
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && unwrap(decl.initializer).kind === ts.SyntaxKind.ThisKeyword) return valueTarget(decl.initializer, depth + 1);
    const fromFactory = decl && ts.isVariableDeclaration(decl) ? madeBy(decl.initializer, depth) : undefined;
    if (fromFactory) return fromFactory;
    if (!decl || isTopLevel(decl)) {
      const made = decl && ts.isVariableDeclaration(decl) ? newClassName(decl.initializer) : undefined;
      if (made) {
        const cls = resolution.classNamed(file, made);
        return cls ? { kind: 'instance', ...cls, made: unwrap(decl!.initializer!) as ts.NewExpression } : undefined;
      }
      return resolution.localOf(file, n.text);
    }
    // A local `const lock = new RedisLock(...)`, or a typed variable or parameter.
    const made = ts.isVariableDeclaration(decl) ? newClassName(decl.initializer) : undefined;
    const typeName = made ? undefined : typeClassName(decl.type);
    const cls = made ? resolution.classNamed(file, made) : typeName ? resolution.typedAs(file, typeName) : undefined;
    if (!cls) return undefined;
    return { kind: 'instance', ...cls, made: made ? (unwrap((decl as ts.VariableDeclaration).initializer!) as ts.NewExpression) : undefined };
  };

  /** The project function a call runs, with the receiver it runs on and what made that receiver. */
  const functionCalled = (call: ts.CallExpression, depth = 0): (Callee & { file: FileSummary }) | undefined => {
    const callee = unwrap(call.expression);
    if (ts.isIdentifier(callee)) {
      const decl = declarationOf(callee);
      if (decl && !isTopLevel(decl)) return undefined; // a local variable or parameter holding a function
      // `const { acquire } = locks` (a `require` pattern is an import, which localOf answers).
      const element = decl ? undefined : bindingElementOf(callee);
      const member = element && destructuredMember(element, depth);
      if (member) return member;
      const target = resolution.localOf(file, callee.text);
      return target?.kind === 'function' ? { file: target.file, summary: target.summary } : undefined;
    }
    const method = methodOf(call);
    const target = method && valueTarget(method.receiver, depth);
    // A project class without that method: it may come from a base class Lockwise cannot see.
    const found = target && resolution.memberOf(target, method.name);
    if (!found) return undefined;
    return target.kind === 'instance' ? { ...found, receiver: method.receiver, receiverNew: target.made } : found;
  };

  /** `const { acquire, release: unlock } = locks`: the member of the object the pattern takes it from. */
  const destructuredMember = (element: ts.BindingElement, depth: number): (Callee & { file: FileSummary }) | undefined => {
    const declaration = element.parent.parent;
    if (!ts.isVariableDeclaration(declaration) || !declaration.initializer || depth > MAX_DEPTH) return undefined;
    const member = element.propertyName && ts.isIdentifier(element.propertyName) ? element.propertyName.text : (element.name as ts.Identifier).text;
    const target = valueTarget(declaration.initializer, depth + 1);
    return target ? resolution.memberOf(target, member) : undefined;
  };

  const meaningOf = (call: ts.CallExpression): CallMeaning | undefined => {
    const found = functionCalled(call);
    if (!found) return undefined;
    const { receiver, receiverNew } = found;
    const name = call.expression.getText().replace(/\s+/g, '').slice(0, 80);
    const summary = found.summary;
    if (summary.wraps) return { kind: 'wrapper', name, wrapper: summary.wraps };
    if (!hasLockMeaning(summary)) return { kind: 'none' };
    return { kind: 'helper', name, summary, file: found.file.path, receiver, receiverNew };
  };

  const unconfiguredNull = (call: ts.CallExpression) => !!functionCalled(call)?.summary.unconfiguredNull;

  return { names, meaningOf, libraries, unconfiguredNull };
}

interface Callee {
  summary: FunctionSummary;
  receiver?: Node;
  receiverNew?: ts.NewExpression | ts.CallExpression;
}

/** The lock library a class name comes from in `file` (`import Redlock from 'redlock'`), if any. */
function libraryClass(file: FileSummary, className: string): LockLibrary | undefined {
  const ref = importOf(file, className);
  if (!ref) return undefined;
  if (REDLOCK_MODULES.has(ref.from)) return 'redlock';
  return ref.from === SEMAPHORE_MODULE ? 'redis-semaphore' : undefined;
}
