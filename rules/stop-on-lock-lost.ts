// The lost-lock signal must reach the work: a watchdog whose failed extend is only logged (or stored in
// a flag nothing reads, or rethrown inside the timer), an AbortController for the lock whose signal no
// one gets, an onLockLost that only logs. In each, the work goes on next to the new holder.
import { ts } from './engine/typescript';
import { bodyStatements, enclosingTries, onlyObserves, throwsIn } from './engine/failure-paths';
import { describeKey } from './engine/keys';
import type { Extend, LockModel } from './engine/model';
import { ancestorWhere, calleeName, callsNamed, contains, descendantsOfKind, enclosingFunction, functionNameOf, identifiersNamed, isFunctionLike, isFunctionOrArrow, isLoop, methodOf, propertyValue, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import { inConditionPosition, resultUse } from './engine/result-use';
import type { Rule } from './rule';

const TIMER = /^(?:setInterval|setTimeout)$/;
/** What a `.catch` answering "not extended" returns. */
const FALSY = new Set([ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.NullKeyword, ts.SyntaxKind.UndefinedKeyword]);
const FAILED = /^!|===?\s*(?:0|null|undefined|false)\b|!==?\s*(?:1|'OK'|"OK"|true)\b|<\s*1\b/;

/**
 * The timer callback (setInterval/setTimeout) the extend runs in, through nested callbacks: written in
 * the timer's call, or a function of the file handed to one by name (`setTimeout(extendLock, ms)`, the
 * watchdog that re-arms itself).
 */
function timerCallback(extend: Extend): Node | undefined {
  let byName: Set<string> | undefined;
  for (let fn: Node | undefined = ancestorWhere(extend.call, isFunctionLike); fn; fn = ancestorWhere(fn, isFunctionLike)) {
    const call = fn.parent;
    if (call && ts.isCallExpression(call) && TIMER.test(calleeName(call) ?? '') && call.arguments[0] === fn) return fn;
    byName ??= new Set(callsNamed(fn.getSourceFile(), (name) => TIMER.test(name)).flatMap((t) => (t.arguments[0] && ts.isIdentifier(t.arguments[0]) ? [t.arguments[0].text] : [])));
    const name = functionNameOf(fn);
    if (name && byName.has(name)) return fn;
  }
  return undefined;
}

const SLEEP = /^(?:sleep|delay|wait|setTimeout|timeout)$/i;

/**
 * `while (running) { await extend(); await sleep(ms); }` in an async function started without `await`
 * (`void renew()`, `renew().catch(log)`, an unawaited IIFE): a watchdog written as a loop, running next
 * to the work as a timer does. A loop the caller awaits is the work itself, not a watchdog.
 */
function backgroundLoop(extend: Extend): Node | undefined {
  const fn = ancestorWhere(extend.call, isFunctionLike);
  const loop = fn && ancestorWhere(extend.call, (n) => n === fn || isLoop(n));
  if (!fn || !loop || loop === fn) return undefined;
  const sleeps = descendantsOfKind<ts.AwaitExpression>(loop, ts.SyntaxKind.AwaitExpression).some((a) => {
    const awaited = unwrap(a.expression);
    return (ts.isCallExpression(awaited) && SLEEP.test(calleeName(awaited) ?? '')) || (ts.isNewExpression(awaited) && /\bsetTimeout\b/.test(awaited.getText()));
  });
  if (!sleeps) return undefined;
  const iife = unwrap(fn.parent) === fn.parent && ts.isCallExpression(fn.parent) ? fn.parent : ts.isParenthesizedExpression(fn.parent) && ts.isCallExpression(fn.parent.parent) ? fn.parent.parent : undefined;
  const starts = iife ? [iife] : callsNamed(fn.getSourceFile(), (name) => name === functionNameOf(fn));
  return starts.some((call) => !awaitedNow(call)) ? fn : undefined;
}

/** `await f()` or `return f()`: the caller waits for the loop to end before going on. */
function awaitedNow(call: Node): boolean {
  let n = call;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isAsExpression(n.parent) || ts.isNonNullExpression(n.parent))) n = n.parent;
  return ts.isAwaitExpression(n.parent) || ts.isReturnStatement(n.parent);
}

type Path = { kind: 'catch' | 'failed-branch'; statements: Node[]; node: Node };

