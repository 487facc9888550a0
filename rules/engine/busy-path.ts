// A test of the acquire's answer that does not stop the work: `if (!ok) { log('busy') }` followed by the
// critical section, or a branch that leaves only on some paths (`if (!ok) { if (await get(key)) return; }`
// goes on when the holder's key lapsed in between, without this process holding the lock).
import { ts } from './typescript';
import type { Acquire, LockModel } from './model';
import { guardNames, isGuard, testsFailure } from './paths';
import { ancestorWhere, callsNamed, contains, descendantsOfKind, enclosingStatement, isAssignment, isFunctionLike, unwrap, type Node } from './nodes';

/** Does the statement leave its block on every path (return, throw, break, continue, process.exit)? */
function alwaysLeaves(node: Node): boolean {
  if (ts.isReturnStatement(node) || ts.isThrowStatement(node) || ts.isBreakStatement(node) || ts.isContinueStatement(node)) return true;
  if (ts.isBlock(node)) return node.statements.some(alwaysLeaves);
  if (ts.isIfStatement(node)) return !!node.elseStatement && alwaysLeaves(node.thenStatement) && alwaysLeaves(node.elseStatement);
  if (ts.isTryStatement(node)) return (!!node.finallyBlock && alwaysLeaves(node.finallyBlock)) || (alwaysLeaves(node.tryBlock) && (!node.catchClause || alwaysLeaves(node.catchClause.block)));
  if (ts.isExpressionStatement(node)) return /^process\.exit\b/.test(node.expression.getText());
  return false;
}

/** Code that does something: a call, an await or a `new`. */
function doesWork(node: Node): boolean {
  return [ts.SyntaxKind.CallExpression, ts.SyntaxKind.AwaitExpression, ts.SyntaxKind.NewExpression].some((kind) => node.kind === kind || descendantsOfKind(node, kind).length > 0);
}

/**
 * The `if` on the acquire's failure, right after it, whose branch can fall through to work after it in
 * the same block; undefined when the branch tries again (another acquire, the answer assigned anew, the
 * function calling itself), or the acquire is in a loop (its next round may be the retry).
 */
export function goesOnWhenBusy(model: LockModel, acquire: Acquire): ts.IfStatement | undefined {
  const first = enclosingStatement(acquire.call);
  const block = first.parent;
  if (!block || !ts.isBlock(block) || ancestorWhere(block, (a) => isFunctionLike(a) || ts.isIterationStatement(a, false)) !== acquire.fn) return undefined;
  const statements = block.statements;
  const at = statements.indexOf(first as ts.Statement);
  const guard = ts.isIfStatement(first) && contains(first.expression, acquire.call) ? first : statements[at + 1];
  if (!guard || !ts.isIfStatement(guard) || guard.elseStatement) return undefined;
  const names = guardNames(acquire);
  if (!(guard === first || isGuard(guard, acquire)) || !testsFailure(guard.expression, names) || alwaysLeaves(guard.thenStatement)) return undefined;
  const branch = guard.thenStatement;
  const retries = model.acquires.some((a) => a !== acquire && contains(branch, a.call)) ||
    descendantsOfKind<ts.BinaryExpression>(branch, ts.SyntaxKind.BinaryExpression).some((b) => isAssignment(b) && ts.isIdentifier(b.left) && names.includes(b.left.text)) ||
    callsNamed(branch, (name) => name === functionName(acquire.fn)).length > 0;
  if (retries) return undefined;
  // The work after it, not under a test of the lock's names (`if (ok) { ... }`).
  const after = statements.slice(statements.indexOf(guard) + 1);
  const testsLock = (s: ts.Statement) => ts.isIfStatement(s) && (isGuard(s, acquire) || (ts.isIdentifier(unwrap(s.expression)) && names.includes((unwrap(s.expression) as ts.Identifier).text)));
  return after.some((s) => doesWork(s) && !testsLock(s)) ? guard : undefined;
}

function functionName(fn: Node): string | undefined {
  return (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name && ts.isIdentifier(fn.name) ? fn.name.text : undefined;
}
