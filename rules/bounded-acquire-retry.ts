// A retry loop (or recursion) around an acquire with no attempt limit or deadline spins forever under
// contention, or behind a lock that never expires; redlock `retryCount: -1` does the same inside redlock.
import { Node, SyntaxKind } from 'ts-morph';
import type { Acquire, LockModel } from './engine/model';
import { callsNamed, descendants, descendantsOfKind, identifiersNamed, isFunctionLike, literalNumber, spanOf, unwrap } from './engine/nodes';
import { lockNames } from './engine/paths';
import type { Rule } from './rule';
import type { Fix, Span } from './types';
import { describeKey } from './engine/keys';

const LIMIT_WORDS = /attempt|tries|retr(y|ies)|deadline|timeout|until|expires?At|max|limit|remaining|left|budget|aborted|signal|stopp?/i;
const CLOCK = /Date\.now\(\)|performance\.now\(\)|process\.hrtime|new Date\(\)/;
const RELATIONAL = new Set([SyntaxKind.LessThanToken, SyntaxKind.LessThanEqualsToken, SyntaxKind.GreaterThanToken, SyntaxKind.GreaterThanEqualsToken]);

type Loop = Node;

function isLoop(node: Node): boolean {
  return Node.isWhileStatement(node) || Node.isDoStatement(node) || Node.isForStatement(node);
}

/** Does this text bound the loop: a relational comparison, a clock, or a limit-like name? */
function bounds(node: Node | undefined): boolean {
  if (!node) return false;
  const text = node.getText();
  if (CLOCK.test(text) || LIMIT_WORDS.test(text)) return true;
  return descendantsOfKind(node, SyntaxKind.BinaryExpression).some((b) => RELATIONAL.has(b.getOperatorToken().getKind())) ||
    (Node.isBinaryExpression(node) && RELATIONAL.has(node.getOperatorToken().getKind()));
}

/** An `if (<bound>) break/throw/return` inside the loop body (not in nested loops or functions). */
function boundedExit(loop: Loop): boolean {
  return descendantsOfKind(loop, SyntaxKind.IfStatement).some((s) => {
    if (s.getFirstAncestor((a) => isLoop(a) || isFunctionLike(a)) !== loop) return false;
    const then = s.getThenStatement();
    const exits = [then, ...descendants(then)].some((d) => Node.isBreakStatement(d) || Node.isThrowStatement(d) || Node.isReturnStatement(d));
    return exits && bounds(s.getExpression());
  });
}

function loopCondition(loop: Loop): Node | undefined {
  if (Node.isWhileStatement(loop) || Node.isDoStatement(loop)) return loop.getExpression();
  if (Node.isForStatement(loop)) return loop.getCondition();
  return undefined;
}

/** A loop that stops when the lock is taken: its condition tests the result, or it breaks/returns after the acquire. */
function retriesAcquire(loop: Loop, acquire: Acquire): boolean {
  const names = lockNames(acquire);
  const condition = loopCondition(loop);
  if (condition && identifiersNamed(condition, names).length > 0) return true;
  return descendants(loop).some(
    (d) => (Node.isBreakStatement(d) || Node.isReturnStatement(d)) && d.getStart() > acquire.call.getEnd() &&
      d.getFirstAncestor((a) => isLoop(a) || isFunctionLike(a)) === loop,
  );
}

function unboundedLoop(acquire: Acquire): Loop | undefined {
  const loop = acquire.call.getFirstAncestor((a) => isLoop(a) || isFunctionLike(a));
  if (!loop || !isLoop(loop) || !retriesAcquire(loop, acquire)) return undefined;
  if (Node.isForStatement(loop) && (bounds(loop.getCondition()) || loop.getIncrementor())) return undefined;
  if (bounds(loopCondition(loop)) || boundedExit(loop)) return undefined;
  return loop;
}

