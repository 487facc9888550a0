// Questions rules ask of the model, answered once here so every rule agrees on them.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import type { Acquire, LockModel } from './model';
import { isLockFunction, looksLikeLockKey, type KeyRef } from './keys';
import { ancestorWhere, contains, declarationOf, enclosingFunction, isFunctionLike, methodOf, unwrap, type Node } from './nodes';

export const REDIS_ACQUIRES = new Set(['set-nx', 'setnx', 'lua']);

/** A Redis-level NX acquire (not a library lock). */
export function isRedisAcquire(a: Acquire): boolean {
  return REDIS_ACQUIRES.has(a.kind);
}

/**
 * Is this NX acquire used as a lock (as opposed to a dedup marker or a set-once flag)?
 * Yes when its key is named like a lock, the file releases or extends that key, or it is made in
 * lock code (a function, class or file named like one: an `acquire(key)` helper of a lock module).
 */
export function isLockAcquire(model: LockModel, a: Acquire): boolean {
  if (!a.key || a.marker) return false;
  const key = a.key;
  return looksLikeLockKey(key) || model.releasesOn(key).length > 0 || model.extendsOn(key).length > 0 || (isFunctionLike(a.fn) && isLockFunction(a.fn));
}

/**
 * The client a fix can write a new call on: the receiver of the command's own call, but none for a
 * call through a project wrapper (`redisService.delete(key)`), whose class may have no `set` or `eval`.
 */
export function clientReceiver(op: { call: Node; command?: RedisCommand }): string | undefined {
  return op.command?.wrapped ? undefined : receiverText(op.call);
}

/** The receiver text of a method call (`this.redis` in `this.redis.set(...)`). */
export function receiverText(call: Node): string | undefined {
  return ts.isCallExpression(call) ? methodOf(call)?.receiver.getText() : undefined;
}

/** Is the expression's text a name (identifier or this.x / a.b chain) rather than a computation? */
export function isPlainReference(node: Node): boolean {
  const n = unwrap(node);
  if (ts.isIdentifier(n)) return true;
  if (ts.isPropertyAccessExpression(n)) return isPlainReference(n.expression) || n.expression.kind === ts.SyntaxKind.ThisKeyword;
  return false;
}

/**
 * Can `reference` (an identifier, or `this.x`) be written at `site`? An identifier can when the scope
 * that declares it encloses the site; `this.x` when both are in one class.
 */
export function visibleAt(reference: Node, site: Node): boolean {
  const n = unwrap(reference);
  if (ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const a = ancestorWhere(reference, ts.isClassDeclaration);
    return !!a && a === ancestorWhere(site, ts.isClassDeclaration);
  }
  if (!ts.isIdentifier(n)) return false;
  const decl = declarationOf(n);
  const scope = decl && (ts.isParameter(decl) ? decl.parent : ancestorWhere(decl, (a) => ts.isBlock(a) || ts.isSourceFile(a) || isFunctionLike(a)));
  return !!decl && !!scope && contains(scope, site) && decl.getStart() < site.getStart();
}

/** The token of an acquire of `key` in this file, when it can be written at `site` (for fixes). */
export function visibleToken(model: LockModel, key: KeyRef | undefined, site: Node): Node | undefined {
  if (!key) return undefined;
  // The acquire in the same function first: that is the token this release belongs to. Only a few
  // others are tried, so a module with hundreds of functions on one key stays linear.
  const fn = enclosingFunction(site);
  // Read in place: copying the key's acquires (hundreds) per release was most of the work.
  const acquires = model.acquiresOn(key);
  let tried = 0;
  let acquire: Acquire | undefined;
  for (const sameFunction of [true, false]) {
    for (const a of acquires) {
      if (tried === 8 || acquire) break;
      if ((a.fn === fn) !== sameFunction || !isRedisAcquire(a) || !a.token) continue;
      tried++;
      if (isPlainReference(a.token)) acquire = a;
    }
  }
  return acquire?.token && visibleAt(acquire.token, site) ? unwrap(acquire.token) : undefined;
}
