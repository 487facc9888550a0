// `try { return work(); } finally { await release(); }` in an async function: the return hands the work's
// promise back without waiting for it, so the finally runs at once and frees the lock while the work
// still runs. `const pending = work(); await release(); return await pending` does the same in order
// (release-on-all-paths reports both). Only calls known to give a promise are judged (the lock is
// otherwise held as written): the routine a helper was handed (a parameter), a wrapped method run
// through `.apply`/`.call`, and an async function of the same file (read from the file as written: a
// lean tree has its declaration blanked). A statement that starts work and drops its promise
// (`work().then(done);`, `items.forEach(async ...)`) counts where the call shows it gives a promise: a
// promise chain, a Promise combinator, forEach with an async callback, a parameter typed as returning a
// Promise, a decorator's wrapped method run with `this`, an async function of the same file
// (await-locked-work).
import { ts } from './typescript';
import type { Acquire, LockModel, Release } from './model';
import { ancestorWhere, contains, declarationOf, descendantsOfKind, isFunctionLike, isNamedRead, methodOf, unwrap, type Node } from './nodes';
import { inNotAcquiredBranch, releasesOf } from './paths';
import { writtenText } from './written-text';

export interface UnsettledWork {
  /** The call that starts the work. */
  call: ts.CallExpression;
  /** The release that runs before the work's promise settles. */
  release: Release;
  /** Returned from a try that releases in its finally, or held in a variable awaited after the release. */
  how: 'return' | 'held';
}

export function isAsync(fn: Node): boolean {
  return isFunctionLike(fn) && (ts.getCombinedModifierFlags(fn as ts.Declaration) & ts.ModifierFlags.Async) !== 0;
}

// A routine typed to return one of these gives no promise.
const PLAIN_RESULT = /^(?:void|undefined|null|number|string|boolean|bigint)$/;

const CALLBACK_NAME = /^(?:next|done|cb|callback)$/;

/**
 * A `next`, `done`, `cb` or `callback` parameter (untyped, or typed as Express' `NextFunction`): a callback
 * that hands on an answer (`next(err)`), not work. Typed as returning a Promise, it is a routine.
 */
export function isCallbackParameter(fn: ts.FunctionLikeDeclaration, name: string): boolean {
  const parameter = fn.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
  const type = parameter?.type;
  return !!parameter && CALLBACK_NAME.test(name) && !(type && ts.isFunctionTypeNode(type) && /\bPromise\b/.test(type.type.getText()));
}

/** A parameter that holds the routine, unless its type says the routine is synchronous. */
function isRoutineParameter(fn: ts.FunctionLikeDeclaration, name: string): boolean {
  const parameter = fn.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
  const type = parameter?.type;
  if (!parameter || isCallbackParameter(fn, name)) return false;
  return !(type && ts.isFunctionTypeNode(type) && PLAIN_RESULT.test(type.type.getText()));
}

function givesPromise(call: ts.CallExpression, fn: ts.FunctionLikeDeclaration): boolean {
  const callee = unwrap(call.expression);
  if (ownAsyncCall(call)) return true;
  if (ts.isIdentifier(callee)) return isRoutineParameter(fn, callee.text);
  if (!ts.isPropertyAccessExpression(callee) || (callee.name.text !== 'apply' && callee.name.text !== 'call')) return false;
  return ts.isIdentifier(callee.expression) || ts.isPropertyAccessExpression(callee.expression);
}

/** The try block whose finally holds `release`, when that try is in the acquire's own function. */
function tryReleasingInFinally(release: Release, acquire: Acquire): ts.Block | undefined {
  if (release.fn !== acquire.fn) return undefined;
  const block = ancestorWhere<ts.Block>(release.call, (n) => !!n.parent && ts.isTryStatement(n.parent) && n.parent.finallyBlock === n);
  return block && ts.isTryStatement(block.parent) && ancestorWhere(block, isFunctionLike) === acquire.fn ? block.parent.tryBlock : undefined;
}

