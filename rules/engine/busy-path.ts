// A test of the acquire's answer that does not stop the work: `if (!ok) { log('busy') }` followed by the
// critical section, or a branch that leaves only while a read of the lock key finds a holder (`if (!ok) {
// if (await get(key)) return; }` goes on when the holder's key lapsed in between, without the lock).
import { ts } from './typescript';
import type { Acquire, LockModel } from './model';
import { looksLikeLockKey, sameKey, type KeyRef } from './keys';
import { guardNames, isGuard, testsFailure } from './paths';
import { alwaysThrows } from './written-text';
import { afterItsTry, ancestorWhere, callsNamed, contains, descendantsOfKind, enclosingStatement, identifiersNamed, isAssignment, isFunctionLike, unwrap, type Node } from './nodes';

/** Does the statement leave its block on every path (return, throw, break, continue, process.exit, a call that never returns)? */
function alwaysLeaves(node: Node): boolean {
  if (ts.isReturnStatement(node) || ts.isThrowStatement(node) || ts.isBreakStatement(node) || ts.isContinueStatement(node)) return true;
  if (ts.isBlock(node)) return node.statements.some(alwaysLeaves);
  if (ts.isIfStatement(node)) return !!node.elseStatement && alwaysLeaves(node.thenStatement) && alwaysLeaves(node.elseStatement);
  if (ts.isTryStatement(node)) return (!!node.finallyBlock && alwaysLeaves(node.finallyBlock)) || (alwaysLeaves(node.tryBlock) && (!node.catchClause || alwaysLeaves(node.catchClause.block)));
  if (ts.isExpressionStatement(node)) return /^process\.exit\b/.test(node.expression.getText()) || callsThrowingFunction(node.expression);
  return false;
}

/** A function named for throwing (`throwObj(...)`, `RequestErrors.throwHttp(...)`, `raiseConflict()`), in any file. */
const THROWER_NAME = /^(?:throw|raise)(?:[A-Z_$]|$)/;

/** `fail(...)`, `this.reject(...)`: a call to a function of the file that never returns (written-text.ts), or one named for throwing. */
function callsThrowingFunction(expression: Node): boolean {
  let call = unwrap(expression);
  if (ts.isAwaitExpression(call)) call = unwrap(call.expression);
  if (!ts.isCallExpression(call)) return false;
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee) && THROWER_NAME.test(callee.name.text)) return true;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword ? callee.name.text : undefined;
  return !!name && (THROWER_NAME.test(name) || alwaysThrows(call.getSourceFile(), name));
}

/** Code that does something: a call, an await or a `new`. */
function doesWork(node: Node): boolean {
  return [ts.SyntaxKind.CallExpression, ts.SyntaxKind.AwaitExpression, ts.SyntaxKind.NewExpression].some((kind) => node.kind === kind || descendantsOfKind(node, kind).length > 0);
}

interface BusyBranch {
  /** The `if` on the acquire's failure, and its branch: what runs when the lock is busy. */
  guard: ts.IfStatement;
  branch: ts.Statement;
  /** The branch's own returns and throws. */
  exits: Node[];
  /** It sets the acquire's answer to held (`true`, `1`, `'OK'`): a fallback that grants the lock. */
  grants: boolean;
  /** The statements after the `if` in its block, and whether one of them is work not under a test of the lock. */
  after: readonly ts.Statement[];
  workAfter: boolean;
}

/**
 * The `if` on the acquire's failure, right after it, whose branch does not always leave; undefined when
 * the branch tries again (another acquire, the answer assigned anew, the function calling itself), or
 * the acquire is in a loop (its next round may be the retry).
 */
