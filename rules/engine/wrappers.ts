// Thin wrappers of a Redis command: a function or method that only forwards its parameters to one
// client call (`delete(key) { return this.client.del(key) }`, `setnx(k, v) { return redis.setnx(k, v) }`).
// Such a function is not lock code of its own: the caller's arguments decide what the command does,
// so its command is read at each call site instead (call-meanings.ts), whatever the wrapper is named.
import { ts } from './typescript';
import { ancestorWhere, declarationOf, descendantsOfKind, functionNameOf, isFunctionLike, parameterIndex, literalString, methodOf, unwrap, type Node } from './nodes';
import { LOCK_NAME } from './lock-name';
import type { ForwardedArg, WrapperSummary } from '../project/types';

/** Names that say the function is itself lock code (releaseLock, acquire, renew): never a thin wrapper. */
const LOCK_FUNCTION = /acquire|release|extend|renew|refresh|heartbeat|watchdog|unlock/i;

/**
 * The one client call a function forwards to: its expression body, or the only call in its block to a
 * Redis command method whose value it returns or awaits (logging around it is allowed).
 */
function forwardedCall(fn: ts.FunctionLikeDeclaration): ts.CallExpression | undefined {
  const body = fn.body;
  if (!body) return undefined;
  if (!ts.isBlock(body)) {
    let n = unwrap(body);
    if (ts.isAwaitExpression(n)) n = unwrap(n.expression);
    return ts.isCallExpression(n) ? n : promisified(n);
  }
  const only = body.statements.length === 1 ? body.statements[0] : undefined;
  if (only && ts.isReturnStatement(only) && only.expression) {
    const wrapped = promisified(unwrap(only.expression));
    if (wrapped) return wrapped;
  }
  // The file index lists the body's calls: asked of every function of a file, a walk of each body cost
  // more than building the file's lock model. Calls inside a nested function are not the function's own.
  const found = descendantsOfKind<ts.CallExpression>(body, ts.SyntaxKind.CallExpression).filter(
    (call) => FORWARDABLE.test(methodOf(call)?.name ?? '') && ancestorWhere(call, (a) => a === body || isFunctionLike(a)) === body,
  );
  if (found.length !== 1) return undefined;
  const call = found[0];
  let carrier: ts.Node = call;
  while (ts.isAwaitExpression(carrier.parent) || ts.isParenthesizedExpression(carrier.parent) || ts.isAsExpression(carrier.parent)) carrier = carrier.parent;
  // `return (await client.set(...)) === 'OK'`: the reply, turned into a boolean, is still handed back.
  if (isReplyTest(carrier.parent)) carrier = carrier.parent;
  const statement = carrier.parent;
  const used = ts.isReturnStatement(statement) || ts.isExpressionStatement(statement) || (ts.isVariableDeclaration(statement) && returnsVariable(body, statement));
  return used && statement.parent && (statement.parent === body || ts.isVariableDeclarationList(statement.parent)) ? call : undefined;
}

/**
 * A callback-style client call promisified by hand (node_redis v3):
 * `new Promise((resolve, reject) => client.setnx(k, v, (err, reply) => ...))`. The callback is not an
 * argument of the command (the recogniser drops it), so the call forwards like any other.
 */
function promisified(n: ts.Node): ts.CallExpression | undefined {
  if (!ts.isNewExpression(n) || unwrap(n.expression).getText() !== 'Promise') return undefined;
  const executor = n.arguments?.[0] ? unwrap(n.arguments[0]) : undefined;
  if (!executor || !(ts.isArrowFunction(executor) || ts.isFunctionExpression(executor))) return undefined;
  const body = executor.body;
  const inner = ts.isBlock(body) ? (body.statements.length === 1 && ts.isExpressionStatement(body.statements[0]) ? body.statements[0].expression : undefined) : body;
  const call = inner ? unwrap(inner) : undefined;
  return call && ts.isCallExpression(call) && FORWARDABLE.test(methodOf(call)?.name ?? '') && call.arguments.some(isFunctionLike) ? call : undefined;
}

/** `reply === 'OK'`, `reply !== null`: the reply read as a boolean. */
function isReplyTest(node: ts.Node): boolean {
  if (!ts.isBinaryExpression(node)) return false;
  const op = node.operatorToken.kind;
  const equality = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
  const other = unwrap(node.right);
  return equality && (literalString(other) === 'OK' || other.kind === ts.SyntaxKind.NullKeyword || ts.isNumericLiteral(other));
}

