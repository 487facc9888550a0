// A retry loop (or recursion) around an acquire with no attempt limit or deadline spins forever under
// contention, or behind a lock that never expires; redlock `retryCount: -1` does the same inside redlock.
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import {
  ancestorWhere, contains, declarationOf, descendantsOfKind, descendantsWhere, identifiersNamed, isFunctionLike, isLoop, literalNumber, nameOf, propertyAssignment, spanOf, unwrap,
  type Node,
} from './engine/nodes';
import { lockNames, testsFailure } from './engine/paths';
import { selfRetry } from './engine/self-retry';
import { keyFreshEachTime } from './engine/key-loops';
import type { Rule } from './rule';
import type { Fix, Span } from './types';
import { describeKey } from './engine/keys';

const LIMIT_WORDS = /attempt|tries|retr(y|ies)|deadline|timeout|until|expires?At|max|limit|remaining|left|budget|aborted|signal|cancel|stopp?/i;
const CLOCK = /Date\.now\(\)|performance\.now\(\)|process\.hrtime|new Date\(\)/;
const RELATIONAL = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken]);

type Loop = ts.WhileStatement | ts.DoStatement | ts.ForStatement;

const isRelational = (n: Node) => ts.isBinaryExpression(n) && RELATIONAL.has(n.operatorToken.kind);
const isExit = (n: Node) => ts.isBreakStatement(n) || ts.isThrowStatement(n) || ts.isReturnStatement(n);
const loopOrFunction = (a: Node) => isLoop(a) || isFunctionLike(a);

/** How far a bound is followed through variables and same-file functions. */
const MAX_DEPTH = 3;

/** The function a call in this file reaches: `this.exceeded(key)` in its class, or a function of the file. */
function calledFunction(call: ts.CallExpression): Node | undefined {
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = ancestorWhere<ts.ClassLikeDeclaration>(call, ts.isClassLike);
    return cls?.members.find((m) => ts.isMethodDeclaration(m) && nameOf(m) === callee.name.text && !!m.body);
  }
  if (!ts.isIdentifier(callee)) return undefined;
  const init = declarationOf(callee)?.initializer;
  if (init && isFunctionLike(unwrap(init))) return unwrap(init);
  return call.getSourceFile().statements.find((st) => ts.isFunctionDeclaration(st) && st.name?.text === callee.text && !!st.body);
}

/**
 * What a condition's names and calls stand for: the initializer of a variable it reads
 * (`const exhausted = (await redis.incr(k)) > max`), the returned values of a function it calls.
 */
function resolvedParts(node: Node, acquire: Acquire): Node[] {
  // The acquire's own answer says whether the lock was taken, not how many tries are left.
  const ids = ts.isIdentifier(node) ? [node] : descendantsWhere<ts.Identifier>(node, ts.isIdentifier);
  const values = ids.flatMap((id) => {
    const decl = declarationOf(id);
    return decl && ts.isVariableDeclaration(decl) && decl.initializer && !contains(decl.initializer, acquire.call) ? [decl.initializer] : [];
  });
  const calls = ts.isCallExpression(node) ? [node] : descendantsWhere<ts.CallExpression>(node, ts.isCallExpression);
  const returned = calls.flatMap((call) => {
    const fn = call === acquire.call || contains(call, acquire.call) ? undefined : calledFunction(call);
    if (!fn) return [];
    return descendantsOfKind<ts.ReturnStatement>(fn, ts.SyntaxKind.ReturnStatement)
      .filter((r) => ancestorWhere(r, isFunctionLike) === fn && !!r.expression)
      .map((r) => r.expression as Node);
  });
  return [...values, ...returned];
}

/**
 * Does this text bound the loop: a relational comparison, a clock, or a limit-like name? Read without
 * the acquire inside it (`if (await acquire(key, timeout)) break`): a lock TTL named `timeout` is no limit.
 */
function bounds(node: Node | undefined, acquire?: Acquire): boolean {
  if (!node) return false;
  const inside = acquire && contains(node, acquire.call) ? acquire.call : undefined;
  const text = inside ? node.getText().replace(inside.getText(), ' ') : node.getText();
  if (CLOCK.test(text) || LIMIT_WORDS.test(text)) return true;
  return isRelational(node) || descendantsWhere(node, (d) => isRelational(d) && !(inside && contains(inside, d))).length > 0;
}

