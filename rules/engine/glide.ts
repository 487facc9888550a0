// Valkey GLIDE (@valkey/valkey-glide) shapes the generic recogniser does not read, checked against the
// package's type definitions (BaseClient.d.ts, Commands.d.ts, native.d.ts of 2.x):
// - set(key, value, { conditionalSet: "onlyIfDoesNotExist" | "onlyIfExists" | "onlyIfEqual",
//   comparisonValue, expiry: { type: TimeUnit.Milliseconds, count } | "keepExisting" });
// - invokeScript(script, { keys, args }) where script is `new Script(lua)`.
// - new Batch(isAtomic) / new ClusterBatch(isAtomic) (and the older Transaction, ClusterTransaction):
//   commands queued on them run at client.exec(batch), as in MULTI (atomic) or a pipeline.
// customCommand([...]) reads like node-redis sendCommand([...]) and del([keys]) like a DEL (commands.ts).
import { ts } from './typescript';
import type { ConstLookup } from './keys';
import { literalString, propertyValue, unwrap } from './nodes';
import type { SetOptions, TtlUnit } from './set-options';

// TimeUnit's members and the values they stand for.
const TIME_UNITS: Record<string, TtlUnit> = {
  Seconds: 'EX', Milliseconds: 'PX', UnixSeconds: 'EXAT', UnixMilliseconds: 'PXAT', EX: 'EX', PX: 'PX', EXAT: 'EXAT', PXAT: 'PXAT',
};

/** A GLIDE SetOptions object: one with `conditionalSet` or `expiry`. */
export function isGlideSetOptions(obj: ts.ObjectLiteralExpression): boolean {
  return !!(propertyValue(obj, 'conditionalSet') ?? propertyValue(obj, 'expiry'));
}

function ttlUnit(node: ts.Node): TtlUnit | undefined {
  const n = unwrap(node);
  if (ts.isPropertyAccessExpression(n)) return TIME_UNITS[n.name.text];
  const s = literalString(n);
  return s === undefined ? undefined : TIME_UNITS[s.toUpperCase()];
}

export function readGlideSetOptions(obj: ts.ObjectLiteralExpression): SetOptions {
  const options: SetOptions = { nx: false, xx: false, dynamic: obj.properties.some((p) => ts.isSpreadAssignment(p)), node: obj };
  const condition = propertyValue(obj, 'conditionalSet');
  if (condition) {
    const c = literalString(condition);
    if (c === 'onlyIfDoesNotExist') options.nx = true;
    else if (c === 'onlyIfExists') options.xx = true;
    else if (c === 'onlyIfEqual') options.ifeq = propertyValue(obj, 'comparisonValue') ?? condition;
    else options.dynamic = true;
  }
  const expiry = propertyValue(obj, 'expiry');
  if (expiry) {
    const e = unwrap(expiry);
    if (literalString(e) === 'keepExisting') options.ttl = { unit: 'KEEPTTL' };
    else if (ts.isObjectLiteralExpression(e)) {
      const unit = ttlUnit(propertyValue(e, 'type') ?? e);
      if (unit) options.ttl = { unit, value: propertyValue(e, 'count') };
      else options.dynamic = true;
    } else options.dynamic = true;
  }
  return options;
}

/** The Lua of `new Script(lua)`, written inline or bound to a const; undefined when not found. */
export function glideScriptLua(node: ts.Node, lookup: ConstLookup, luaText: (n: ts.Node) => string | undefined): string | undefined {
  let n = unwrap(node);
  if (ts.isIdentifier(n)) n = unwrap(lookup(n) ?? n);
  if (!ts.isNewExpression(n)) return undefined;
  const callee = unwrap(n.expression);
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  const lua = name === 'Script' ? n.arguments?.[0] : undefined;
  return lua ? luaText(lua) : undefined;
}

/** `{ keys: [...], args: [...] }` of invokeScript. */
export function invokeScriptParts(options: ts.Node | undefined): { keys: readonly ts.Node[]; args: readonly ts.Node[] } {
  const opts = options ? unwrap(options) : undefined;
  if (!opts || !ts.isObjectLiteralExpression(opts)) return { keys: [], args: [] };
  const list = (name: string): readonly ts.Node[] => {
    const value = propertyValue(opts, name);
    const init = value ? unwrap(value) : undefined;
    return init && ts.isArrayLiteralExpression(init) ? init.elements : [];
  };
  return { keys: list('keys'), args: list('args') };
}

/** What a `new Batch(true)` and its kin queue commands into; undefined for any other `new`. */
export function glideBatchKind(node: ts.NewExpression): 'multi' | 'pipeline' | undefined {
  const callee = unwrap(node.expression);
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  if (name === 'Transaction' || name === 'ClusterTransaction') return 'multi';
  if (name !== 'Batch' && name !== 'ClusterBatch') return undefined;
  const atomic = node.arguments?.[0] ? unwrap(node.arguments[0]).kind : undefined;
  return atomic === ts.SyntaxKind.FalseKeyword ? 'pipeline' : 'multi';
}