/** Where the extend's failure goes: catch clauses, a `.catch` callback, the failed branch of a test of its answer. */
function failurePaths(extend: Extend, timer: Node): Path[] | undefined {
  const paths: Path[] = [];
  for (const t of enclosingTries(extend.call, timer)) {
    if (t.catchClause) paths.push({ kind: 'catch', statements: [...t.catchClause.block.statements], node: t.catchClause });
  }
  // `extend().then(onDone).catch(onError)`, or `.then(onDone, onError)`.
  let link: Node = extend.call;
  let answers: Node | undefined;
  for (; ts.isPropertyAccessExpression(link.parent) && ts.isCallExpression(link.parent.parent); link = link.parent.parent) {
    const method = link.parent.name.text;
    const args = link.parent.parent.arguments;
    const handler = method === 'catch' ? args[0] : method === 'then' ? args[1] : undefined;
    if (!handler || !isFunctionOrArrow(handler)) continue;
    // `.catch(() => false)`: the handler answers "not extended", and the answer is tested below like the extend's.
    if (method === 'catch' && !ts.isBlock(handler.body) && FALSY.has(unwrap(handler.body).kind)) answers = handler;
    else paths.push({ kind: 'catch', statements: bodyStatements(handler.body), node: handler });
  }
  // A `.catch` answering a value hands the extend's answer on: its chain's answer is the one tested.
  const answered = answers ? link : extend.call;
  const use = resultUse(answered as ts.CallExpression);
  const tests = use.kind === 'assigned'
    ? identifiersNamed(enclosingFunction(answered), use.name).filter((id) => id.pos > answered.end && inConditionPosition(id))
    : use.kind === 'tested' ? [valueCarrier(answered)] : [];
  if (answers && tests.length === 0) paths.push({ kind: 'catch', statements: bodyStatements((answers as ts.ArrowFunction).body), node: answers });
  for (const tested of tests) {
    const test = ancestorWhere<ts.IfStatement>(tested, ts.isIfStatement);
    if (!test || !contains(test.expression, tested)) continue;
    const failed = FAILED.test(test.expression.getText().replace(/\s+/g, ' ')) ? test.thenStatement : test.elseStatement;
    paths.push({ kind: 'failed-branch', statements: failed ? bodyStatements(failed) : [], node: failed ?? test });
  }
  // `if ((await get(key)) === me) pexpire(key) else lost()`: the owner check before the extend decides loss too.
  const owned = extend.getCompare?.ifStatement;
  if (owned && ts.isIfStatement(owned) && contains(owned.thenStatement, extend.call) && owned.elseStatement) {
    paths.push({ kind: 'failed-branch', statements: bodyStatements(owned.elseStatement), node: owned.elseStatement });
  }
  if (paths.length === 0 && use.kind !== 'discarded') return undefined; // the answer goes somewhere we cannot follow
  return paths;
}

/** `if (!renewed) throw new Error(...)` in the timer itself: a throw no catch inside the timer takes. */
function uncaughtThrow(path: Path, timer: Node): ts.ThrowStatement | undefined {
  const thrown = path.statements.find((s): s is ts.ThrowStatement => ts.isThrowStatement(s));
  return thrown && !enclosingTries(thrown, timer).some((t) => t.catchClause) ? thrown : undefined;
}

function watchdogProblem(model: LockModel, extend: Extend): { message: string; at: Node } | undefined {
  const timer = timerCallback(extend) ?? backgroundLoop(extend);
  if (!timer) return undefined;
  const paths = failurePaths(extend, timer);
  if (!paths) return undefined;
  const key = describeKey(extend.key);
  const rethrow = paths.map((p) => (p.kind === 'catch' ? throwsIn(p.node) : uncaughtThrow(p, timer))).find((t) => t);
  if (rethrow) {
    return {
      at: rethrow,
      message: `This watchdog throws on a failed extend of ${key} inside its timer: nothing awaits a timer callback, so the error becomes an unhandled rejection (or crashes the process) instead of stopping the work that lost the lock. Signal the work instead: abort its AbortController, or reject the promise the work awaits.`,
    };
  }
  const handled = paths.filter((p) => p.kind === 'failed-branch' || p.statements.length > 0);
  if (handled.some((p) => !onlyObserves(p.statements, model.sourceFile))) return undefined;
  const what = paths.length === 0 ? `ignores the answer of its extend of ${key}` : `only logs a failed extend of ${key} (or stores it where nothing reads it)`;
  return {
    at: extend.call,
    message: `This watchdog ${what}. When the extend fails the lock is gone (expired during a pause, or taken over), but the work it protects never hears and keeps running next to the new holder. Stop the work: abort an AbortController the work checks, or reject the promise it awaits.`,
  };
}

