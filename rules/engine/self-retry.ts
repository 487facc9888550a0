// An acquire retried by its function calling itself again: `return take(key)` after a failed try, or,
// callback style, from the acquire's own callback: `client.set(k, v, 'NX', 'PX', t, (err, ok) => {
// ... setTimeout(tryLock, 100) })`, or through a helper declared inside it: `function retry() {
// setTimeout(() => take(key), d) }` called from the failure path. backoff-between-retries judges the
// wait, bounded-acquire-retry the number of tries.
import { ts } from './typescript';
import type { Acquire } from './model';
import { ancestorWhere, callsNamed, contains, descendantsWhere, identifiersNamed, isAssignment, isFunctionLike, isFunctionOrArrow, methodOf, nameOf, unwrap, valueCarrier, type Node } from './nodes';
import { onlyWhenAcquired, testsFailure } from './paths';
import { mentions } from './failure-paths';

export interface SelfRetry {
  /** The call that retries: the function's call to itself, or the setTimeout that schedules it. */
  call: ts.CallExpression;
  /** The function's call to itself, with the arguments it passes on (none when setTimeout is handed the function). */
  again?: ts.CallExpression;
  /** For a retry scheduled with setTimeout: the delay before it. */
  delay?: Node;
  /** For a retry chained on a promise (`return released.then(() => take(key))`): that promise, a wait of unknown length. */
  waitsFor?: Node;
}

/** The name a function calls itself by, and the callees that reach it (`take`, `this.take`, `self.take`). */
interface SelfName {
  name: string;
  callees: Set<string>;
}

/**
 * The name the acquire's function calls itself by: its own (a function expression's too), the variable an arrow is stored or assigned in, or the
 * property a function expression is assigned to (`Lock.prototype.retry = function`), which is reached
 * only through `this` or a variable holding it (`var self = this; ... self.retry()`).
 */
function ownName(fn: Node): SelfName | undefined {
  const named = (name: string | undefined) => (name ? { name, callees: new Set([name, `this.${name}`]) } : undefined);
  if (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) return named(nameOf(fn));
  if (!isFunctionOrArrow(fn)) return undefined;
  // `exports.wait = function wait(id, done) { ... wait(id, done) }`: a function expression's own name.
  if (ts.isFunctionExpression(fn) && fn.name) return named(fn.name.text);
  if (ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) return named(fn.parent.name.text);
  // `let attempt; return (attempt = function () { ... })()`: the variable it is assigned to.
  if (isAssignment(fn.parent) && fn.parent.right === fn && ts.isIdentifier(fn.parent.left)) return named(fn.parent.left.text);
  if (!isAssignment(fn.parent) || fn.parent.right !== fn || !ts.isPropertyAccessExpression(fn.parent.left) || ts.isArrowFunction(fn)) return undefined;
  const name = fn.parent.left.name.text;
  const callees = new Set([`this.${name}`]);
  for (const decl of descendantsWhere<ts.VariableDeclaration>(fn, ts.isVariableDeclaration)) {
    if (ts.isIdentifier(decl.name) && decl.initializer?.kind === ts.SyntaxKind.ThisKeyword && ancestorWhere(decl, isFunctionLike) === fn) callees.add(`${decl.name.text}.${name}`);
  }
  return { name, callees };
}

const callsSelf = (node: Node, self: SelfName) => self.callees.has(unwrap(node).getText());

/** A call of the global `setTimeout`. */
const isSetTimeout = (call: ts.CallExpression) => unwrap(call.expression).getText() === 'setTimeout';

/**
 * The functions between `node` and the acquire's function: is one of them a callback of the acquire
 * (an argument of its call, or of a `.then`/`.catch` chained on it)?
 */
function inAcquireCallback(acquire: Acquire, node: Node): boolean {
  for (let f = ancestorWhere(node, isFunctionLike); f && f !== acquire.fn; f = ancestorWhere(f, isFunctionLike)) {
    const call = f.parent;
    if (!ts.isCallExpression(call) || !call.arguments.includes(f as ts.Expression)) continue;
    if (call === acquire.call) return true;
    const method = methodOf(call);
    if (method && /^(?:then|catch)$/.test(method.name) && contains(method.receiver, acquire.call)) return true;
  }
  return false;
}

