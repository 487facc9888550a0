// Keys a KEYS or SCAN listing returned. A DEL of those is a sweep (an admin "clear all locks", a test
// or startup cleanup): it deletes whatever the pattern matched, not one holder's lock, so there is no
// token it could compare and no acquire it pairs with.
import { ts } from './typescript';
import { declarationOf, descendantsWhere, enclosingFunction, literalString, methodOf, unwrap, type Node } from './nodes';

const LISTINGS = new Set(['keys', 'scan', 'scanstream', 'scaniterator']);
// Calls that hand on (part of) the list they are called on: `keys.filter(...)`, `keys.slice(0, 100)`.
const PASS_ON = new Set(['filter', 'slice', 'map', 'flat', 'concat']);

/** Is every key of this DEL one a KEYS/SCAN listing returned? */
export function deletesListedKeys(keys: readonly Node[]): boolean {
  return keys.length > 0 && keys.every((k) => isListed(k, 0));
}

function isListed(node: Node, depth: number): boolean {
  if (depth > 6) return false;
  let value = unwrap(node);
  while (ts.isSpreadElement(value) || ts.isAwaitExpression(value)) value = unwrap(value.expression);
  if (ts.isElementAccessExpression(value)) return isListed(value.expression, depth + 1);
  if (ts.isIdentifier(value)) return listedBinding(value, depth);
  if (!ts.isCallExpression(value)) return false;
  const method = methodOf(value);
  if (!method) return false;
  const name = method.name.toLowerCase();
  if (LISTINGS.has(name)) return true;
  return PASS_ON.has(name) && isListed(method.receiver, depth + 1);
}

/** The variable's value is a listing: assigned one, destructured from one, or looping over one. */
function listedBinding(id: ts.Identifier, depth: number): boolean {
  const decl = declarationOf(id) ?? destructured(id);
  if (!decl) return false;
  if (ts.isBindingElement(decl)) {
    const pattern = decl.parent;
    const holder = pattern.parent;
    return ts.isVariableDeclaration(holder) && !!holder.initializer && isListed(holder.initializer, depth + 1);
  }
  if (ts.isParameter(decl)) return forEachOverListing(decl, depth);
  const list = decl.parent;
  const loop = list.parent;
  if (ts.isForOfStatement(loop) && loop.initializer === list) return isListed(loop.expression, depth + 1);
  return !!decl.initializer && isListed(decl.initializer, depth + 1);
}

/** `const [cursor, keys] = await redis.scan(...)`: declarationOf reads plain names only. */
function destructured(id: ts.Identifier): ts.BindingElement | undefined {
  const scope = enclosingFunction(id);
  return descendantsWhere<ts.BindingElement>(scope, (n) => ts.isBindingElement(n) && ts.isIdentifier(n.name) && n.name.text === id.text && n.end <= id.pos)[0];
}

/**
 * `keys.forEach((key) => redis.del(key))`: the callback's parameter is one listed key; `stream.on('data',
 * (batch) => ...)` of a `scanStream`: each batch is a list of listed keys.
 */
function forEachOverListing(param: ts.ParameterDeclaration, depth: number): boolean {
  const fn = param.parent;
  const call = fn.parent;
  if (!ts.isCallExpression(call) || !call.arguments.includes(fn as ts.Expression)) return false;
  const method = methodOf(call);
  const onData = (method?.name === 'on' || method?.name === 'once') && literalString(call.arguments[0] ?? call) === 'data';
  return !!method && (method.name === 'forEach' || onData) && isListed(method.receiver, depth + 1);
}
