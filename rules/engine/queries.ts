// Questions rules ask of the model, answered once here so every rule agrees on them.
import { Node, SyntaxKind } from 'ts-morph';
import type { Acquire, LockModel } from './model';
import { sameKey, looksLikeLockKey, type KeyRef } from './keys';
import { descendantsOfKind, methodOf, unwrap } from './nodes';

export const REDIS_ACQUIRES = new Set(['set-nx', 'setnx', 'lua']);

/** A Redis-level NX acquire (not a library lock). */
export function isRedisAcquire(a: Acquire): boolean {
  return REDIS_ACQUIRES.has(a.kind);
}

/**
 * Is this NX acquire used as a lock (as opposed to a dedup marker or a set-once flag)?
 * Yes when its key is named like a lock, or the file releases or extends that key.
 */
export function isLockAcquire(model: LockModel, a: Acquire): boolean {
  if (!a.key) return false;
  const key = a.key;
  return (
    looksLikeLockKey(key) ||
    model.releases.some((r) => r.key && sameKey(r.key, key)) ||
    model.extends.some((e) => e.key && sameKey(e.key, key))
  );
}

/** The receiver text of a method call (`this.redis` in `this.redis.set(...)`). */
export function receiverText(call: Node): string | undefined {
  return Node.isCallExpression(call) ? methodOf(call)?.receiver.getText() : undefined;
}

/** Is the expression's text a name (identifier or this.x / a.b chain) rather than a computation? */
export function isPlainReference(node: Node): boolean {
  const n = unwrap(node);
  if (Node.isIdentifier(n)) return true;
  if (Node.isPropertyAccessExpression(n)) return isPlainReference(n.getExpression()) || n.getExpression().getKind() === SyntaxKind.ThisKeyword;
  return false;
}

/**
 * Can `name` (an identifier) be referenced at `site`? True when it is declared in a function that
 * encloses the site, or at module level. `this.x` references are accepted when both are in one class.
 */
export function visibleAt(reference: Node, site: Node): boolean {
  const n = unwrap(reference);
  if (Node.isPropertyAccessExpression(n) && n.getExpression().getKind() === SyntaxKind.ThisKeyword) {
    const a = reference.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
    const b = site.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
    return !!a && a === b;
  }
  if (!Node.isIdentifier(n)) return false;
  const name = n.getText();
  const sourceFile = site.getSourceFile();
  for (const decl of descendantsOfKind(sourceFile, SyntaxKind.VariableDeclaration)) {
    if (decl.getName() !== name) continue;
    const scope = decl.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a)) ?? sourceFile;
    const holder = Node.isBlock(scope) ? scope : sourceFile;
    if (site.getStart() >= holder.getStart() && site.getEnd() <= holder.getEnd() && decl.getStart() < site.getStart()) return true;
  }
  for (const param of descendantsOfKind(sourceFile, SyntaxKind.Parameter)) {
    if (param.getName() !== name) continue;
    const fn = param.getParent();
    if (site.getStart() >= fn.getStart() && site.getEnd() <= fn.getEnd()) return true;
  }
  return false;
}

/** The token of an acquire of `key` in this file, when it can be written at `site` (for fixes). */
export function visibleToken(model: LockModel, key: KeyRef | undefined, site: Node): Node | undefined {
  if (!key) return undefined;
  const acquire = model.acquires.find((a) => isRedisAcquire(a) && a.key && sameKey(a.key, key) && a.token && isPlainReference(a.token));
  return acquire?.token && visibleAt(acquire.token, site) ? unwrap(acquire.token) : undefined;
}