/** Does the try block await anything of its function's own before `node`? */
function awaitsBefore(tryBlock: ts.Block, node: ts.Node, fn: ts.FunctionLikeDeclaration): boolean {
  return descendantsOfKind<ts.AwaitExpression>(tryBlock, ts.SyntaxKind.AwaitExpression).some((a) => a.end <= node.getStart() && ancestorWhere(a, isFunctionLike) === fn);
}

/** Does `name` appear awaited (`await name`) between `from` and `to`? */
function awaitedBetween(fn: ts.Node, name: string, from: number, to: number): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || node.end < from || node.getStart() > to) return;
    if (ts.isAwaitExpression(node) && ts.isIdentifier(unwrap(node.expression)) && unwrap(node.expression).getText() === name) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(fn);
  return found;
}

/** Is `name` read after `from` (the promise is awaited or handed on after the release)? */
function readAfter(fn: ts.Node, name: string, from: number): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || node.end < from) return;
    if (ts.isIdentifier(node) && node.text === name && node.getStart() > from) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(fn);
  return found;
}

/**
 * The work's promises the lock is released before: `return work()` in a try whose finally releases,
 * and `const pending = work(); await release(); return await pending` (the release runs first).
 */
export function unsettledWork(model: LockModel, acquire: Acquire): UnsettledWork[] {
  const fn = acquire.fn;
  if (!isFunctionLike(fn) || !isAsync(fn) || !fn.body) return [];
  const releases = releasesOf(model, acquire);
  const guarded = releases.flatMap((release) => {
    const tryBlock = tryReleasingInFinally(release, acquire);
    return tryBlock ? [{ release, tryBlock }] : [];
  });
  const found: UnsettledWork[] = [];
  // The function's own returns and declarations (not those of functions nested in it), from the file
  // index: a walk of the whole function for each of its acquires was over half of release-on-all-paths.
  const own = <T extends ts.Node>(kind: ts.SyntaxKind) => descendantsOfKind<T>(fn.body!, kind).filter((node) => ancestorWhere(node, isFunctionLike) === fn);
  // The call is judged first: the searches for the release walk the function.
  for (const node of guarded.length > 0 ? own<ts.ReturnStatement>(ts.SyntaxKind.ReturnStatement) : []) {
    const value = node.expression && unwrap(node.expression);
    // `if (!lock) return next(busy)`: no lock is held on the not-acquired path.
    const guard = value && ts.isCallExpression(value) && givesPromise(value, fn) && !inNotAcquiredBranch(acquire, node) ? guarded.find((g) => contains(g.tryBlock, node)) : undefined;
    // `await migrate(); return getUsage(key)`: a read of what the awaited work wrote answers the caller after it.
    const release = guard && !(isNamedRead(value as ts.CallExpression) && awaitsBefore(guard.tryBlock, node, fn)) ? guard.release : undefined;
    if (release) found.push({ call: value as ts.CallExpression, release, how: 'return' });
  }
  const heldUntil = releases.filter((r) => r.fn === fn);
  for (const node of heldUntil.length > 0 ? own<ts.VariableDeclaration>(ts.SyntaxKind.VariableDeclaration) : []) {
    // Declared after the acquire (a declaration starts at its name, never where the call does).
    if (!ts.isIdentifier(node.name) || !node.initializer || node.pos <= acquire.call.pos) continue;
    const value = unwrap(node.initializer);
    const name = node.name.text;
    const release = ts.isCallExpression(value) && givesPromise(value, fn)
      ? heldUntil.find((r) => r.call.getStart() > node.end && !awaitedBetween(fn, name, node.end, r.call.getStart()) && readAfter(fn, name, r.call.end))
      : undefined;
    if (release) found.push({ call: value as ts.CallExpression, release, how: 'held' });
  }
  return found.sort((a, b) => a.call.pos - b.call.pos);
}

