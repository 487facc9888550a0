// Awaited calls that cannot throw: the error comes back as a value (`const [err, res] = await to(work())`),
// or the call only waits (`await sleep(200)` of a timer promise), so the code after them, a release
// included, runs on every path.
import { ts } from './typescript';
import { declarationOf, descendantsOfKind, isFunctionLike, isFunctionOrArrow, methodOf, unwrap, type Node } from './nodes';
import { localCallee } from './local-callee';

/** Packages whose function turns a rejection into a returned value. */
const ERROR_AS_VALUE_PACKAGES = new Set(['await-to-js']);

/** Does `body` throw, or rethrow, in its own function (not in a nested one)? */
function throwsIn(body: Node): boolean {
  const owner = (n: Node) => {
    for (let p = n.parent; p; p = p.parent) if (isFunctionLike(p)) return p;
    return undefined;
  };
  const own = owner(body) ?? body;
  return descendantsOfKind(body, ts.SyntaxKind.ThrowStatement).some((t) => owner(t) === own);
}

/**
 * A function whose whole body is one try whose catch hands the error back instead of throwing
 * (`try { return [null, await fn()]; } catch (e) { return [e]; }`).
 */
function catchesEverything(fn: Node): boolean {
  if (!isFunctionLike(fn) || !fn.body || !ts.isBlock(fn.body)) return false;
  const [only, ...rest] = fn.body.statements;
  if (!only || rest.length > 0 || !ts.isTryStatement(only) || !only.catchClause) return false;
  return !throwsIn(only.catchClause.block) && !(only.finallyBlock && throwsIn(only.finallyBlock));
}

/** The import that binds this name (`import x from`, `import { x } from`), when no local declaration shadows it. */
function importOf(callee: ts.Identifier): ts.ImportDeclaration | undefined {
  if (declarationOf(callee)) return undefined;
  return callee.getSourceFile().statements.find((s): s is ts.ImportDeclaration =>
    ts.isImportDeclaration(s) && !!s.importClause && (s.importClause.name?.text === callee.text ||
      (!!s.importClause.namedBindings && ts.isNamedImports(s.importClause.namedBindings) && s.importClause.namedBindings.elements.some((e) => e.name.text === callee.text))));
}

/** `import to from 'await-to-js'`, `import { to } from 'await-to-js'`. */
function importedErrorAsValue(callee: ts.Identifier): boolean {
  const from = importOf(callee)?.moduleSpecifier;
  return !!from && ts.isStringLiteral(from) && ERROR_AS_VALUE_PACKAGES.has(from.text);
}

/**
 * `new Promise((resolve) => setTimeout(resolve, ms))`: a wait that only ever resolves (its executor takes
 * no reject and does nothing but start a timer).
 */
function isTimerPromise(n: Node): boolean {
  if (!ts.isNewExpression(n) || unwrap(n.expression).getText() !== 'Promise' || n.arguments?.length !== 1) return false;
  const executor = unwrap(n.arguments[0]);
  if (!isFunctionOrArrow(executor) || executor.parameters.length !== 1) return false;
  const body = executor.body;
  const only = ts.isBlock(body) ? (body.statements.length === 1 && ts.isExpressionStatement(body.statements[0]) ? body.statements[0].expression : undefined) : body;
  const call = only && unwrap(only);
  return !!call && ts.isCallExpression(call) && /^(?:setTimeout|setImmediate)$/.test(unwrap(call.expression).getText());
}

/** `const sleep = (ms) => new Promise((r) => setTimeout(r, ms))`, or a function returning that: a wait. */
function onlyWaits(fn: Node): boolean {
  if (!isFunctionLike(fn) || !fn.body) return false;
  if (!ts.isBlock(fn.body)) return isTimerPromise(unwrap(fn.body));
  const [only, ...rest] = fn.body.statements;
  return !!only && rest.length === 0 && ts.isReturnStatement(only) && !!only.expression && isTimerPromise(unwrap(only.expression));
}

const TIMER_PROMISES = new Set(['timers/promises', 'node:timers/promises']);

/**
 * `setTimeout` (or `setImmediate`) of `timers/promises`, under its name or another (`{ setTimeout as sleep }`),
 * called without the options that could make it reject (an abort signal).
 */
function timersPromiseWait(call: ts.CallExpression, callee: ts.Identifier): boolean {
  if (call.arguments.length > 2) return false;
  return callee.getSourceFile().statements.some((s) => {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || !TIMER_PROMISES.has(s.moduleSpecifier.text)) return false;
    const bindings = s.importClause?.namedBindings;
    return !!bindings && ts.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === callee.text && /^(?:setTimeout|setImmediate)$/.test((e.propertyName ?? e.name).text));
  });
}

/** The names a project gives its wait helper: `sleep(ms)`, `delay(ms)`, `wait(ms)`, `pause(ms)`, `backoff(ms)`. */
export const WAIT_HELPER_NAME = /^(?:sleep|delay|wait|pause|snooze|backoff)(?:Ms|For|Async)?$/i;

/**
 * `import { sleep } from '../utils/time'` called with the delay alone: another file's wait helper, read
 * by its name (the file itself is not parsed for this). One with a second argument (an abort signal,
 * options) may reject, and still counts.
 */
function importedSleep(call: ts.CallExpression, callee: ts.Identifier): boolean {
  return call.arguments.length === 1 && WAIT_HELPER_NAME.test(callee.text) && !!importOf(callee);
}

/** Bluebird's `Promise.delay(ms)`: a wait, with the delay alone. */
const BLUEBIRD_DELAY = /^(?:Promise|Bluebird|BPromise|P)\.delay$/;

/** A wait that cannot reject: a timer promise, Bluebird's `Promise.delay(ms)`, a wait helper of this file or by its name. */
export function isPlainWait(expression: Node): boolean {
  const e = unwrap(expression);
  if (isTimerPromise(e)) return true;
  if (!ts.isCallExpression(e)) return false;
  if (e.arguments.length === 1 && BLUEBIRD_DELAY.test(e.expression.getText())) return true;
  const callee = unwrap(e.expression);
  if (ts.isIdentifier(callee) && (timersPromiseWait(e, callee) || importedSleep(e, callee))) return true;
  const fn = localCallee(e);
  return !!fn && onlyWaits(fn);
}

/** Is this awaited expression one that hands an error back rather than throwing it, or a plain wait? */
export function neverThrows(awaited: ts.AwaitExpression): boolean {
  const e = unwrap(awaited.expression);
  if (isPlainWait(e)) return true;
  if (!ts.isCallExpression(e)) return false;
  // `await work().catch((err) => log(err))`: the handler's value replaces the rejection.
  const method = methodOf(e);
  if (method?.name === 'catch' && e.arguments.length === 1) {
    const handler = unwrap(e.arguments[0]);
    return isFunctionOrArrow(handler) && !throwsIn(handler.body);
  }
  const callee = unwrap(e.expression);
  if (ts.isIdentifier(callee) && importedErrorAsValue(callee)) return true;
  // A function of this file, or a method of this class that catches everything.
  const fn = localCallee(e);
  return !!fn && catchesEverything(fn);
}
