// The lock libraries: redlock (v4 lock/unlock, v5 acquire/release/extend/using, the sesamecare fork),
// redis-semaphore (Mutex, Semaphore, MultiSemaphore and their Redlock variants), Lockwise's own
// withLock, and the project's helper functions named in the config.
import { ts } from './typescript';
import type { HelperNames } from '../config';
import { REDLOCK_MODULES, SEMAPHORE_MODULE, type FileImports } from './imports';
import type { ConstLookup, KeyRef } from './keys';
import type { Acquire, Extend, Release } from './model';
import { ancestorWhere, calleeName, contains, descendantsOfKind, enclosingFunction, enclosingStatement, isAssignment, isFunctionLike, isFunctionOrArrow, methodOf, nameOf, unwrap, valueCarrier, type Node } from './nodes';
import { LOCK_NAME } from './lock-name';
import { resultUse } from './result-use';
import { libraryGetterTarget, type LibraryName } from './library-getters';

export interface LibraryObject {
  library: 'redlock' | 'redis-semaphore';
  className: string;
  node: ts.NewExpression;
  /** Name the object is stored under (`redlock`, `mutex`; `this.x` is stored as `x`). */
  name?: string;
  key?: Node;
  options?: ts.ObjectLiteralExpression;
  /** The options argument position, for fixes that add one. */
  optionsIndex: number;
}

// class -> index of the options argument (a Map: `new this.constructor()` must not find Object's constructor)
const SEMAPHORE_CLASSES = new Map([
  ['Mutex', 2], ['Semaphore', 3], ['MultiSemaphore', 4], ['RedlockMutex', 2], ['RedlockSemaphore', 3], ['RedlockMultiSemaphore', 4],
]);

/** `x` for `const x = ...`, `this.x = ...`, `x: ...` (class property). */
export function storedName(node: Node): string | undefined {
  const parent = valueCarrier(node).parent;
  if (!parent) return undefined;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return ts.isVariableDeclaration(parent) && !ts.isIdentifier(parent.name) ? parent.name.getText() : nameOf(parent);
  }
  if (isAssignment(parent)) return lastSegment(parent.left);
  return undefined;
}

/** RxJS operators that hand each value of the source to a function: `switchMap((lock) => ...)`. */
const RX_VALUE_OPERATOR = /^(?:switchMap|mergeMap|concatMap|exhaustMap|flatMap)$/;

/**
 * `redlock.lock(key, ttl).then((lock) => ...)`: the handle is the first parameter of the first `.then`;
 * `from(locks.lock(key, ttl)).pipe(switchMap((lock) => ...))` (a NestJS interceptor): of the first operator.
 */
export function thenParameter(call: ts.CallExpression): string | undefined {
  const carrier = valueCarrier(call);
  const access = carrier.parent;
  let handler: Node | undefined;
  if (access && ts.isPropertyAccessExpression(access) && access.name.text === 'then' && ts.isCallExpression(access.parent)) {
    handler = access.parent.arguments[0];
  } else if (access && ts.isCallExpression(access) && access.arguments[0] === carrier && calleeName(access) === 'from') {
    const pipe = access.parent;
    const first = ts.isPropertyAccessExpression(pipe) && pipe.name.text === 'pipe' && ts.isCallExpression(pipe.parent) ? pipe.parent.arguments[0] : undefined;
    const operator = first && unwrap(first);
    if (operator && ts.isCallExpression(operator) && RX_VALUE_OPERATOR.test(calleeName(operator) ?? '')) handler = operator.arguments[0];
  }
  const fn = handler && unwrap(handler);
  const param = fn && isFunctionOrArrow(fn) ? fn.parameters[0]?.name : undefined;
  return param && ts.isIdentifier(param) ? param.text : undefined;
}

export function lastSegment(node: Node): string {
  const n = unwrap(node);
  if (ts.isIdentifier(n)) return n.text;
  return ts.isPropertyAccessExpression(n) ? n.name.text : n.getText();
}

function objectArg(node: Node | undefined, lookup: ConstLookup): ts.ObjectLiteralExpression | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  if (ts.isIdentifier(n)) n = unwrap(lookup(n) ?? n);
  return ts.isObjectLiteralExpression(n) ? n : undefined;
}