/** `const controller = new AbortController()` next to lock code, whose signal is never read or passed. */
function unusedControllers(model: LockModel): ts.NewExpression[] {
  if (!model.text.includes('AbortController')) return [];
  // Only next to a renewal: a controller aborted after an acquire's timeout race (no watchdog at all) signals no lost lock.
  const lockFns = new Set<Node>(model.extends.map((e) => e.fn));
  return descendantsOfKind<ts.NewExpression>(model.sourceFile, ts.SyntaxKind.NewExpression).filter((n) => {
    if (unwrap(n.expression).getText() !== 'AbortController') return false;
    // Only a function's own variable: its every use is in the function (a field may be read by code the lean parse skips).
    const decl = valueCarrier(n).parent;
    const fn = enclosingFunction(n);
    if (!ts.isVariableDeclaration(decl) || !ts.isIdentifier(decl.name) || !isFunctionLike(fn)) return false;
    const name = decl.name.text;
    const nearLock = [...lockFns].some((f) => f === fn || contains(fn, f));
    if (!nearLock) return false;
    const uses = identifiersNamed(fn, name).filter((id) => id.pos > n.end);
    return !uses.some((id) => {
      const parent = id.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === id) return parent.name.text === 'signal';
      if (ts.isPropertyAccessExpression(parent) && parent.name === id) {
        const outer = parent.parent;
        return !(ts.isPropertyAccessExpression(outer) && outer.name.text === 'abort');
      }
      return !ts.isVariableDeclaration(parent); // handed on, returned or stored: not ours to judge
    });
  });
}

/** Is the extend a call of the function around the timer it is written in (the watchdog setting its next round)? */
function reschedulesItself(extend: Extend): boolean {
  const name = extend.call && ts.isCallExpression(extend.call) ? (calleeName(extend.call) ?? methodOf(extend.call)?.name) : undefined;
  if (!name) return false;
  for (let fn: Node | undefined = enclosingFunction(extend.call); fn && !ts.isSourceFile(fn); fn = fn.parent && enclosingFunction(fn.parent)) {
    if (functionNameOf(fn) === name) return true;
  }
  return false;
}

export const stopOnLockLost: Rule = {
  id: 'stop-on-lock-lost',
  defaultSeverity: 'warning',
  summary: 'The lost-lock signal never reaches the work: a watchdog that only logs, an unused AbortController, an onLockLost that only logs.',
  check({ model, report }) {
    for (const extend of model.extends) {
      // `this.setupRenewal(key)` inside the timer that setupRenewal set: the watchdog scheduling its next
      // round, whose own extend is judged where it is written.
      if (reschedulesItself(extend)) continue;
      const problem = watchdogProblem(model, extend);
      if (problem) report({ span: spanOf(problem.at), message: problem.message, related: [{ span: spanOf(extend.call), message: 'the extend whose failure is lost' }] });
    }
    for (const controller of unusedControllers(model)) {
      report({
        span: spanOf(controller),
        message: `This AbortController is created for the lock, but its signal is never passed to the work or checked: aborting it when the lock is lost stops nothing, and the work runs on next to the new holder. Pass controller.signal to the work (fetch, database calls) and check signal.aborted between steps.`,
      });
    }
    for (const object of model.libraryObjects) {
      const handler = object.library === 'redis-semaphore' && object.options ? propertyValue(object.options, 'onLockLost') : undefined;
      const fn = handler ? unwrap(handler) : undefined;
      if (!fn || !isFunctionOrArrow(fn) || !onlyObserves(bodyStatements(fn.body), model.sourceFile)) continue;
      report({
        span: spanOf(fn),
        message: `This onLockLost only logs: redis-semaphore calls it when a refresh finds the ${object.className} lost, and the work it protects keeps running next to the new holder. Stop the work there: abort an AbortController the work checks, or set a flag the work reads between steps.`,
      });
    }
  },
};