/** `function f() { ... acquire ... f() }` with no attempt parameter or deadline check. */
function unboundedRecursion(acquire: Acquire): Node | undefined {
  const fn = acquire.fn;
  const name = Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn) ? fn.getName() : undefined;
  if (!name) return undefined;
  const self = callsNamed(fn, (n) => n === name).find((c) => {
    const callee = unwrap(c.getExpression()).getText();
    return (callee === name || callee === `this.${name}`) && c.getStart() > acquire.call.getEnd();
  });
  if (!self) return undefined;
  const params = (fn as import('ts-morph').FunctionDeclaration).getParameters().map((p) => p.getName()).join(' ');
  if (LIMIT_WORDS.test(params) || self.getArguments().some((a) => bounds(a) || /[-+]\s*1|\+\+|--/.test(a.getText()))) return undefined;
  if (descendantsOfKind(fn, SyntaxKind.IfStatement).some((s) => bounds(s.getExpression()))) return undefined;
  return self;
}

function headSpan(loop: Loop): Span {
  const condition = loopCondition(loop);
  return { start: loop.getStart(), end: condition && !Node.isDoStatement(loop) ? condition.getEnd() + 1 : loop.getStart() + 5 };
}

function infiniteSettings(model: LockModel): Node[] {
  const objects = [...model.redlockSettings, ...model.libraryObjects.filter((o) => o.library === 'redlock').map((o) => o.options)];
  const found: Node[] = [];
  for (const obj of objects) {
    const settings = obj ? unwrap(obj) : undefined;
    if (!settings || !Node.isObjectLiteralExpression(settings)) continue;
    const retry = settings.getProperty('retryCount');
    if (retry && Node.isPropertyAssignment(retry) && unwrap(retry.getInitializerOrThrow()).getText().replace(/\s/g, '') === '-1') found.push(retry);
  }
  return found;
}

export const boundedAcquireRetry: Rule = {
  id: 'bounded-acquire-retry',
  defaultSeverity: 'warning',
  summary: 'A loop or recursion that retries an acquire with no attempt limit or deadline; redlock retryCount: -1.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock') continue;
      const key = describeKey(acquire.key);
      const loop = unboundedLoop(acquire);
      const recursion = loop ? undefined : unboundedRecursion(acquire);
      if (!loop && !recursion) continue;
      report({
        span: loop ? headSpan(loop) : spanOf(recursion as Node),
        message: `This ${loop ? 'loop' : 'recursion'} retries the acquire of ${key} with no attempt limit or deadline. Under contention, or behind a lock that never expires, the caller waits forever and piles up requests. Retry a bounded number of times (or until a deadline) with a random delay, then fail.`,
        related: [{ span: spanOf(acquire.call), message: 'the acquire it retries' }],
      });
    }
    for (const retry of infiniteSettings(model)) {
      const value = Node.isPropertyAssignment(retry) ? retry.getInitializerOrThrow() : retry;
      const fix: Fix = { title: 'Retry at most 10 times (retryCount: 10)', edits: [{ ...spanOf(value), newText: '10' }] };
      report({
        span: spanOf(retry),
        message: 'retryCount: -1 makes redlock retry the acquire forever. Under contention, or while a lock is stuck, callers never fail and requests pile up. Use a finite retryCount (with retryDelay and retryJitter) and handle the ResourceLockedError.',
        fixes: [fix],
      });
    }
    for (const object of model.libraryObjects) {
      const timeout = object.library === 'redis-semaphore' ? object.options?.getProperty('acquireTimeout') : undefined;
      if (!timeout || !Node.isPropertyAssignment(timeout)) continue;
      const value = unwrap(timeout.getInitializerOrThrow()).getText();
      const attempts = object.options?.getProperty('acquireAttemptsLimit');
      const limited = attempts && Node.isPropertyAssignment(attempts) && literalNumber(attempts.getInitializerOrThrow()) !== undefined;
      if (!/^(Infinity|Number\.POSITIVE_INFINITY)$/.test(value) || limited) continue;
      report({
        span: spanOf(timeout),
        message: `acquireTimeout: ${value} with no acquireAttemptsLimit makes ${object.className}.acquire() wait forever. Under contention, or while a lock is stuck, callers never fail. Use a finite acquireTimeout (or acquireAttemptsLimit).`,
      });
    }
  },
};
