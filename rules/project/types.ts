// What a project's own lock functions do, in terms of their parameters: plain, serialisable data
// computed once per file from its lock model (summarize.ts), so a caller in another file can be
// analysed with the meaning of the helpers it calls (call-meanings.ts) without re-reading them.

/** A place in a file: offsets for this file's own rules, line/character for reports in another file. */
export interface Place {
  path: string;
  start: number;
  end: number;
  /** 0-based, as LSP counts. */
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

/**
 * A lock key in terms of the function's parameters: `head + <argument param> + tail`, a key built from
 * a constructor-stored field (`this.key`), or a fixed key (`param` and `field` both undefined).
 */
export interface KeySpec {
  param?: number;
  /** Parameter `param` is an array, and a key is built around each element (a multi-key helper). */
  each?: boolean;
  /** Parameter `param` has a default value: a call that leaves it out still names a key. */
  defaulted?: boolean;
  /**
   * The key is built from members of parameter `param`, an options object (`${opts.scope}:${opts.name}`,
   * or names destructured from it): the argument passed there is the key's identity at a call site.
   */
  members?: boolean;
  /** With `members`: the one property that is the whole key, read from an object literal at the call. */
  member?: string;
  /**
   * With `members`: the key as the helper writes it, text and the members it reads (`${opts.ns}-${key}`
   * is `[{ member: 'ns' }, '-', { member: 'key' }]`), so a call's object literal spells the key.
   */
  parts?: Array<string | { member: string }>;
  /** `this.<field>` set from constructor parameter `ctorParam` (with `head` and `tail` around it). */
  field?: { name: string; ctorParam?: number };
  head: string;
  tail: string;
  /** The key's glob inside the helper (with the parameter as `*`). */
  glob: string;
}

export type TokenSpec =
  /** `fallback`: the weak value written when the caller leaves the argument out (`value ?? '1'`). */
  | { kind: 'param'; index: number; fallback?: { weakness: 'constant' | 'pid' | 'hostname' | 'timestamp' | 'counter'; what: string } }
  | { kind: 'weak'; weakness: 'constant' | 'pid' | 'hostname' | 'timestamp' | 'counter'; what: string }
  | { kind: 'strong' }
  | { kind: 'unknown' };

/**
 * What the acquire helper hands back: the acquire's own reply (truthy when acquired), the token (or a
 * falsy value when busy), a release function, a lock object, nothing useful (it throws when busy), or
 * something this analysis cannot tell; or its answer, which it also records on its object
 * (`this.isLeader = true`) for the object's other methods to read.
 */
export type AcquireReturn = 'reply' | 'token' | 'release-fn' | 'lock-object' | 'throws' | 'recorded' | 'unknown';

export interface AcquireSummary {
  key: KeySpec;
  token: TokenSpec;
  hasTtl: boolean;
  returns: AcquireReturn;
  /** For a handed-back release function or lock object: does the release written in it compare the token? */
  handedReleaseChecked?: boolean;
  /** The answer it hands a node-style callback is true when the lock is busy (`cb(null, reply !== 'OK')`). */
  answersBusy?: boolean;
  /** The release function it hands back is null (or nothing) when the lock is busy: callers must test it. */
  emptyWhenBusy?: boolean;
  /** The field of the lock object it hands back that says whether the lock was taken (`{ acquired, release }`). */
  acquiredField?: string;
  /** That lock object comes back also when the lock is busy: a caller testing the object itself always goes on. */
  objectWhenBusy?: boolean;
  /**
   * A store's conditional write of the caller's key and value (`setIfAbsentOrGet(key, value, ttl)`), not
   * named or keyed as lock code: an acquire only at a call whose key names a lock (caching uses it too).
   */
  storePrimitive?: boolean;
  /** The acquire inside the helper. */
  at: Place;
}

export interface ReleaseSummary {
  key?: KeySpec;
  /** The parameter carrying the lock handle or token (`release(lock)`, `release(key, token)`). */
  handleParam?: number;
  ownerChecked: boolean;
  /** It compares the token, but in a GET before the write rather than atomically. */
  compares?: boolean;
  /**
   * A store's delete of the caller's key (`removeCached(key)`), not named or keyed as lock code: a
   * release only at a call whose key names a lock or is taken as one in the same function.
   */
  storePrimitive?: boolean;
  at: Place;
}

export interface ExtendSummary {
  key?: KeySpec;
  ownerChecked: boolean;
  /** It compares the token, but in a GET before the write rather than atomically. */
  compares?: boolean;
  at: Place;
}

/** Runs a callback parameter under a lock (a withLock-like helper). */
export interface RoutineSummary {
  param: number;
  /** The routine is this member of the options object passed at `param` (`underLock({ key, task })`). */
  member?: string;
  key?: KeySpec;
  /** The routine's parameter position that receives the lock's AbortSignal; undefined when none is given. */
  signalArg?: number;
  /**
   * The helper calls the routine as a statement of its own, neither awaited nor returned, before its
   * release (`try { task(); } finally { await release() }`): an async routine outlives the lock.
   */
  dropped?: Place;
  at: Place;
}

/**
 * An argument of a forwarded command: a parameter (optionally wrapped into a key), all from a parameter
 * on, or an option word the wrapper writes itself (`setNX(key, value, ttl)` sending `SET key value EX ttl NX`).
 */
export type ForwardedArg = { param: number; head: string; tail: string } | { rest: number } | { word: string };

/** A thin wrapper of one Redis command (`delete(key) { return this.client.del(key) }`). */
export interface WrapperSummary {
  /** The client method name as the wrapper calls it (`del`, `setNX`, `set`). */
  method: string;
  args: ForwardedArg[];
}

export interface FunctionSummary {
  name: string;
  params: string[];
  acquire?: AcquireSummary;
  release?: ReleaseSummary;
  extend?: ExtendSummary;
  routine?: RoutineSummary;
  wraps?: WrapperSummary;
  /** The class (of the same file) standing for the object of functions it returns: `createLock(key)`'s `{ acquire, release }`. */
  makes?: string;
  /**
   * The class (named as in the same file) of the instance it hands back: a singleton accessor
   * (`LockService.getInstance()`, `getLocks()`) or a factory of `new X()`.
   */
  instanceOf?: string;
  /** The lock-library object it hands back, made inside it (`createMutex(name)` returning `new Mutex(redis, key)`). */
  makesLibrary?: 'redlock' | 'redis-semaphore';
  /** It hands back a client that is null only when its setting is missing (engine/configured-client.ts). */
  unconfiguredNull?: true;
}

export interface ClassSummary {
  name: string;
  methods: Record<string, FunctionSummary>;
  /** The class it extends, as written (resolved like any other class name). */
  base?: string;
  /** The interfaces it implements, as written: a caller may hold it typed by one of them. */
  implements: string[];
  /** Declared `abstract`: a type to inject by, whose work is done by a class extending it. */
  abstract?: boolean;
  /** Fields holding another class (`this.locks = new RedisLock()`, `constructor(private locks: RedisLock)`). */
  fieldTypes: Record<string, string>;
}

/** How a local name of a file came to be: an import, or a value made in the file. */
export type ImportRef = { from: string; name: string };

export type ExportTarget = { local: string } | { from: string; name: string };

export interface FileSummary {
  path: string;
  /** Top-level functions and function-valued consts, by local name; also `module.exports = { f }` members. */
  functions: Record<string, FunctionSummary>;
  classes: Record<string, ClassSummary>;
  /** Object literals of functions (`const locks = { acquire() {...} }`), by local name. */
  objects: Record<string, Record<string, FunctionSummary>>;
  /**
   * Members of those objects that name a function instead of defining one (`{ acquire, lock: acquireLock }`,
   * a function of the file or an imported one): object -> member -> the local name it holds.
   */
  objectRefs: Record<string, Record<string, string>>;
  /** Module-level instances (`export const locks = new RedisLock(redis)`): local name -> class name. */
  instances: Record<string, string>;
  imports: Record<string, ImportRef>;
  exports: Record<string, ExportTarget>;
  /** `export * from '...'` specifiers. */
  stars: string[];
  /**
   * Interfaces, type aliases and abstract classes whose members are named like lock operations
   * (`acquireLock`, `release`): a value typed by one is a lock service bound by dependency injection.
   */
  lockTypes: string[];
  /** Specifiers of every import, re-export and require: the file's dependencies. */
  dependencies: string[];
}

/**
 * A table keyed by the names a file declares. A null-prototype object is a hash table from the start;
 * `{}` grew a hidden class for every new name, and with the distinct names of thousands of files that
 * cost more than reading them.
 */
export function nameTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function emptySummary(path: string): FileSummary {
  return { path, functions: nameTable(), classes: nameTable(), objects: nameTable(), objectRefs: nameTable(), instances: nameTable(), imports: nameTable(), exports: nameTable(), stars: [], lockTypes: [], dependencies: [] };
}

/** Does the function do anything to locks (the names a caller's file must not blank out)? */
export function hasLockMeaning(f: FunctionSummary): boolean {
  return !!(f.acquire || f.release || f.extend || f.routine || f.wraps || f.makesLibrary);
}