/**
 * `return waitForRelease(key).then(() => this.take(key))`: a call in a `.then` callback on a promise the
 * function hands back (returned or awaited), which runs the function again once that promise settles.
 * The `.then` call, or undefined.
 */
function continuationOf(call: Node, fn: Node): ts.CallExpression | undefined {
  const callback = ancestorWhere(call, isFunctionLike);
  const then = callback?.parent;
  if (!then || !ts.isCallExpression(then) || then.arguments[0] !== callback || methodOf(then)?.name !== 'then' || ancestorWhere(then, isFunctionLike) !== fn) return undefined;
  const carrier = valueCarrier(then);
  let awaited = false;
  for (let n: Node = then; n !== carrier; n = n.parent) awaited ||= ts.isAwaitExpression(n.parent);
  return awaited || ts.isReturnStatement(carrier.parent) ? then : undefined;
}

const leaves = (s: Node) => ts.isReturnStatement(s) || ts.isThrowStatement(s) || (ts.isBlock(s) && s.statements.some((t) => ts.isReturnStatement(t) || ts.isThrowStatement(t)));

/**
 * In a callback, is the retry on the path where the lock was taken: in the branch of `if (ok)`, or after
 * an `if (!ok) return` guard before it? A helper whose answer is true when busy (`cb(null, reply !==
 * 'OK')`) turns the test of that answer round.
 */
function afterSuccess(acquire: Acquire, node: Node, stop: Node): boolean {
  const callback = acquire.call.arguments.map(unwrap).find(isFunctionOrArrow);
  // Node-style `(err, reply)`: the error is not the answer.
  const answers = (callback?.parameters ?? []).slice(callback && callback.parameters.length > 1 ? 1 : 0).map((p) => p.name.getText());
  const busyAnswer = acquire.via?.answersBusy ? answers[0] : undefined;
  const testsBusy = (condition: Node) => testsFailure(condition) !== (!!busyAnswer && mentions(condition, [busyAnswer]));
  // A helper that fails when the lock is busy (redlock's callback API behind it) answers busy with the
  // error itself: `if (error) return callback(error)` is its not-acquired path.
  const busyError = acquire.via?.returns === 'throws' && callback && callback.parameters.length > 1 ? callback.parameters[0].name.getText() : undefined;
  const leavesOnError = (s: ts.Statement) => !!busyError && ts.isIfStatement(s) && !s.elseStatement && mentions(s.expression, [busyError]) && !testsFailure(s.expression) && leaves(s.thenStatement);
  for (let child = node, parent = node.parent; parent && parent !== stop; child = parent, parent = parent.parent) {
    if (ts.isBlock(parent)) {
      const before = parent.statements.slice(0, parent.statements.indexOf(child as ts.Statement));
      const guard = (s: ts.Statement) => ts.isIfStatement(s) && !s.elseStatement && mentions(s.expression, answers) && testsBusy(s.expression) && leaves(s.thenStatement);
      if (before.some((s) => guard(s) || leavesOnError(s))) return true;
    }
    if (!ts.isIfStatement(parent) || child === parent.expression) continue;
    if ((child === parent.thenStatement) !== testsBusy(parent.expression)) return true;
  }
  return false;
}

/** `setTimeout(retry, d)` or `setTimeout(() => retry(...), d)` around the retry: its delay. */
function scheduledBy(call: Node, name: SelfName, fn: Node): ts.CallExpression | undefined {
  const timeouts = callsNamed(fn, (n) => n === 'setTimeout').filter(isSetTimeout);
  return timeouts.find((t) => {
    const first = t.arguments[0];
    if (!first) return false;
    return call === t ? callsSelf(first, name) : isFunctionOrArrow(unwrap(first)) && contains(first, call);
  });
}