const PROMISE_CHAIN = new Set(['then', 'catch', 'finally']);
const PROMISE_COMBINATOR = /^Promise\.(?:all|allSettled|race|any)$/;

/** `work: () => Promise<void>`, `job: (signal: AbortSignal) => Promise<T>`: a parameter typed as async work. */
function promiseParameter(callee: Node): boolean {
  if (!ts.isIdentifier(callee)) return false;
  const decl = declarationOf(callee);
  const type = decl && ts.isParameter(decl) ? decl.type : undefined;
  return !!type && ts.isFunctionTypeNode(type) && /^Promise\s*</.test(type.type.getText());
}

/** The call a promise chain starts with: `work()` of `work().then(a).catch(b)`. */
function chainHead(call: ts.CallExpression): ts.CallExpression {
  let head = call;
  for (let method = methodOf(head); method && PROMISE_CHAIN.has(method.name); method = methodOf(head)) {
    const receiver = unwrap(method.receiver);
    if (!ts.isCallExpression(receiver)) break;
    head = receiver;
  }
  return head;
}

// `async function name(`, `async name(` (a method), `name = async (`: the async functions of a file, by
// name. Read around each `async` word: one pattern tried at every identifier was 4 ms on a large file.
const ASYNC_WORD = /\basync\b/g;
const NAMED_AFTER = /\s+(?:function\s*\*?\s*)?\*?\s*([A-Za-z_$][\w$]*)\s*[<(]/y;
const ASSIGNED_BEFORE = /([A-Za-z_$][\w$]*)\s*(?::[^=;]{1,80})?=\s*$/;
/** Work meant to run beside the locked work for as long as it does (a watchdog renewing the lock). */
const BACKGROUND = /heartbeat|keep_?alive|watchdog|renew|extend|refresh|monitor|watch|poll/i;
/**
 * A notice sent off beside the locked work (`alertAdmins(...)`, `notifyUser(...)`, `logAudit(...)`): it
 * changes none of the state the lock guards, so it may run on after the release.
 */
const NOTICE = /^(?:alert|notify|log|audit|announce)(?:[A-Z_]|$)|(?:Alerts?|Notifications?|Telemetry|Analytics|Metrics?)$/;
const asyncNames = new WeakMap<ts.SourceFile, Set<string>>();

/** Names of the file's async functions, read from its text as written: a lean tree has them blanked. */
export function asyncFunctionsOf(sourceFile: ts.SourceFile): Set<string> {
  let names = asyncNames.get(sourceFile);
  if (!names) {
    names = new Set();
    const text = writtenText(sourceFile);
    for (const { index } of text.matchAll(ASYNC_WORD)) {
      NAMED_AFTER.lastIndex = index + 5;
      const name = NAMED_AFTER.exec(text)?.[1] ?? ASSIGNED_BEFORE.exec(text.slice(Math.max(0, index - 120), index))?.[1];
      if (name && name !== 'function' && !BACKGROUND.test(name) && !NOTICE.test(name)) names.add(name);
    }
    asyncNames.set(sourceFile, names);
  }
  return names;
}

/** `rebuild(id)`, `this.rebuild(id)`: a call of an async function of this file (not a local value of that name). */
function ownAsyncCall(call: ts.CallExpression): boolean {
  const callee = unwrap(call.expression);
  const name = ts.isIdentifier(callee) ? callee : ts.isPropertyAccessExpression(callee) && unwrap(callee.expression).kind === ts.SyntaxKind.ThisKeyword ? callee.name : undefined;
  if (!name || !asyncFunctionsOf(call.getSourceFile()).has(name.text)) return false;
  return !ts.isIdentifier(callee) || !declarationOf(callee);
}

/**
 * What makes this call's promise one the release does not wait for; undefined when it may be none.
 * A chain that ends in `.catch(handler)` was sent off on purpose, its errors handled (a webhook, a
 * background check): only the routine the lock was taken for (a parameter typed as async work) is
 * still the locked work so detached.
 */
export function unawaitedPromise(call: ts.CallExpression): string | undefined {
  const method = methodOf(call);
  if (method?.name === 'catch') return promiseParameter(unwrap(chainHead(call).expression)) ? 'a promise chain' : undefined;
  if (method && PROMISE_CHAIN.has(method.name)) return 'a promise chain';
  if (PROMISE_COMBINATOR.test(unwrap(call.expression).getText())) return 'a promise';
  if (method?.name === 'forEach') {
    const callback = call.arguments[0] && unwrap(call.arguments[0]);
    return callback && isAsync(callback) ? 'forEach with an async callback: nothing awaits the promises it starts' : undefined;
  }
  if (promiseParameter(unwrap(call.expression))) return 'work typed as returning a Promise';
  if (wrappedMethodCall(call)) return 'the method the decorator wraps (a promise, for an async method)';
  return ownAsyncCall(call) ? 'an async function of this file' : undefined;
}

/** `original.apply(this, args)`, `method.call(this, ...args)`: a decorator running the method it wraps. */
function wrappedMethodCall(call: ts.CallExpression): boolean {
  const method = methodOf(call);
  const first = call.arguments[0] && unwrap(call.arguments[0]);
  return (method?.name === 'apply' || method?.name === 'call') && first?.kind === ts.SyntaxKind.ThisKeyword && ts.isIdentifier(unwrap(method.receiver));
}

/**
 * `promise.finally(cleanup);` then `await promise` before the release: the work itself is awaited, and
 * the chain only reacts to it settling.
 */
function awaitedLater(call: ts.CallExpression, fn: Node, until: number): boolean {
  const receiver = methodOf(chainHead(call))?.receiver;
  const work = receiver && unwrap(receiver);
  if (!work || !ts.isIdentifier(work)) return false;
  return descendantsOfKind<ts.AwaitExpression>(fn, ts.SyntaxKind.AwaitExpression).some((a) => a.pos > call.end && a.pos < until && ancestorWhere(a, isFunctionLike) === fn && ts.isIdentifier(unwrap(a.expression)) && (unwrap(a.expression) as ts.Identifier).text === work.text);
}

/** The expression statements of `fn` itself (not of nested functions) that lie inside [from, until). */
function statementsBetween(fn: Node, from: number, until: number): ts.ExpressionStatement[] {
  const found: ts.ExpressionStatement[] = [];
  const visit = (n: ts.Node): void => {
    // Only the subtrees that overlap the range: a lock-heavy file has many acquires in one function.
    if (n.end <= from || n.pos >= until || (n !== fn && isFunctionLike(n))) return;
    if (ts.isExpressionStatement(n) && n.pos >= from && n.end <= until) found.push(n);
    ts.forEachChild(n, visit);
  };
  visit(fn);
  return found;
}

/** A statement that starts work and drops its promise, and what shows the call gives one. */
export interface DroppedWork {
  call: ts.CallExpression;
  why: string;
}

/**
 * `work().then(done);`, `items.forEach(async (item) => ...);` as statements between the acquire and its
 * last release in its own function: nothing waits for the work, so the release runs at once. Only calls
 * that show where they are written that they give a promise (see the module comment); `lockCalls`, the
 * file's lock operations, are never work.
 */
export function droppedWork(model: LockModel, acquire: Acquire, lockCalls: ReadonlySet<Node>): DroppedWork[] {
  let until = -1;
  for (const r of releasesOf(model, acquire)) if (r.fn === acquire.fn && r.call.pos > until) until = r.call.pos;
  if (until < 0) return [];
  const found: DroppedWork[] = [];
  for (const statement of statementsBetween(acquire.fn, acquire.call.end, until)) {
    const call = unwrap(statement.expression);
    if (!ts.isCallExpression(call) || lockCalls.has(call)) continue;
    const why = unawaitedPromise(call);
    if (why && !awaitedLater(call, acquire.fn, until)) found.push({ call, why });
  }
  return found;
}