function busyBranch(model: LockModel, acquire: Acquire): BusyBranch | undefined {
  const [first, guard] = acquireAndGuard(acquire);
  const block = first.parent;
  if (!block || !ts.isBlock(block) || ancestorWhere(block, (a) => isFunctionLike(a) || ts.isIterationStatement(a, false)) !== acquire.fn) return undefined;
  const statements = block.statements;
  if (!guard || !ts.isIfStatement(guard)) return undefined;
  const names = guardNames(acquire);
  if (!(guard === first || isGuard(guard, acquire)) || !testsFailure(guard.expression, names) || alwaysLeaves(guard.thenStatement)) return undefined;
  const branch = guard.thenStatement;
  const answers = descendantsOfKind<ts.BinaryExpression>(branch, ts.SyntaxKind.BinaryExpression).filter((b) => isAssignment(b) && ts.isIdentifier(b.left) && names.includes(b.left.text));
  // `acquired = true` after an in-process fallback grants the lock; an answer assigned from a call is a retry.
  const grants = answers.some((b) => /^(?:true|1|(['"`])OK\1)$/.test(unwrap(b.right).getText()));
  const retries = model.acquires.some((a) => a !== acquire && contains(branch, a.call)) || (!grants && answers.length > 0) ||
    callsNamed(branch, (name) => name === functionName(acquire.fn)).length > 0;
  if (retries) return undefined;
  const exits = [ts.SyntaxKind.ReturnStatement, ts.SyntaxKind.ThrowStatement].flatMap((kind) => descendantsOfKind(branch, kind)).filter((e) => ancestorWhere(e, isFunctionLike) === acquire.fn);
  // The work after it, not under a test of the lock's names (`if (ok) { ... }`).
  const after = statements.slice(statements.indexOf(guard) + 1);
  const testsLock = (s: ts.Statement) => ts.isIfStatement(s) && (isGuard(s, acquire) || (ts.isIdentifier(unwrap(s.expression)) && names.includes((unwrap(s.expression) as ts.Identifier).text)));
  return { guard, branch, exits, grants, after, workAfter: after.some((s) => doesWork(s) && !testsLock(s)) };
}

/**
 * The acquire's statement and the one after it, where its guard is. `try { const r = await set(...);
 * acquired = r === 'OK' } catch { ... }` then `if (!acquired)`: for an acquire whose try block goes on
 * only to read its answer (no call), the try statement and the one after the try.
 */
function acquireAndGuard(acquire: Acquire): [Node, ts.Statement | undefined] {
  const first = enclosingStatement(acquire.call);
  const block = first.parent;
  if (ts.isIfStatement(first) && contains(first.expression, acquire.call)) return [first, first];
  const statements = block && ts.isBlock(block) ? block.statements : undefined;
  const next = statements?.[statements.indexOf(first as ts.Statement) + 1];
  if (next && ts.isIfStatement(next)) return [first, next];
  const found = afterItsTry(first);
  return found ? [found.attempt, found.next] : [first, next];
}

/**
 * The `if` on the acquire's failure, right after it, whose branch can fall through to work after it in
 * the same block (and has no `else`).
 */
export function goesOnWhenBusy(model: LockModel, acquire: Acquire): ts.IfStatement | undefined {
  const busy = busyBranch(model, acquire);
  if (!busy || busy.guard.elseStatement) return undefined;
  // A branch that leaves on a test of its own (a cached value another process filled) falls back on
  // purpose; one that leaves only while a read of the lock key still finds a holder goes on when it lapsed.
  // One that sets the answer to `true` (an in-process fallback lock) grants the lock whatever it tests.
  if (busy.exits.length > 0 && !busy.grants && !readsLockKey(model, acquire, busy.branch)) return undefined;
  return busy.workAfter ? busy.guard : undefined;
}

/**
 * A stampede damper: when the lock is busy the branch (a wait and a re-read, typically) leaves only on a
 * test of its own (the value another process filled), and otherwise falls back on the same work, unlocked, after the `if` (with an
 * `else` holding the locked work, a call of it made again after). Such a lock excludes no one: a second
 * holder it lets in could have come in through the fallback anyway.
 */
export function fallsBackWhenBusy(model: LockModel, acquire: Acquire): boolean {
  const busy = busyBranch(model, acquire);
  if (!busy || busy.grants || busy.exits.length === 0 || readsLockKey(model, acquire, busy.branch)) return false;
  const locked = busy.guard.elseStatement;
  // `if (redis) { ...acquire...; if (busy) {...} } <fallback>`: the work after the blocks it is in.
  const after = [...busy.after];
  for (let s: Node = busy.guard.parent; s !== acquire.fn && !ts.isIterationStatement(s, false); s = s.parent) {
    if (ts.isBlock(s.parent)) after.push(...s.parent.statements.slice(s.parent.statements.indexOf(s as ts.Statement) + 1));
  }
  if (!locked) return busy.workAfter || after.some(doesWork);
  const callees = (nodes: readonly Node[]) => new Set(nodes.flatMap((n) => descendantsOfKind<ts.CallExpression>(n, ts.SyntaxKind.CallExpression)).map((c) => unwrap(c.expression).getText()));
  const fallback = callees(after);
  return [...callees([locked])].some((callee) => fallback.has(callee) && !model.commands.some((c) => unwrap(c.call.expression).getText() === callee));
}

const READS = new Set(['GET', 'EXISTS', 'TTL', 'PTTL']);

/**
 * A GET, EXISTS or TTL in the branch of the acquire's key: the same key, or (through a helper that builds
 * it, `acquireCronLock(job)` then `get(`${PREFIX}${job}`)`) a lock key spelled with the same names.
 */
function readsLockKey(model: LockModel, acquire: Acquire, branch: Node): boolean {
  const key = acquire.key;
  if (!key) return false;
  const names = [key.node, ...descendantsOfKind<ts.Identifier>(key.node, ts.SyntaxKind.Identifier)].filter(ts.isIdentifier).map((id) => id.text);
  return model.commands.some((c) => {
    if (!READS.has(c.name) || !c.keys[0] || !contains(branch, c.call)) return false;
    const read = model.keyOf(c.keys[0]);
    return sameKey(read, key) || spelled(read) === spelled(key) || (!!acquire.via && looksLikeLockKey(read) && identifiersNamed(c.keys[0], names).length > 0);
  });
}

/** The key as written, without a template's backticks: `${PREFIX}${job}` at the helper's call and in a GET. */
const spelled = (key: KeyRef) => key.text.replace(/^`|`$/g, '');

function functionName(fn: Node): string | undefined {
  return (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name && ts.isIdentifier(fn.name) ? fn.name.text : undefined;
}