/** `const result = await client.del(key); return result;` (or `return result === 'OK'`). */
function returnsVariable(body: ts.Block, decl: ts.VariableDeclaration): boolean {
  const name = ts.isIdentifier(decl.name) ? decl.name.text : undefined;
  const isName = (n: ts.Node) => unwrap(n).getText() === name;
  const handsBack = (e: ts.Expression) => isName(e) || (isReplyTest(unwrap(e)) && isName((unwrap(e) as ts.BinaryExpression).left));
  return !!name && decl.parent.parent.parent === body && body.statements.some((s) => ts.isReturnStatement(s) && !!s.expression && handsBack(s.expression));
}

/**
 * A key built around one parameter of `fn`: the parameter itself, `` `cache:${key}` `` (the first
 * parameter in a template), `'lock:' + key`, or `this.key(key)`; `head` and `tail` are written around it.
 * `indexOf` says which names stand for a parameter (elementParameterIndex: an element of one).
 */
export function keyAroundParameter(fn: ts.FunctionLikeDeclaration, n: Node, indexOf = parameterIndex): { param: number; head: string; tail: string } | undefined {
  const direct = indexOf(fn, n);
  if (direct !== undefined) return { param: direct, head: '', tail: '' };
  if (ts.isTemplateExpression(n)) {
    const spans = n.templateSpans;
    const at = spans.findIndex((s) => indexOf(fn, s.expression) !== undefined);
    if (at < 0) return undefined;
    const text = (s: ts.TemplateSpan) => `\${${s.expression.getText()}}${s.literal.text}`;
    const head = n.head.text + spans.slice(0, at).map(text).join('');
    const tail = spans[at].literal.text + spans.slice(at + 1).map(text).join('');
    return { param: indexOf(fn, spans[at].expression) as number, head, tail };
  }
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const right = indexOf(fn, n.right);
    if (right !== undefined) return { param: right, head: literalString(n.left) ?? n.left.getText(), tail: '' };
  }
  if (ts.isCallExpression(n) && n.arguments.length === 1) {
    const inner = indexOf(fn, n.arguments[0]);
    if (inner !== undefined) return { param: inner, head: `${n.expression.getText()}(`, tail: ')' };
    // `keys.blockingKey({ doc_id })`: a key schema's function of one named parameter.
    const only = unwrap(n.arguments[0]);
    const property = ts.isObjectLiteralExpression(only) && only.properties.length === 1 ? only.properties[0] : undefined;
    const value = property && (ts.isShorthandPropertyAssignment(property) ? property.name : ts.isPropertyAssignment(property) ? property.initializer : undefined);
    const named = value && indexOf(fn, value);
    if (property?.name && named !== undefined) return { param: named, head: `${n.expression.getText()}({ ${property.name.getText()}: `, tail: ' })' };
  }
  return undefined;
}

function forwardedArg(fn: ts.FunctionLikeDeclaration, node: Node, depth = 0): ForwardedArg | undefined {
  const n = unwrap(node);
  if (ts.isIdentifier(n) && depth === 0) {
    // `const k = this.key(key); return this.client.del(k)`
    const decl = declarationOf(n);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && ancestorWhere(decl, isFunctionLike) === fn) return forwardedArg(fn, decl.initializer, 1);
  }
  if (ts.isSpreadElement(n)) {
    const index = parameterIndex(fn, n.expression);
    return index !== undefined && fn.parameters[index].dotDotDotToken ? { rest: index } : undefined;
  }
  // A key built from two parameters is not one argument forwarded.
  if (ts.isTemplateExpression(n) && n.templateSpans.filter((s) => parameterIndex(fn, s.expression) !== undefined).length > 1) return undefined;
  return keyAroundParameter(fn, n);
}

/**
 * A parameter written as a string without changing which value it is: `String(value)`,
 * `JSON.stringify(value)`, `value.toString()`, `` `${value}` ``, or a choice between those
 * (`typeof value === 'string' ? value : JSON.stringify(value)`). A wrapper's SET value so written
 * still stores what the caller passed.
 */
function serializedParameter(fn: ts.FunctionLikeDeclaration, node: Node): number | undefined {
  const n = unwrap(node);
  const direct = parameterIndex(fn, n);
  if (direct !== undefined) return direct;
  if (ts.isConditionalExpression(n)) {
    const [a, b] = [serializedParameter(fn, n.whenTrue), serializedParameter(fn, n.whenFalse)];
    return a !== undefined && a === b ? a : undefined;
  }
  if (ts.isTemplateExpression(n)) {
    const only = n.head.text === '' && n.templateSpans.length === 1 && n.templateSpans[0].literal.text === '';
    return only ? parameterIndex(fn, n.templateSpans[0].expression) : undefined;
  }
  if (!ts.isCallExpression(n)) return undefined;
  const callee = n.expression.getText();
  if ((callee === 'String' || callee === 'JSON.stringify') && n.arguments.length === 1) return parameterIndex(fn, n.arguments[0]);
  const method = methodOf(n);
  return method?.name === 'toString' && n.arguments.length === 0 ? parameterIndex(fn, method.receiver) : undefined;
}

