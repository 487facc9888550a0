// What the failure path of an acquire answers its caller: a grant ("you hold the lock": true, 'OK', a
// lock-like object, a release function), a refusal ("not acquired": false, null, an object whose flags
// say no under whatever name, an HTTP error response), or nothing this analysis can tell. And which
// calls on such a path are incidental (built-ins, waits) and so never the work the lock protects.
import { ts } from './typescript';
import { calleeName, isFunctionOrArrow, literalNumber, literalString, methodOf, nameOf, unwrap, type Node } from './nodes';
import { WAIT_HELPER_NAME } from './never-throws';

export type Answer = 'grant' | 'refusal' | undefined;

const NOT_ACQUIRED = /^(?:false|null|undefined|0|''|""|void 0)$/;
const GRANTING_WORD = /^(?:ok|acquired|locked|granted|held|true|yes)$/i;
const REFUSING_WORD = /^(?:error|errored|fail|failed|failure|unavailable|busy|denied|rejected|refused|skipped|timeout|timed[-_ ]?out|conflict|aborted)$/i;
/** A field that carries why something failed: `error`, `lastError`, `reason`, `unavailable: true`. */
const STATUS_FIELD = /^status(?:Code)?$/;
const NEGATIVE_FIELD = /^(?:err|reason|failure|failed|unavailable|busy|denied|rejected|refused|skipped|timed_?out|conflict|aborted)$|^error|error$/i;

/**
 * An object literal's answer from its own fields, under any names: a flag set to true (`usable: true`)
 * grants; a flag set to false, a negative flag set to true (`unavailable: true`), an error or reason,
 * a status word like 'error' or an HTTP status of 400 and up refuses; a method or function field (a
 * release, even a no-op) grants.
 */
export function objectAnswer(obj: ts.ObjectLiteralExpression): Answer {
  let yes = false;
  let no = false;
  let handsBack = false;
  for (const p of obj.properties) {
    const negative = NEGATIVE_FIELD.test(nameOf(p) ?? '');
    if (ts.isMethodDeclaration(p)) handsBack = true;
    if (ts.isShorthandPropertyAssignment(p) && negative) no = true;
    if (!ts.isPropertyAssignment(p)) continue;
    const value = unwrap(p.initializer);
    const word = literalString(value);
    if (value.kind === ts.SyntaxKind.TrueKeyword) {
      if (negative) no = true;
      else yes = true;
    } else if (value.kind === ts.SyntaxKind.FalseKeyword) no ||= !negative;
    else if (isFunctionOrArrow(value)) handsBack = true;
    else if (negative) no ||= !NOT_ACQUIRED.test(value.getText());
    else if (STATUS_FIELD.test(nameOf(p) ?? '') && literalNumber(value) !== undefined) no ||= statusVerdict(value) === 'error';
    else if (word !== undefined && REFUSING_WORD.test(word)) no = true;
    else if (word !== undefined && GRANTING_WORD.test(word)) yes = true;
  }
  if (yes) return 'grant';
  if (no) return 'refusal';
  return handsBack ? 'grant' : undefined;
}

/** The answer of a returned value; an object literal with no field that decides answers undefined. */
export function answerOf(node: Node): Answer {
  let v = unwrap(node);
  if (ts.isAwaitExpression(v)) v = unwrap(v.expression);
  if (NOT_ACQUIRED.test(v.getText())) return 'refusal';
  if (v.kind === ts.SyntaxKind.TrueKeyword || ts.isNumericLiteral(v)) return 'grant';
  // 'OK' is SET's own reply; 'busy' or 'unavailable' are answers, not grants.
  const word = literalString(v);
  if (word !== undefined) return GRANTING_WORD.test(word) ? 'grant' : 'refusal';
  if (isFunctionOrArrow(v)) return 'grant';
  if (ts.isObjectLiteralExpression(v)) return objectAnswer(v);
  return isErrorResponse(v) ? 'refusal' : undefined;
}

/** Is `condition` true when the acquire did not get the lock: `!ok`, `ok !== 'OK'`, `ok === null`? */
export function saysNotAcquired(condition: Node): boolean {
  const c = unwrap(condition);
  if (ts.isPrefixUnaryExpression(c)) return c.operator === ts.SyntaxKind.ExclamationToken;
  if (!ts.isBinaryExpression(c)) return false;
  const op = c.operatorToken.kind;
  const other = [c.left, c.right].map((side) => answerOf(side)).find((a) => a !== undefined);
  if (op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken) return other === 'grant';
  if (op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken) return other === 'refusal';
  return false;
}

