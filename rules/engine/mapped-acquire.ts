// `await Promise.all(keys.map((k) => acquire(k)))`, or the same over Redis nodes (a quorum): the acquire
// runs in a mapped callback, but each attempt belongs to the code around the Promise.all (its loop,
// its tests of the answers), as if the acquire were written there.
import { ts } from './typescript';
import type { Acquire } from './model';
import { ancestorWhere, isFunctionLike, methodOf, unwrap } from './nodes';

/** The `Promise.all` / `Promise.allSettled` whose mapped callback is the acquire's function. */
export function promiseAllOf(acquire: Acquire): ts.CallExpression | undefined {
  const callback = acquire.fn;
  const map = callback.parent;
  if (!map || !ts.isCallExpression(map) || methodOf(map)?.name !== 'map' || !map.arguments.includes(callback as ts.Expression)) return undefined;
  const all = ancestorWhere<ts.CallExpression>(map, (a) => ts.isCallExpression(a) || isFunctionLike(a) || ts.isStatement(a));
  if (!all || !ts.isCallExpression(all)) return undefined;
  const callee = unwrap(all.expression).getText();
  return callee === 'Promise.all' || callee === 'Promise.allSettled' ? all : undefined;
}
