// `const ok = await redis.set(k, v, 'NX', 'EX', 30); if (ok) throw new Error('busy'); await work();`:
// the test of an NX acquire the wrong way round. The acquired path leaves at once (and keeps the lock
// until its TTL), while the work after the if runs exactly when another process holds the lock.
import { ts } from './typescript';
import type { Acquire } from './model';
import { ancestorWhere, contains, descendantsOfKind, isFunctionLike, isLoop, literalNumber, literalString, unwrap, type Node } from './nodes';
import { isLockFunction } from './keys';

/** Is `e` the acquire's reply: the variable it was stored in, or the awaited call itself? */
function isReply(e: Node, acquire: Acquire): boolean {
  const n = unwrap(e);
  if (acquire.result.kind === 'assigned') return ts.isIdentifier(n) && n.text === acquire.result.name;
  return ts.isAwaitExpression(n) && unwrap(n.expression) === acquire.call;
}

const FAILED_KINDS = new Set([ts.SyntaxKind.NullKeyword, ts.SyntaxKind.FalseKeyword]);

/** A value the reply has only on failure (null, false, undefined, 0). */
function isFailedValue(e: Node): boolean {
  const n = unwrap(e);
  return FAILED_KINDS.has(n.kind) || (ts.isIdentifier(n) && n.text === 'undefined') || literalNumber(n) === 0;
}

/** A value the reply has only on success ('OK', 1, true). */
function isAcquiredValue(e: Node): boolean {
  const n = unwrap(e);
  return literalString(n) === 'OK' || literalNumber(n) === 1 || n.kind === ts.SyntaxKind.TrueKeyword;
}

/** `ok`, `!!ok`, `ok === 'OK'`, `ok !== null`: true exactly when the lock was acquired. */
function testsAcquired(condition: Node, acquire: Acquire): boolean {
  const c = unwrap(condition);
  if (isReply(c, acquire)) return true;
  if (ts.isPrefixUnaryExpression(c) && c.operator === ts.SyntaxKind.ExclamationToken) {
    const inner = unwrap(c.operand);
    return ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.ExclamationToken && isReply(inner.operand, acquire);
  }
  if (!ts.isBinaryExpression(c)) return false;
  const other = isReply(c.left, acquire) ? c.right : isReply(c.right, acquire) ? c.left : undefined;
  if (!other) return false;
  const op = c.operatorToken.kind;
  const equal = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
  const notEqual = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
  return (equal && isAcquiredValue(other)) || (notEqual && isFailedValue(other));
}

/** A branch that only leaves, doing nothing with the lock: `throw`, or `return` with nothing or a failure value. */
function onlyLeaves(branch: Node): boolean {
  const statements = ts.isBlock(branch) ? [...branch.statements] : [branch];
  const last = statements[statements.length - 1];
  if (!last || statements.some((s) => descendantsOfKind(s, ts.SyntaxKind.AwaitExpression).length > 0)) return false;
  if (ts.isThrowStatement(last)) return true;
  return ts.isReturnStatement(last) && (!last.expression || isFailedValue(last.expression));
}

const WAIT = /sleep|delay|wait|timeout|backoff/i;

/** The awaited work after the if in its block (a pause before a retry is not work). */
function workAfter(guard: ts.IfStatement): boolean {
  const block = guard.parent;
  if (!ts.isBlock(block) && !ts.isSourceFile(block)) return false;
  return block.statements.slice(block.statements.indexOf(guard) + 1).some((s) =>
    descendantsOfKind<ts.AwaitExpression>(s, ts.SyntaxKind.AwaitExpression).some((a) => !WAIT.test(a.expression.getText().split('(')[0])));
}

/** `SET ... NX GET` answers with the old value: truthy when another process holds the lock. */
export function repliesOldValue(acquire: Acquire): boolean {
  const options = acquire.command?.set?.node;
  if (options && ts.isObjectLiteralExpression(options)) return options.properties.some((p) => p.name?.getText() === 'GET');
  return !!acquire.command?.args.some((a) => literalString(a)?.toUpperCase() === 'GET');
}

/** The if right after the acquire (or around it) that tests success and then only leaves. */
export function invertedGuard(acquire: Acquire): ts.IfStatement | undefined {
  if (repliesOldValue(acquire)) return undefined;
  const use = acquire.result;
  if (!(use.kind === 'assigned' && use.awaited) && !(use.kind === 'tested' && use.awaited)) return undefined;
  // A lock helper returns when it has the lock (`if (ok) return;`); the work is its caller's.
  if (isFunctionLike(acquire.fn) && isLockFunction(acquire.fn)) return undefined;
  let guard: Node | undefined;
  if (use.kind === 'tested') guard = ancestorWhere(acquire.call, (n) => ts.isIfStatement(n) || n === acquire.fn);
  else {
    const block = acquire.statement.parent;
    const statements = ts.isBlock(block) || ts.isSourceFile(block) ? block.statements : undefined;
    guard = statements?.[statements.indexOf(acquire.statement as ts.Statement) + 1];
  }
  if (!guard || !ts.isIfStatement(guard) || guard.elseStatement || !testsAcquired(guard.expression, acquire)) return undefined;
  if (!onlyLeaves(guard.thenStatement)) return undefined;
  // In a retry loop, leaving on success is how the loop ends: the work is after it, or the caller's.
  const loop = ancestorWhere(guard, (n) => isLoop(n) || ts.isForOfStatement(n) || ts.isForInStatement(n) || n === acquire.fn);
  if (loop && loop !== acquire.fn && contains(acquire.fn, loop)) return undefined;
  return workAfter(guard) ? guard : undefined;
}