/** The first call in `scope` that runs the function again: by name, or handed to setTimeout. */
function retryIn(scope: Node, name: SelfName): SelfRetry | undefined {
  for (const c of callsNamed(scope, (n) => n === name.name || n === 'setTimeout')) {
    const direct = callsSelf(c.expression, name);
    if (!direct && !(isSetTimeout(c) && !!c.arguments[0] && callsSelf(c.arguments[0], name))) continue;
    const timeout = direct ? scheduledBy(c, name, scope) : c;
    return { call: timeout ?? c, again: direct ? c : undefined, delay: timeout?.arguments[1] };
  }
  return undefined;
}

/** Helpers declared in the function itself (`function retry() {...}`, `const retry = () => ...`) that run it again. */
function retryHelpers(fn: Node, name: SelfName): Map<string, SelfRetry> {
  const helpers = new Map<string, SelfRetry>();
  for (const inner of descendantsWhere(fn, isFunctionLike)) {
    const helperName = ownName(inner)?.name;
    if (!helperName || helperName === name.name || ancestorWhere(inner, isFunctionLike) !== fn) continue;
    const retry = retryIn(inner, name);
    if (retry) helpers.set(helperName, retry);
  }
  return helpers;
}

/**
 * `for (const next of downstream) await trigger(next)` after the loop that takes the locks: the function
 * run again on each item of a list (a loop of its own, the acquire outside it), handed that item: more
 * work, not another try of this acquire.
 */
function recursesOverItems(call: ts.CallExpression, acquire: Acquire, fn: Node): boolean {
  for (let a = call.parent; a && a !== fn; a = a.parent) {
    if (!(ts.isForOfStatement(a) || ts.isForInStatement(a)) || contains(a, acquire.call)) continue;
    const declared = ts.isVariableDeclarationList(a.initializer) ? a.initializer.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : [])) : [];
    if (declared.length > 0 && call.arguments.some((arg) => mentions(arg, declared))) return true;
  }
  return false;
}

export function selfRetry(acquire: Acquire): SelfRetry | undefined {
  const fn = acquire.fn;
  const name = ownName(fn);
  if (!name) return undefined;
  // Nested functions are only read when the name is spelled inside one (found through the identifier index).
  const nested = identifiersNamed(fn, name.name).some((id) => ancestorWhere(id, isFunctionLike) !== fn);
  const helpers = nested ? retryHelpers(fn, name) : new Map<string, SelfRetry>();
  // Only calls by the function's name, of setTimeout or of a retry helper can retry: the index names them without reading each call's text.
  for (const c of callsNamed(fn, (n) => n === name.name || n === 'setTimeout' || helpers.has(n))) {
    const helper = ts.isIdentifier(c.expression) ? helpers.get(c.expression.text) : undefined;
    const direct = !helper && callsSelf(c.expression, name);
    const timer = !helper && !direct && isSetTimeout(c) && !!c.arguments[0] && callsSelf(c.arguments[0], name);
    if (!helper && !direct && !timer) continue;
    const inCallback = inAcquireCallback(acquire, c);
    const continuation = inCallback || !direct ? undefined : continuationOf(c, fn);
    // After the acquire: in the function's own statements (a nested function is someone else's), its callback or its continuation.
    if (!inCallback && (c.getStart() < acquire.call.end || (ancestorWhere(c, isFunctionLike) !== fn && !continuation))) continue;
    if (onlyWhenAcquired(acquire, c) || (inCallback && afterSuccess(acquire, c, fn))) continue;
    if (direct && recursesOverItems(c as ts.CallExpression, acquire, fn)) continue;
    if (helper) return helper;
    if (continuation) return { call: c as ts.CallExpression, again: c as ts.CallExpression, waitsFor: methodOf(continuation)?.receiver };
    const timeout = timer ? c : scheduledBy(c, name, fn);
    return { call: timeout ?? c, again: direct ? c : undefined, delay: timeout?.arguments[1] };
  }
  return undefined;
}
