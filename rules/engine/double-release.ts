// `try { work; await release(key) } finally { await release(key) }`: on the path that released in the
// try, the finally releases again; so does a catch when awaited work after the try's release throws
// (`try { await work(); await release(key); await notify(); } catch { await release(key); }`), or the work
// of an inner try whose finally released throws on into it. Between the two the lock is free, another process can take it, and a
// second release that does not compare the token deletes that holder's lock. A finally release behind a
// guard the try turned off beside its release (`held = undefined`, `released = true`) is not a second one,
// nor is one sent in the same tick as the first (nothing awaited between them).
import { ts } from './typescript';
import { sameKey } from './keys';
import type { Release } from './model';
import { ancestorWhere, contains, descendantsOfKind, enclosingStatement, isAssignment, isFunctionLike, literalTruth, normalizeText, unwrap, type Node } from './nodes';

/** The try whose finally block (or catch clause) holds `release` (in the release's own function), with that block. */
function handlerOf(release: Release): { tryStatement: ts.TryStatement; block: ts.Block; isCatch: boolean } | undefined {
  for (let node: Node = release.call; node.parent && !isFunctionLike(node); node = node.parent) {
    const parent = node.parent;
    if (ts.isTryStatement(parent) && parent.finallyBlock === node) return { tryStatement: parent, block: parent.finallyBlock, isCatch: false };
    if (ts.isCatchClause(parent) && parent.block === node) return { tryStatement: parent.parent, block: parent.block, isCatch: true };
  }
  return undefined;
}

/**
 * `try { try { await work() } finally { await release(key) } } catch { await release(key) }`: the first
 * release is in the finally of an inner try whose awaited work, when it throws, goes on into the catch.
 */
function finallyThrowsOn(first: Release, tryStatement: ts.TryStatement): boolean {
  const fn = ancestorWhere(first.call, isFunctionLike);
  for (let node: Node = first.call; node !== tryStatement.tryBlock && node.parent; node = node.parent) {
    const inner = node.parent;
    if (ts.isTryStatement(inner) && inner.finallyBlock === node) {
      return descendantsOfKind<ts.AwaitExpression>(inner.tryBlock, ts.SyntaxKind.AwaitExpression).some((a) => ancestorWhere(a, isFunctionLike) === fn);
    }
  }
  return false;
}

/**
 * Awaited work after `first` on the try block's own main line, in its function: what can throw into the
 * catch once the lock is released. A release in a branch of its own (a reset that then `continue`s) is
 * not on the path the catch was written for.
 */
function awaitsAfter(first: Release, tryStatement: ts.TryStatement): boolean {
  const fn = ancestorWhere(first.call, isFunctionLike);
  const statement = enclosingStatement(first.call);
  if (statement.parent !== tryStatement.tryBlock) return false;
  return descendantsOfKind<ts.AwaitExpression>(tryStatement.tryBlock, ts.SyntaxKind.AwaitExpression)
    .some((a) => a.pos >= statement.end && ancestorWhere(a, isFunctionLike) === fn);
}

function sameLock(a: Release, b: Release): boolean {
  if (a.handle || b.handle) return a.handle === b.handle;
  return !!a.key && !!b.key && sameKey(a.key, b.key);
}

/** `held` or `!released` as a guard: the variable read and the value the guard passes on. */
function guardOf(condition: ts.Expression): { text: string; passes: boolean } | undefined {
  const cond = unwrap(condition);
  const negated = ts.isPrefixUnaryExpression(cond) && cond.operator === ts.SyntaxKind.ExclamationToken;
  const operand = unwrap(negated ? (cond as ts.PrefixUnaryExpression).operand : cond);
  if (!ts.isIdentifier(operand) && !ts.isPropertyAccessExpression(operand)) return undefined;
  return { text: normalizeText(operand), passes: !negated };
}

/**
 * `if (held) release()` / `if (!released) release()` in the finally, where the try, next to its own
 * release, writes the guard so that it fails (`held = undefined`, `released = true`): the finally
 * releases only on the paths where the try did not.
 */
function skippedAfter(first: Release, release: Release, handler: ts.Block): boolean {
  // The statements beside the try's release (a block, a case clause): the guard is written on its path.
  const siblings = (enclosingStatement(first.call).parent as ts.Block | undefined)?.statements ?? [];
  for (let node: Node = release.call; node !== handler && node.parent; node = node.parent) {
    const parent = node.parent;
    const guard = ts.isIfStatement(parent) && parent.thenStatement === node ? guardOf(parent.expression) : undefined;
    if (guard && siblings.some((s) => ts.isExpressionStatement(s) && clears(unwrap(s.expression), guard))) return true;
  }
  return false;
}

function clears(expression: Node, guard: { text: string; passes: boolean }): boolean {
  return isAssignment(expression) && normalizeText(expression.left) === guard.text && literalTruth(expression.right) === !guard.passes;
}

/**
 * `lock.unlock(); return res.send(...)` then `lock.unlock()` in the finally, nothing awaited between:
 * both commands leave in the same tick, one after the other on one connection, and Redis runs a
 * client's pipelined commands together, so no other holder can come between them.
 */
function sameTick(first: Release, tryStatement: ts.TryStatement): boolean {
  if (ts.isAwaitExpression(first.call.parent) || ts.isYieldExpression(first.call.parent)) return false;
  const statement = enclosingStatement(first.call);
  const siblings: readonly ts.Statement[] = (statement.parent as ts.Block | undefined)?.statements ?? [];
  const exit = siblings.slice(siblings.indexOf(statement as ts.Statement)).find((s) => ts.isReturnStatement(s) || ts.isThrowStatement(s));
  const until = exit && contains(tryStatement.tryBlock, exit) ? exit.end : tryStatement.tryBlock.end;
  return !/\b(?:await|yield)\b/.test(first.call.getSourceFile().text.slice(first.call.end, until));
}

/**
 * The release in the try block that already freed the lock before `release` runs again: in the finally,
 * or in the catch when awaited work after the first release can throw into it.
 */
export function releasedBefore(release: Release, releases: readonly Release[]): Release | undefined {
  const handler = handlerOf(release);
  if (!handler) return undefined;
  const { tryStatement, block, isCatch } = handler;
  const fn = ancestorWhere(release.call, isFunctionLike);
  return releases.find((r) =>
    r !== release && contains(tryStatement.tryBlock, r.call) && ancestorWhere(r.call, isFunctionLike) === fn && sameLock(r, release) &&
    !skippedAfter(r, release, block) && (isCatch ? awaitsAfter(r, tryStatement) || finallyThrowsOn(r, tryStatement) : !sameTick(r, tryStatement)));
}