export function recogniseLibraryObjects(news: ts.NewExpression[], imports: FileImports, lookup: ConstLookup): LibraryObject[] {
  const objects: LibraryObject[] = [];
  for (const node of news) {
    const expr = unwrap(node.expression);
    const written = ts.isPropertyAccessExpression(expr) ? expr.name.text : expr.getText();
    // `import { Semaphore as RedisSemaphore }`: the class is the one the module exports.
    const className = ts.isPropertyAccessExpression(expr) ? written : (imports.renamed.get(written) ?? written);
    const root = ts.isPropertyAccessExpression(expr) ? unwrap(expr.expression).getText() : written;
    const from = imports.names.get(root);
    const args = node.arguments ?? [];
    if (from ? REDLOCK_MODULES.has(from) && /Redlock|default/.test(className) : className === 'Redlock') {
      objects.push({ library: 'redlock', className: 'Redlock', node, name: storedName(node), options: objectArg(args[1], lookup), optionsIndex: 1 });
      continue;
    }
    const optionsIndex = SEMAPHORE_CLASSES.get(className);
    // A Mutex from another package (async-mutex...) is not a Redis lock.
    if (optionsIndex === undefined || (from !== undefined && from !== SEMAPHORE_MODULE) || args.length < 2) continue;
    objects.push({
      library: 'redis-semaphore', className, node, name: storedName(node), key: args[1],
      options: objectArg(args[optionsIndex], lookup), optionsIndex,
    });
  }
  return objects;
}

/**
 * `new Mutex(redis, key, { acquiredExternally: true, identifier })`: its acquire refreshes a lock its
 * identifier already holds (redis-semaphore runs its refresh script instead of acquiring), an owner-checked
 * extend of a lock taken elsewhere, not a new acquire.
 */
function adoptsHeldLock(object: LibraryObject): boolean {
  return !!object.options?.properties.some((p) => {
    const name = nameOf(p);
    if (name === 'externallyAcquiredIdentifier') return true;
    return name === 'acquiredExternally' && ts.isPropertyAssignment(p) && unwrap(p.initializer).kind === ts.SyntaxKind.TrueKeyword;
  });
}

/**
 * The object stored under `name` that `call` sees: made in the innermost function around the call, else
 * at the top of the file or in a field. Two methods that each make their own `mutex` lock two keys.
 */
function objectInScope(objects: readonly LibraryObject[], name: string, call: Node): LibraryObject | undefined {
  const named = objects.filter((o) => o.name === name);
  if (named.length <= 1) return named[0];
  let best: LibraryObject | undefined;
  let depth = -1;
  for (const o of named) {
    const scope = ancestorWhere(o.node, isFunctionLike);
    if (scope && !contains(scope, call)) continue;
    const d = scope ? scope.getStart() : 0;
    if (d > depth) [best, depth] = [o, d];
  }
  return best ?? named[0];
}

export interface LibraryCalls {
  acquires: Acquire[];
  releases: Release[];
  extends: Extend[];
  redlockSettings: Node[];
}

const REDLOCKISH = /redlock/i;

/**
 * Fields and parameters typed by the Redlock class (`constructor(private readonly lockAdapter: Redlock)`,
 * the NestJS shape): whatever their name, they hold a redlock. Those typed by its `Lock` class
 * (`releaseLock(lock: Lock)`) hold a lock handle.
 */
function typedByRedlock(sourceFile: ts.SourceFile, imports: FileImports): { redlocks: string[]; handles: string[] } {
  const found = { redlocks: [] as string[], handles: [] as string[] };
  // Only a file that writes `: Redlock` (under its imported name) has any: most files are spared the walk.
  const classNames = [...imports.names].filter(([, from]) => REDLOCK_MODULES.has(from)).map(([local]) => local);
  if (!classNames.some((name) => new RegExp(`:\\s*${name.replace(/\$/g, '\\$')}\\b`).test(sourceFile.text))) return found;
  const typed = [...descendantsOfKind<ts.ParameterDeclaration>(sourceFile, ts.SyntaxKind.Parameter), ...descendantsOfKind<ts.PropertyDeclaration>(sourceFile, ts.SyntaxKind.PropertyDeclaration)];
  for (const d of typed) {
    const type = d.type;
    if (!type || !ts.isTypeReferenceNode(type) || !ts.isIdentifier(type.typeName) || !ts.isIdentifier(d.name)) continue;
    const local = type.typeName.text;
    const from = imports.names.get(local);
    if (from === undefined || !REDLOCK_MODULES.has(from)) continue;
    (/^Lock$/.test(imports.renamed.get(local) ?? local) ? found.handles : found.redlocks).push(d.name.text);
  }
  return found;
}
/** The method names the libraries and withLock are called by (configured helpers are added per file). */
const LIBRARY_METHODS = ['acquire', 'tryAcquire', 'lock', 'using', 'release', 'unlock', 'extend', 'extendLock', 'withLock'];