const SET_WORDS = /^(?:NX|XX|EX|PX|EXAT|PXAT|KEEPTTL|GET)$/i;
const TTL_WORDS = /^(?:EX|PX|EXAT|PXAT)$/i;

/**
 * A SET options object that forwards the caller's TTL (node-redis `{ NX: true, PX: ttl }`, Upstash
 * `{ nx: true, px: ttl }`) as the option words it stands for. Undefined for any other shape (no TTL
 * parameter, a fixed TTL, computed, spread, node-redis v5 `expiration`): such a wrapper decides more than
 * it forwards, and a cache's `setNX(key, value) { ... { NX: true } }` stays the cache's own call.
 */
function optionWords(fn: ts.FunctionLikeDeclaration, object: ts.ObjectLiteralExpression): ForwardedArg[] | undefined {
  const words: ForwardedArg[] = [];
  let forwardsTtl = false;
  for (const p of object.properties) {
    if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) || !SET_WORDS.test(p.name.text)) return undefined;
    const word = p.name.text.toUpperCase();
    const value = unwrap(p.initializer);
    if (!TTL_WORDS.test(word)) {
      if (value.kind !== ts.SyntaxKind.TrueKeyword) return undefined;
      words.push({ word });
      continue;
    }
    // A TTL the wrapper fixes itself makes it more than a forwarder, as a TTL word and number do.
    const param = parameterIndex(fn, value);
    if (param === undefined) return undefined;
    words.push({ word }, { param, head: '', tail: '' });
    forwardsTtl = true;
  }
  return forwardsTtl ? words : undefined;
}

// The client methods a wrapper can forward to: Redis commands the lock model reads, in any case.
const FORWARDABLE = /^(set|setnx|expire|pexpire|expireat|pexpireat|del|unlink|getdel|delex|get|exists|eval|evalsha|call|sendcommand)$/i;

/** The wrapper summary of `fn`, when it is a thin wrapper of one Redis command. */
export function thinWrapper(fn: Node): WrapperSummary | undefined {
  if (!isFunctionLike(fn)) return undefined;
  const name = functionNameOf(fn);
  if (LOCK_NAME.test(name) || LOCK_FUNCTION.test(name)) return undefined;
  const call = forwardedCall(fn);
  const method = call && methodOf(call);
  if (!call || !method || !FORWARDABLE.test(method.name)) return undefined;
  if (call.arguments.length === 0) return undefined;
  const args: ForwardedArg[] = [];
  for (const [i, arg] of call.arguments.entries()) {
    // A node-style callback is how the reply comes back, not an argument of the command.
    if (isFunctionLike(unwrap(arg)) && i === call.arguments.length - 1) continue;
    // An option word of SET the wrapper writes itself: `set(key, value, 'EX', ttl, 'NX')`.
    const word = i > 1 && /^set$/i.test(method.name) ? literalString(arg) : undefined;
    if (word !== undefined && SET_WORDS.test(word)) {
      args.push({ word });
      continue;
    }
    // The options object the wrapper writes itself: `set(key, value, { NX: true, PX: ttlMs })`.
    const object = i > 1 && /^set$/i.test(method.name) ? unwrap(arg) : undefined;
    if (object && ts.isObjectLiteralExpression(object)) {
      const words = optionWords(fn, object);
      if (!words) return undefined;
      args.push(...words);
      continue;
    }
    // Only the key may be wrapped into a longer key; every other argument is a parameter as given (a
    // SET value may be written as a string of it).
    const serialized = i === 1 && /^set(?:nx)?$/i.test(method.name) ? serializedParameter(fn, arg) : undefined;
    const forwarded = serialized !== undefined ? { param: serialized, head: '', tail: '' } : forwardedArg(fn, arg);
    if (!forwarded || (i > 0 && 'param' in forwarded && (forwarded.head || forwarded.tail))) return undefined;
    // `del('lock:' + name)`: the function decides the lock's key itself; it is lock code, not a wrapper.
    if (i === 0 && 'param' in forwarded && LOCK_NAME.test(forwarded.head + forwarded.tail)) return undefined;
    args.push(forwarded);
  }
  return { method: method.name, args };
}
