// Paths out of a function between an acquire and its release: the awaited work that can throw and the
// returns that skip the release. Structured (try/finally aware), not a full control-flow graph.
import { Node, SyntaxKind } from 'ts-morph';
import { sameKey } from './keys';
import type { Acquire, LockModel, Release } from './model';
import { contains, enclosingFunction, enclosingStatement, identifiersNamed, isFunctionLike, methodOf } from './nodes';

/** The releases in the acquire's own function that release this acquire's lock. */
export function releasesOf(model: LockModel, acquire: Acquire): Release[] {
  return model.releasesIn(acquire.fn).filter((r) => {
    if (r.call.getStart() < acquire.call.getEnd()) return false;
    if (r.fn !== acquire.fn && !isFinallyCallback(r)) return false;
    if (acquire.owner && r.handle === acquire.owner) return true;
    return !!acquire.key && !!r.key && sameKey(acquire.key, r.key) && !acquire.owner;
  });
}

/** `promise.finally(() => lock.release())` runs on every path too. */
function isFinallyCallback(release: Release): boolean {
  const call = release.fn.getParent();
  return !!call && Node.isCallExpression(call) && methodOf(call)?.name === 'finally';
}

/** The names that carry this lock: the result/handle variable and a token variable. */
export function lockNames(acquire: Acquire): string[] {
  const names: string[] = [];
  if (acquire.owner) names.push(acquire.owner);
  if (acquire.result.kind === 'assigned') names.push(acquire.result.name);
  if (acquire.token && Node.isIdentifier(acquire.token)) names.push(acquire.token.getText());
  return names;
}

/** The handle or token leaves the function (returned, stored, handed to another call): not ours to judge. */
export function escapes(acquire: Acquire, releaseCalls: Node[]): boolean {
  const names = new Set(lockNames(acquire));
  if (names.size === 0) return false;
  for (const id of identifiersNamed(acquire.fn, names)) {
    if (!names.has(id.getText()) || id.getStart() < acquire.call.getEnd()) continue;
    const parent = id.getParent();
    if (!parent) continue;
    if (Node.isReturnStatement(parent) || Node.isShorthandPropertyAssignment(parent) || Node.isArrayLiteralExpression(parent)) return true;
    if (Node.isPropertyAssignment(parent) && parent.getInitializer() === id) return true;
    if (Node.isBinaryExpression(parent) && parent.getOperatorToken().getText() === '=' && parent.getRight() === id) return true;
    if (Node.isCallExpression(parent) && parent.getArguments().includes(id)) {
      const isRelease = releaseCalls.includes(parent);
      const isRedisCall = /^(set|get|del|unlink|eval|evalsha|pexpire|expire|call|sendCommand)$/i.test(methodOf(parent)?.name ?? '');
      if (!isRelease && !isRedisCall) return true;
    }
  }
  return false;
}

/** Is `release` inside the finally block of a try that runs after (or around) the acquire? */
export function inFinally(release: Release, acquire: Acquire): boolean {
  if (isFinallyCallback(release)) return true;
  for (const ancestor of release.call.getAncestors()) {
    if (ancestor === acquire.fn) return false;
    const parent = ancestor.getParent();
    if (parent && Node.isTryStatement(parent) && parent.getFinallyBlock() === ancestor) {
      return parent.getEnd() > acquire.call.getStart();
    }
  }
  return false;
}

/** A release in a catch clause plus one after the try: every path releases. */
function catchAndAfter(releases: Release[]): boolean {
  return releases.some((r) => {
    const clause = r.call.getFirstAncestorByKind(SyntaxKind.CatchClause);
    const tryStatement = clause?.getParent();
    return !!tryStatement && releases.some((other) => other !== r && other.call.getStart() >= tryStatement.getEnd());
  });
}

/** The `if (!ok) return/throw` right after an acquire: the not-acquired path, which has nothing to release. */
export function isGuard(statement: Node, acquire: Acquire): boolean {
  if (!Node.isIfStatement(statement)) return false;
  const names = lockNames(acquire);
  const condition = statement.getExpression();
  return identifiersNamed(condition, names).length > 0 ||
    condition.getText().includes(acquire.call.getText());
}

export interface Exit {
  node: Node;
  kind: 'exception' | 'return';
}

/** The first await/throw/return between the acquire and the release that skips the release. */
export function firstExit(acquire: Acquire, release: Release): Exit | undefined {
  const from = acquire.call.getEnd();
  const to = release.call.getStart();
  let found: Exit | undefined;
  const visit = (node: Node): void => {
    if (found || node.getEnd() <= from || node.getStart() >= to) return;
    if (node !== acquire.fn && isFunctionLike(node)) return;
    // The not-acquired branch of a guard (`if (!ok) return;`) has nothing to release.
    if (Node.isIfStatement(node) && isGuard(node, acquire) && !contains(node.getThenStatement(), release.call)) {
      const otherwise = node.getElseStatement();
      if (otherwise) visit(otherwise);
      return;
    }
    if (node.getStart() >= from) {
      // The separate EXPIRE of a non-atomic acquire is atomic-acquire's finding, not the work.
      const ttlSetter = acquire.laterExpire && contains(node, acquire.laterExpire.call);
      if (Node.isAwaitExpression(node) && !ttlSetter && !release.call.getAncestors().includes(node)) {
        found = { node, kind: 'exception' };
        return;
      }
      if (Node.isThrowStatement(node)) {
        found = { node, kind: 'exception' };
        return;
      }
      if (Node.isReturnStatement(node) && !releasedBefore(node, release)) {
        found = { node, kind: 'return' };
        return;
      }
    }
    node.forEachChild(visit);
  };
  acquire.fn.forEachChild(visit);
  return found;
}

/** A `return` preceded in its own block by a release of the same lock (`await release(); return;`). */
function releasedBefore(ret: Node, release: Release): boolean {
  const block = ret.getParent();
  if (!block || !Node.isBlock(block)) return false;
  const target = release.handle ?? (release.key ? release.key.text : undefined);
  return block.getStatements().some((s) => s.getStart() < ret.getStart() && target !== undefined && s.getText().includes(target) && /release|unlock|del|eval/i.test(s.getText()));
}

export function releaseCoverage(model: LockModel, acquire: Acquire) {
  const releases = releasesOf(model, acquire);
  if (releases.length === 0) return undefined;
  if (escapes(acquire, releases.map((r) => r.call))) return undefined;
  if (releases.some((r) => inFinally(r, acquire)) || catchAndAfter(releases)) return undefined;
  const release = releases.find((r) => r.fn === acquire.fn && enclosingFunction(r.call) === acquire.fn);
  if (!release) return undefined;
  const exit = firstExit(acquire, release);
  return exit ? { release, exit, statement: enclosingStatement(release.call) } : undefined;
}