export function recogniseLibraryCalls(
  calls: ts.CallExpression[],
  objects: LibraryObject[],
  imports: FileImports,
  helpers: HelperNames,
  keyOf: (n: Node) => KeyRef,
  /** Lock-library objects this file imports from another project file, by local name. */
  imported: ReadonlyMap<string, LibraryObject['library']> = new Map(),
): LibraryCalls {
  const out: LibraryCalls = { acquires: [], releases: [], extends: [], redlockSettings: [] };
  const redlocks = new Set(objects.filter((o) => o.library === 'redlock' && o.name).map((o) => o.name as string));
  const semaphores = new Set(objects.filter((o) => o.library === 'redis-semaphore' && o.name).map((o) => o.name as string));
  for (const [name, library] of imported) (library === 'redlock' ? redlocks : semaphores).add(name);
  const typed = calls.length > 0 ? typedByRedlock(calls[0].getSourceFile(), imports) : undefined;
  for (const name of typed?.redlocks ?? []) redlocks.add(name);
  // The package, or a project module named after it (`require('./lib/redlock')`, a singleton factory).
  const usesRedlock = [...imports.modules].some((m) => REDLOCK_MODULES.has(m) || (m.startsWith('.') && REDLOCKISH.test(m))) || redlocks.size > 0;
  // Lock handles: variables holding what redlock.acquire()/lock() returned, and values typed by its Lock class.
  const handles = new Set<string>(typed?.handles);

  const isRedlock = (name: string) => redlocks.has(name) || REDLOCKISH.test(name);
  const stored = new Map<string, LibraryName>([...[...redlocks].map((n) => [n, 'redlock'] as const), ...[...semaphores].map((n) => [n, 'redis-semaphore'] as const)]);
  const named = new Set([...LIBRARY_METHODS, ...helpers.acquire, ...helpers.release, ...helpers.extend]);

  for (const call of calls) {
    // Most calls are Redis commands (set, del, eval): no branch below reads them, so their name is read
    // without building methodOf's object. Acquires are written out, not spread from a base object: the
    // spread took most of this function's time.
    const name = calleeName(call) ?? methodOf(call)?.name;
    if (name === undefined || !named.has(name)) continue;
    const m = methodOf(call);
    const plain = calleeName(call);
    const args = call.arguments;
    let receiver = m && lastSegment(m.receiver);
    let library: LibraryName | undefined = receiver === undefined ? undefined : isRedlock(receiver) ? 'redlock' : semaphores.has(receiver) ? 'redis-semaphore' : undefined;
    // `this.lock.acquire()` through a getter that hands back the stored object.
    const target = m && receiver !== undefined && !library ? libraryGetterTarget(m.receiver, stored, imports) : undefined;
    if (target) ({ library, name: receiver } = target);

    if (m && receiver !== undefined && library === 'redlock') {
      if ((m.name === 'acquire' || m.name === 'lock') && args.length >= 2) {
        const handle = storedName(call) ?? thenParameter(call);
        if (handle) handles.add(handle);
        out.acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: 'redlock', key: keyOf(firstResource(args[0])), hasTtl: true, owner: handle });
        if (args[2]) out.redlockSettings.push(args[2]);
        continue;
      }
      if (m.name === 'using' && args.length >= 3) {
        // redlock's order is (resources, duration, settings, routine); a project's own redlock interface
        // may take the settings last (`using(key, ms, async () => ..., { retryCount: 0 })`).
        const routine = args.slice(2).reverse().find((a) => isFunctionOrArrow(unwrap(a))) ?? args[args.length - 1];
        out.acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: 'redlock-using', key: keyOf(firstResource(args[0])), hasTtl: true, routine });
        const settings = args.length >= 4 ? args.slice(2).find((a) => a !== routine) : undefined;
        if (settings) out.redlockSettings.push(settings);
        continue;
      }
      if ((m.name === 'release' || m.name === 'unlock') && args[0]) {
        out.releases.push({ call, fn: enclosingFunction(call), kind: 'library', handle: lastSegment(args[0]), ownerChecked: true });
        continue;
      }
      if (m.name === 'extend' && args[0]) {
        out.extends.push({ call, fn: enclosingFunction(call), kind: 'library', handle: lastSegment(args[0]), ownerChecked: true });
        continue;
      }
    }

    if (m && receiver !== undefined && library === 'redis-semaphore') {
      const owner = receiver;
      if (m.name === 'acquire' || m.name === 'tryAcquire') {
        const object = objectInScope(objects, owner, call);
        if (object && adoptsHeldLock(object)) {
          out.extends.push({ call, fn: enclosingFunction(call), kind: 'library', handle: owner, ownerChecked: true });
          continue;
        }
        out.acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: m.name === 'acquire' ? 'semaphore' : 'semaphore-try', key: object?.key ? keyOf(object.key) : undefined, hasTtl: true, owner });
      } else if (m.name === 'release') {
        out.releases.push({ call, fn: enclosingFunction(call), kind: 'library', handle: owner, ownerChecked: true });
      }
      continue;
    }

    // lock.release() / lock.unlock() / lock.extend(ms) on a redlock handle (also of a redlock known only by
    // its name, a parameter `redlock` whose lock() handed it back).
    if (m && receiver !== undefined && (usesRedlock || handles.has(receiver)) && args.length <= 1) {
      const handle = receiver;
      if (handles.has(handle) || (/lock/i.test(handle) && !isRedlock(handle))) {
        if ((m.name === 'release' || m.name === 'unlock') && args.length === 0) {
          out.releases.push({ call, fn: enclosingFunction(call), kind: 'library', handle, ownerChecked: true });
        } else if (m.name === 'extend' && args.length === 1) {
          out.extends.push({ call, fn: enclosingFunction(call), kind: 'library', handle, ownerChecked: true });
        }
      }
    }

    // `jobLock.extend(ttl)` on a lock object of a package no branch above knows (an organisation's lock
    // library): an extend of unknown kind, owner-checked as far as can be told. Only a watchdog's
    // handling of its failure is judged (stop-on-lock-lost); its answer's shape is the package's.
    if (m && receiver !== undefined && !library && !usesRedlock && m.name === 'extend' && args.length <= 1 && LOCK_NAME.test(receiver)) {
      out.extends.push({ call, fn: enclosingFunction(call), kind: 'helper', handle: receiver, ownerChecked: true });
      continue;
    }
    // `server.lock.extendLock(lock, ttl)`: the same, of a package that takes the lock object it handed out first.
    if (m && receiver !== undefined && !library && !usesRedlock && m.name === 'extendLock' && args.length === 2 && LOCK_NAME.test(receiver) && ts.isIdentifier(unwrap(args[0]))) {
      out.extends.push({ call, fn: enclosingFunction(call), kind: 'helper', handle: lastSegment(args[0]), ownerChecked: true });
      continue;
    }

    // Lockwise's withLock(client, key, options, work). A withLock of another shape (`withLock(key, ttl, fn)`
    // of another package) may hand its routine no signal at all; the project's own are read from their summaries.
    if (plain === 'withLock' && args.length === 4) {
      const routine = args[args.length - 1];
      if (isFunctionOrArrow(routine)) {
        out.acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: 'with-lock', key: keyOf(args[1]), hasTtl: true, routine });
      }
      continue;
    }
    if (plain && helpers.acquire.includes(plain)) {
      out.acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: 'helper', key: args[0] ? keyOf(args[0]) : undefined, hasTtl: true, owner: storedName(call) });
    } else if (plain && helpers.release.includes(plain)) {
      out.releases.push({ call, fn: enclosingFunction(call), kind: 'helper', key: args[0] ? keyOf(args[0]) : undefined, handle: args[0] ? lastSegment(args[0]) : undefined, ownerChecked: true });
    } else if (plain && helpers.extend.includes(plain)) {
      out.extends.push({ call, fn: enclosingFunction(call), kind: 'helper', key: args[0] ? keyOf(args[0]) : undefined, ownerChecked: true });
    }
  }
  return out;
}

function firstResource(node: Node): Node {
  const n = unwrap(node);
  return ts.isArrayLiteralExpression(n) && n.elements[0] ? n.elements[0] : n;
}
