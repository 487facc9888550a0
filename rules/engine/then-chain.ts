// A release written in a `.then` callback of the work: `work().then(() => redis.del(key))`. When the
// work rejects, no `.then` runs, and unless a `.catch`, a `.finally` or an onRejected handler further
// along the chain releases, nothing does: the lock stays held until its TTL.
import { ts } from './typescript';
import type { Acquire, LockModel, Release } from './model';
import { ancestorWhere, contains, descendantsWhere, isFunctionLike, methodOf, ownReturns, unwrap, type Node } from './nodes';
import { releasesSomething } from './failure-paths';
import { isPlainWait } from './never-throws';

export interface ThenGap {
  release: Release;
  /** The work whose rejection skips the release. */
  work: ts.Expression;
}

/** `p.then(f)`, `p.then(f, g)`, `p.catch(g)`, `p.finally(h)`: the method, when `node` is such a call. */
function chainMethod(node: Node): string | undefined {
  if (!ts.isCallExpression(node)) return undefined;
  const name = methodOf(node)?.name;
  return name === 'then' || name === 'catch' || name === 'finally' ? name : undefined;
}

/** Does a later link of the chain that `call` starts release on rejection (`.catch`, `.finally`, an onRejected)? */
function releasedOnRejection(model: LockModel, call: ts.CallExpression): boolean {
  for (let link: Node = call; ; ) {
    const method = chainMethod(link);
    if (!method) return false;
    const handlers = method === 'then' ? (link as ts.CallExpression).arguments.slice(1) : (link as ts.CallExpression).arguments;
    if (handlers.some((h) => releasesSomething(model, h))) return true;
    const access = link.parent;
    if (!ts.isPropertyAccessExpression(access) || access.expression !== link || !ts.isCallExpression(access.parent)) return false;
    link = access.parent;
  }
}

/** A release in a catch clause or finally block, or in a `.catch`/`.finally` callback: one for the rejected path. */
function onRejectedPath(release: Release): boolean {
  const handler = ancestorWhere(release.call, (a) => ts.isCatchClause(a) || (ts.isBlock(a) && ts.isTryStatement(a.parent) && a.parent.finallyBlock === a) ||
    (isFunctionLike(a) && (chainMethod(a.parent) === 'catch' || chainMethod(a.parent) === 'finally')));
  return !!handler;
}

/** Does the work chain handle a rejection before its `.then` (a `.catch` or an onRejected link)? */
function handlesRejection(work: Node): boolean {
  for (let link: Node = work; chainMethod(link); link = methodOf(link as ts.CallExpression)!.receiver) {
    const method = chainMethod(link);
    if (method === 'catch' || (method === 'then' && (link as ts.CallExpression).arguments.length > 1)) return true;
  }
  return false;
}

// An already settled promise is no work: `return Promise.reject(busy)` on the not-acquired path.
const SETTLED = /^Promise\.(?:resolve|reject)$/;

/**
 * In `acquire.then((ok) => { ...; return work(); })`, the work a link after the acquire hands on to
 * the next `.then`: a call its fulfilled handler returns (or, async, awaits). When that work rejects,
 * the rejection skips every later `.then`.
 */
function workHandedOn(model: LockModel, chain: ts.Expression, acquire: Acquire): ts.Expression | undefined {
  for (let link: Node = chain; chainMethod(link) && contains(link, acquire.call); link = methodOf(link as ts.CallExpression)!.receiver) {
    const first = chainMethod(link) === 'then' ? (link as ts.CallExpression).arguments[0] : undefined;
    const handler = first && unwrap(first);
    if (!handler || !isFunctionLike(handler) || !handler.body || contains(handler, acquire.call)) continue;
    const body = handler.body;
    const handed = ts.isBlock(body) ? ownReturns(handler).map((r) => r.expression).filter((e): e is ts.Expression => !!e) : [body];
    const awaited = descendantsWhere<ts.AwaitExpression>(body, (d) => ts.isAwaitExpression(d) && ancestorWhere(d, isFunctionLike) === handler).map((a) => a.expression);
    const work = [...handed, ...awaited].map((e) => unwrap(e)).find((e): e is ts.CallExpression => ts.isCallExpression(e) && !SETTLED.test(e.expression.getText()) && !releasesSomething(model, e));
    if (work) return work;
  }
  return undefined;
}

/** The first release of `acquire` (of those given, all of this lock) that only a fulfilled `.then` of other work reaches. */
export function thenChainGap(model: LockModel, acquire: Acquire, releases: readonly Release[]): ThenGap | undefined {
  if (releases.some(onRejectedPath)) return undefined;
  for (const release of releases) {
    if (release.call.pos < acquire.call.end) continue;
    for (let fn = ancestorWhere(release.call, isFunctionLike); fn && fn !== acquire.fn && contains(acquire.fn, fn); fn = ancestorWhere(fn, isFunctionLike)) {
      const call = fn.parent;
      if (!ts.isCallExpression(call) || call.arguments[0] !== fn || chainMethod(call) !== 'then') continue;
      const receiver = methodOf(call)?.receiver;
      if (!receiver) continue;
      // A chain that starts at the acquire holds the lock from its `.then(ok => ...)` on: only work
      // that one of its links hands on can reject past this `.then`.
      const work = contains(receiver, acquire.call) ? workHandedOn(model, receiver, acquire) : receiver;
      // `Promise.delay(ms).then(() => lock.unlock())`: a wait cannot reject.
      if (!work || isPlainWait(work) || handlesRejection(receiver) || handlesRejection(work) || releasedOnRejection(model, call)) continue;
      return { release, work };
    }
  }
  return undefined;
}