/** `ok === null`, `ok == undefined`, `!ok`: true exactly when the acquire failed. */
function testsFailed(condition: Node, acquire: Acquire): boolean {
  const c = unwrap(condition);
  if (ts.isPrefixUnaryExpression(c) && c.operator === ts.SyntaxKind.ExclamationToken) return isReply(c.operand, acquire);
  if (!ts.isBinaryExpression(c)) return false;
  const other = isReply(c.left, acquire) ? c.right : isReply(c.right, acquire) ? c.left : undefined;
  const op = c.operatorToken.kind;
  return !!other && (op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken) && isFailedValue(other);
}

function disjuncts(e: Node): Node[] {
  const n = unwrap(e);
  return ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.BarBarToken ? [...disjuncts(n.left), ...disjuncts(n.right)] : [n];
}

/**
 * `if (ok === 'OK' || ok === null) return token`: a test of the NX reply that passes on success and on
 * failure alike, so the process goes on as the holder when another one has the lock.
 */
export function eitherWayGuard(acquire: Acquire): ts.BinaryExpression | undefined {
  if (repliesOldValue(acquire) || acquire.result.kind !== 'assigned' || !acquire.result.awaited) return undefined;
  const fn = acquire.fn;
  for (const or of descendantsOfKind<ts.BinaryExpression>(fn, ts.SyntaxKind.BinaryExpression)) {
    if (or.operatorToken.kind !== ts.SyntaxKind.BarBarToken || or.pos < acquire.call.end) continue;
    // The outermost `||` only: its parts are read together.
    if (ts.isBinaryExpression(or.parent) && or.parent.operatorToken.kind === ts.SyntaxKind.BarBarToken) continue;
    if (ancestorWhere(or, isFunctionLike) !== fn) continue;
    const parts = disjuncts(or);
    if (parts.some((p) => testsAcquired(p, acquire)) && parts.some((p) => testsFailed(p, acquire))) return or;
  }
  return undefined;
}

/**
 * `if (result === true)` after `set(key, v, { NX: true, PX })`: SET answers 'OK' or null in every
 * client (ioredis, node-redis, Upstash, GLIDE), never `true` or 1 (SETNX's answers). The test never
 * passes, so the process never goes on as the holder, while the lock it did take stays until its TTL.
 */
export function neverAcquiredTest(acquire: Acquire): { test: ts.BinaryExpression; value: 'true' | '1' } | undefined {
  if (acquire.kind !== 'set-nx' || acquire.command?.name !== 'SET' || acquire.command.wrapped || repliesOldValue(acquire)) return undefined;
  const use = acquire.result;
  if (!((use.kind === 'assigned' || use.kind === 'tested') && use.awaited)) return undefined;
  const fn = acquire.fn;
  for (const test of descendantsOfKind<ts.BinaryExpression>(fn, ts.SyntaxKind.BinaryExpression)) {
    if (test.end <= acquire.call.pos || ancestorWhere(test, isFunctionLike) !== fn) continue;
    const op = test.operatorToken.kind;
    if (op !== ts.SyntaxKind.EqualsEqualsEqualsToken && op !== ts.SyntaxKind.EqualsEqualsToken) continue;
    const other = isReply(test.left, acquire) ? test.right : isReply(test.right, acquire) ? test.left : undefined;
    const value = other && unwrap(other);
    if (!value || orElseTestsReply(test, acquire)) continue;
    if (value.kind === ts.SyntaxKind.TrueKeyword) return { test, value: 'true' };
    if (literalNumber(value) === 1) return { test, value: '1' };
  }
  return undefined;
}

/**
 * `result === 1 || result === 'OK'`: the reply compared again in another operand of an `||` (a SETNX
 * branch answering 1 beside the SET NX one answering 'OK'), so the test can pass.
 */
function orElseTestsReply(test: ts.BinaryExpression, acquire: Acquire): boolean {
  let top: Node = test;
  while (ts.isParenthesizedExpression(top.parent) || (ts.isBinaryExpression(top.parent) && top.parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)) top = top.parent;
  return top !== test && descendantsOfKind<ts.BinaryExpression>(top, ts.SyntaxKind.BinaryExpression).some((b) =>
    b !== test && b.operatorToken.kind !== ts.SyntaxKind.BarBarToken && (isReply(b.left, acquire) || isReply(b.right, acquire)));
}