function comparesOrTimes(node: Node): boolean {
  return CLOCK.test(node.getText()) || isRelational(node) || descendantsWhere(node, isRelational).length > 0;
}

/**
 * A loop's condition or exit test that bounds it, written there or in what it reads: an attempt
 * counter kept in Redis, compared in a variable or a helper of the file (which must compare or read a clock).
 */
function boundsLoop(node: Node | undefined, acquire: Acquire): boolean {
  if (bounds(node, acquire)) return true;
  let parts = node ? resolvedParts(node, acquire) : [];
  for (let depth = 0; depth < MAX_DEPTH && parts.length > 0; depth++) {
    if (parts.some(comparesOrTimes)) return true;
    parts = parts.flatMap((part) => resolvedParts(part, acquire));
  }
  return false;
}

/** An `if (<bound>) break/throw/return` inside the loop body (not in nested loops or functions). */
function boundedExit(loop: Loop, acquire: Acquire): boolean {
  return descendantsOfKind<ts.IfStatement>(loop, ts.SyntaxKind.IfStatement).some((s) => {
    if (ancestorWhere(s, loopOrFunction) !== loop) return false;
    const then = s.thenStatement;
    const exits = isExit(then) || descendantsWhere(then, isExit).length > 0;
    return exits && boundsLoop(s.expression, acquire);
  });
}

function loopCondition(loop: Loop): Node | undefined {
  return ts.isForStatement(loop) ? loop.condition : loop.expression;
}

/** A loop that stops when the lock is taken: its condition tests the result, or it breaks/returns after the acquire. */
function retriesAcquire(loop: Loop, acquire: Acquire): boolean {
  const names = lockNames(acquire);
  const condition = loopCondition(loop);
  if (condition && identifiersNamed(condition, names).length > 0) return true;
  // `while (!(await takeLock(id)))`: the acquire itself is the condition, looping while it fails.
  if (condition && contains(condition, acquire.call) && testsFailure(condition)) return true;
  return descendantsWhere(loop, (d) => ts.isBreakStatement(d) || ts.isReturnStatement(d)).some(
    (d) => d.getStart() > acquire.call.end && ancestorWhere(d, loopOrFunction) === loop,
  );
}

function unboundedLoop(acquire: Acquire): Loop | undefined {
  const loop = ancestorWhere(acquire.call, loopOrFunction);
  if (!loop || !isLoop(loop) || !retriesAcquire(loop, acquire) || keyFreshEachTime(loop, acquire)) return undefined;
  if (ts.isForStatement(loop) && (boundsLoop(loop.condition, acquire) || loop.incrementor)) return undefined;
  if (boundsLoop(loopCondition(loop), acquire) || boundedExit(loop, acquire)) return undefined;
  return loop;
}

/** `function f() { ... acquire ... f() }` (or its callback's `setTimeout(f, d)`) with no attempt parameter or deadline check. */
function unboundedRecursion(acquire: Acquire): Node | undefined {
  const fn = acquire.fn;
  const retry = selfRetry(acquire);
  if (!retry || !isFunctionLike(fn)) return undefined;
  // A parameter handed back unchanged in its own place (`retryDelay`, a lock `timeout`) counts no tries:
  // only a comparison of it can bound the recursion, and those are read below.
  const passed = retry.again?.arguments ?? [];
  const unchanged = (p: ts.ParameterDeclaration, i: number) => passed[i] !== undefined && unwrap(passed[i]).getText() === p.name.getText();
  const params = fn.parameters.filter((p, i) => !unchanged(p, i)).map((p) => p.name.getText()).join(' ');
  const handedOn = passed.filter((_, i) => !(fn.parameters[i] && unchanged(fn.parameters[i], i)));
  if (LIMIT_WORDS.test(params) || handedOn.some((a) => bounds(a) || /[-+]\s*1|\+\+|--/.test(a.getText()))) return undefined;
  if (descendantsOfKind<ts.IfStatement>(fn, ts.SyntaxKind.IfStatement).some((s) => bounds(s.expression))) return undefined;
  return retry.call;
}