const STATUS_SETTER = /^(?:status|code|sendStatus|writeHead)$/;
const RESPONSE_BODY = /^(?:json|jsonp|send|end|Response|NextResponse)$/;

/** 'error' for a literal HTTP status of 400 and up, 'ok' below it, undefined when computed. */
function statusVerdict(node: Node | undefined): 'error' | 'ok' | undefined {
  const code = node && literalNumber(node);
  if (code === undefined) return undefined;
  return code >= 400 ? 'error' : 'ok';
}

/** The `status` of a response's init object: `Response.json(body, { status: 503 })`. */
function initStatus(args: readonly ts.Expression[]): 'error' | 'ok' | undefined {
  for (const arg of args) {
    const init = unwrap(arg);
    if (!ts.isObjectLiteralExpression(init)) continue;
    const status = init.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && STATUS_FIELD.test(nameOf(p) ?? ''));
    if (status) return statusVerdict(status.initializer);
  }
  return undefined;
}

/**
 * An HTTP answer that says the request failed: a status of 400 and up set along the call chain
 * (`res.status(503).json(...)`, `reply.code(409).send()`, `Response.json(body, { status: 500 })`,
 * `new Response(body, { status })`), or a body whose fields refuse (`res.json({ ok: false })`).
 */
export function isErrorResponse(node: Node): boolean {
  let verdict: 'error' | 'ok' | undefined;
  let refusingBody = false;
  for (let n: Node | undefined = unwrap(node); n && (ts.isCallExpression(n) || ts.isNewExpression(n)); ) {
    const args = n.arguments ?? [];
    const name = ts.isCallExpression(n) ? (methodOf(n)?.name ?? calleeName(n)) : unwrap(n.expression).getText().split('.').pop();
    if (ts.isCallExpression(n) && STATUS_SETTER.test(name ?? '')) verdict ??= statusVerdict(args[0]);
    if (RESPONSE_BODY.test(name ?? '')) {
      verdict ??= initStatus(args.slice(1));
      const body = args[0] && unwrap(args[0]);
      refusingBody ||= !!body && ts.isObjectLiteralExpression(body) && objectAnswer(body) === 'refusal';
    }
    const receiver: ts.Expression | undefined = ts.isCallExpression(n) ? methodOf(n)?.receiver : undefined;
    n = receiver && unwrap(receiver);
  }
  return verdict === 'error' || refusingBody;
}

const BUILT_IN_FUNCTION = /^(?:String|Number|Boolean|BigInt|Symbol|parseInt|parseFloat|isNaN|isFinite|encodeURIComponent|decodeURIComponent|encodeURI|decodeURI|structuredClone|queueMicrotask|setTimeout|setInterval|setImmediate|clearTimeout|clearInterval|require)$/;
const BUILT_IN_NAMESPACE = /^(?:Date|Math|JSON|Object|Array|Number|String|Promise|Reflect|Symbol|Buffer|URL|crypto|process|performance|console)$/;

/** A call that is never the protected work: a JavaScript built-in (`Date.now()`, `String(e)`), a wait (`sleep(ms)`) or what computes its length. */
export function isIncidentalCall(call: ts.CallExpression): boolean {
  const callee = unwrap(call.expression);
  if (ts.isIdentifier(callee) && BUILT_IN_FUNCTION.test(callee.text)) return true;
  const receiver = methodOf(call)?.receiver;
  if (receiver && ts.isIdentifier(unwrap(receiver)) && BUILT_IN_NAMESPACE.test(unwrap(receiver).getText())) return true;
  if (WAIT_HELPER_NAME.test(calleeName(call) ?? '')) return true;
  // `sleep(this.addJitter(retryDelay))`: what computes a wait's length is part of the wait.
  const outer = call.parent && ts.isCallExpression(call.parent) && call.parent.arguments.includes(call) ? call.parent : undefined;
  return !!outer && WAIT_HELPER_NAME.test(calleeName(outer) ?? '');
}