function headSpan(loop: Loop): Span {
  const condition = loopCondition(loop);
  return { start: loop.getStart(), end: condition && !ts.isDoStatement(loop) ? condition.end + 1 : loop.getStart() + 5 };
}

/** `name: value` of an object literal, also through `...OPTIONS` spreads of const object literals. */
function spreadProperty(model: LockModel, obj: ts.ObjectLiteralExpression, name: string, depth = 0): ts.PropertyAssignment | undefined {
  const own = propertyAssignment(obj, name);
  if (own || depth > 3) return own;
  for (const p of [...obj.properties].reverse()) {
    if (!ts.isSpreadAssignment(p)) continue;
    const spread = unwrap(p.expression);
    const init = ts.isIdentifier(spread) ? model.lookup(spread) : undefined;
    const found = init && ts.isObjectLiteralExpression(unwrap(init)) ? spreadProperty(model, unwrap(init) as ts.ObjectLiteralExpression, name, depth + 1) : undefined;
    if (found) return found;
  }
  return undefined;
}

function infiniteSettings(model: LockModel): ts.PropertyAssignment[] {
  const objects = [...model.redlockSettings, ...model.libraryObjects.filter((o) => o.library === 'redlock').map((o) => o.options)];
  const found: ts.PropertyAssignment[] = [];
  for (const obj of objects) {
    const settings = obj ? unwrap(obj) : undefined;
    const literal = settings && ts.isIdentifier(settings) ? model.lookup(settings) : settings;
    if (!literal || !ts.isObjectLiteralExpression(unwrap(literal))) continue;
    const retry = spreadProperty(model, unwrap(literal) as ts.ObjectLiteralExpression, 'retryCount');
    if (retry && unwrap(retry.initializer).getText().replace(/\s/g, '') === '-1') found.push(retry);
  }
  return found;
}

export const boundedAcquireRetry: Rule = {
  id: 'bounded-acquire-retry',
  defaultSeverity: 'warning',
  summary: 'A loop or recursion that retries an acquire with no attempt limit or deadline; redlock retryCount: -1.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock' || acquire.kind === 'routine') continue;
      const loop = unboundedLoop(acquire);
      const recursion = loop ? undefined : unboundedRecursion(acquire);
      if (!loop && !recursion) continue;
      const key = describeKey(acquire.key);
      report({
        span: loop ? headSpan(loop) : spanOf(recursion as Node),
        message: `This ${loop ? 'loop' : 'recursion'} retries the acquire of ${key} with no attempt limit or deadline. Under contention, or behind a lock that never expires, the caller waits forever and piles up requests. Retry a bounded number of times (or until a deadline) with a random delay, then fail.`,
        related: [{ span: spanOf(acquire.call), message: 'the acquire it retries' }],
      });
    }
    for (const retry of infiniteSettings(model)) {
      const fix = (): Fix => ({ title: 'Retry at most 10 times (retryCount: 10)', edits: [{ ...spanOf(retry.initializer), newText: '10' }] });
      report({
        span: spanOf(retry),
        message: 'retryCount: -1 makes redlock retry the acquire forever. Under contention, or while a lock is stuck, callers never fail and requests pile up. Use a finite retryCount (with retryDelay and retryJitter) and handle the ResourceLockedError.',
        fix,
      });
    }
    for (const object of model.libraryObjects) {
      const timeout = object.library === 'redis-semaphore' && object.options ? propertyAssignment(object.options, 'acquireTimeout') : undefined;
      if (!timeout || !object.options) continue;
      const value = unwrap(timeout.initializer).getText();
      const attempts = propertyAssignment(object.options, 'acquireAttemptsLimit');
      const limited = attempts && literalNumber(attempts.initializer) !== undefined;
      if (!/^(Infinity|Number\.POSITIVE_INFINITY)$/.test(value) || limited) continue;
      report({
        span: spanOf(timeout),
        message: `acquireTimeout: ${value} with no acquireAttemptsLimit makes ${object.className}.acquire() wait forever. Under contention, or while a lock is stuck, callers never fail. Use a finite acquireTimeout (or acquireAttemptsLimit).`,
      });
    }
  },
};
