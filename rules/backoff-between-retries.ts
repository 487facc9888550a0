// A retried acquire must wait between attempts, and the wait must be random: with no wait the loop
// spins against Redis as fast as round trips allow; with a fixed wait every worker that lost the race
// wakes up at the same moment and collides again. bounded-acquire-retry is about the number of tries.
import { ts } from './engine/typescript';
import { mentions } from './engine/failure-paths';
import { describeKey } from './engine/keys';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, calleeName, contains, descendantsWhere, identifiersNamed, isFunctionLike, isLoop, literalNumber, literalString, ownReturns, propertyAssignment, resolveConst, spanOf, unwrap, type Node } from './engine/nodes';
import { localCallee } from './engine/local-callee';
import { lockNames, testsFailure } from './engine/paths';
import { selfRetry } from './engine/self-retry';
import { promiseAllOf } from './engine/mapped-acquire';
import { intervalRetry, type IntervalRetry } from './engine/interval-retry';
import { keyFreshEachTime, keyVariesWithLoop } from './engine/key-loops';
import type { Rule, RuleContext } from './rule';
import type { Fix } from './types';

type Loop = ts.WhileStatement | ts.DoStatement | ts.ForStatement;

const WAIT = /sleep|delay|wait|pause|setTimeout|backoff|timeout|scheduler\.wait|blpop|brpop|xread|subscribe|once\(/i;
// A random wait; not a random token (`randomUUID()`, `randomBytes(16)`, `Math.random().toString(36)`).
const RANDOM = /random(?!UUID|Bytes|Fill|Values|\(\)\s*\.\s*toString)|jitter/i;
// Calls a fixed delay may be computed with; any other call might add jitter we cannot see.
const ARITHMETIC = /^(?:Math\.(?:min|max|pow|floor|round|ceil|trunc)|Number|parseInt)$/;

/**
 * The loop that retries this acquire: it ends (condition, break or return) once the lock is taken.
 * `site` is the acquire's call, or the Promise.all that runs it over several nodes or keys.
 */
function retryLoop(acquire: Acquire, site: Node): Loop | undefined {
  const loop = ancestorWhere(site, (a) => isLoop(a) || ts.isForOfStatement(a) || ts.isForInStatement(a) || isFunctionLike(a));
  // A loop over keys takes another lock each time round: leaving once one fails is not a retry.
  if (!loop || !isLoop(loop) || (ts.isForStatement(loop) && keyVariesWithLoop(loop, acquire)) || keyFreshEachTime(loop, acquire)) return undefined;
  const condition = ts.isForStatement(loop) ? loop.condition : loop.expression;
  if (condition && (contains(condition, site) || mentions(condition, lockNames(acquire)))) return loop;
  // After the acquire, or handing its answer back (`return await this.acquire(key)`, the catch retrying).
  const stops = descendantsWhere(loop.statement, (d) => (ts.isBreakStatement(d) || ts.isReturnStatement(d)) && (d.getStart() > site.end || contains(d, site)) && ancestorWhere(d, (a) => isLoop(a) || isFunctionLike(a)) === loop);
  return stops.length > 0 && !leavesWhenBusy(loop, acquire, site) ? loop : undefined;
}

// The answer a locked routine helper gives when another holder has the lock (`{ status: 'contended' }`).
const BUSY_ANSWER = /contend|busy|conflict|locked|held|taken|skipped|not_?acquired/i;

/**
 * `const outcome = await withRowLock(...); if (outcome.status === 'contended') break;` (or `if (!ok)
 * return`): the loop leaves as soon as the lock is busy, so it never waits on a holder; it goes round
 * again for other reasons (more work), not to retry the lock.
 */
function leavesWhenBusy(loop: Loop, acquire: Acquire, site: Node): boolean {
  const names = lockNames(acquire);
  if (names.length === 0) return false;
  return descendantsWhere<ts.IfStatement>(loop.statement, ts.isIfStatement).some((test) => {
    if (test.getStart() < site.end || ancestorWhere(test, (a) => isLoop(a) || isFunctionLike(a)) !== loop || !mentions(test.expression, names)) return false;
    const condition = unwrap(test.expression);
    const busy = testsFailure(condition, names) || (ts.isBinaryExpression(condition) && /^==?=$/.test(condition.operatorToken.getText()) && BUSY_ANSWER.test(literalString(condition.right) ?? ''));
    const last = ts.isBlock(test.thenStatement) ? test.thenStatement.statements.at(-1) : test.thenStatement;
    return busy && !!last && ((ts.isBreakStatement(last) && !last.label) || ts.isReturnStatement(last) || ts.isThrowStatement(last));
  });
}

/** The awaited waits in the loop body or function `fn` (not in nested functions). */
function waitsIn(scope: Node, fn: Node, acquire: Acquire): ts.AwaitExpression[] {
  return descendantsWhere<ts.AwaitExpression>(scope, (d) => ts.isAwaitExpression(d) && ancestorWhere(d, isFunctionLike) === fn && !d.getText().includes(acquire.call.getText()) && WAIT.test(d.expression.getText()));
}

/** The delay expression of a wait: `sleep(ms)`, `setTimeout(r, ms)` inside `new Promise(...)`. */
function delayOf(wait: ts.AwaitExpression): Node | undefined {
  const expr = unwrap(wait.expression);
  if (ts.isNewExpression(expr)) {
    const timeout = descendantsWhere<ts.CallExpression>(expr, (d) => ts.isCallExpression(d) && unwrap(d.expression).getText() === 'setTimeout')[0];
    return timeout?.arguments[1];
  }
  // `waitForPendingStream(id, 0)`, `waitUntilReleased(key)`: a wait for an event, of no known length.
  if (ts.isCallExpression(expr) && EVENT_WAIT.test(calleeName(expr) ?? '')) return undefined;
  // `sleep(ms)`, `delay(ms, signal)`, timers/promises `setTimeout(ms, value)`: the delay comes first.
  return ts.isCallExpression(expr) ? expr.arguments[0] : undefined;
}

const EVENT_WAIT = /^wait(?:For|Until)[A-Z]/;

/**
 * A wait through a function or method of this file whose own body waits a random share
 * (`await this.waitForResult(id)` polling with jitter): its argument is no delay, and the wait is random.
 */
function jitteredInside(wait: ts.AwaitExpression): boolean {
  const call = unwrap(wait.expression);
  const fn = ts.isCallExpression(call) ? localCallee(call) : undefined;
  return !!fn?.body && RANDOM.test(fn.body.getText());
}

/** A call to a function of this file whose body has no random part and returns only fixed values. */
function fixedFunction(model: LockModel, call: ts.CallExpression, depth: number): boolean {
  const fn = depth < 3 ? localCallee(call) : undefined;
  if (!fn?.body || RANDOM.test(fn.body.getText())) return false;
  if (!ts.isBlock(fn.body)) return fixedDelay(model, fn.body, depth + 1);
  const returns = ownReturns(fn);
  return returns.length > 0 && returns.every((r) => !!r.expression && fixedDelay(model, r.expression, depth + 1));
}

/** Is this delay fixed: no random part in it (following consts), and no call that could add one? */
function fixedDelay(model: LockModel, delay: Node, depth = 0): boolean {
  const text = delay.getText();
  if (RANDOM.test(text)) return false;
  const calls = descendantsWhere<ts.CallExpression>(delay, ts.isCallExpression);
  if (ts.isCallExpression(delay)) calls.push(delay);
  if (calls.some((c) => !ARITHMETIC.test(unwrap(c.expression).getText()) && !inElapsedExponent(c, delay) && !fixedFunction(model, c, depth))) return false;
  const ids = ts.isIdentifier(delay) ? [delay] : descendantsWhere<ts.Identifier>(delay, ts.isIdentifier);
  return ids.every((id) => {
    if (inElapsedExponent(id, delay)) return true;
    const init = depth < 3 ? model.lookup(id) : undefined;
    return !init || fixedDelay(model, init, depth + 1);
  });
}

const CLOCK = /\b(?:Date|performance)\.now\s*\(/;

/**
 * `Math.pow(1.5, Math.floor((Date.now() - start) / 100))`: an exponent that reads the clock grows the wait
 * with the time waited so far, the same for every waiter that started together: no random part in it.
 */
function inElapsedExponent(node: Node, delay: Node): boolean {
  for (let n: Node = node; n !== delay && n.parent; n = n.parent) {
    const p = n.parent;
    if (ts.isCallExpression(p) && unwrap(p.expression).getText() === 'Math.pow' && p.arguments[1] === n && CLOCK.test(n.getText())) return true;
  }
  return false;
}

function jitterFix(delay: Node): Fix {
  const n = literalNumber(delay);
  const text = delay.getText();
  const operand = n !== undefined || ts.isIdentifier(unwrap(delay)) || ts.isPropertyAccessExpression(unwrap(delay)) ? text : `(${text})`;
  const newText = n !== undefined ? `${n / 2} + Math.random() * ${n}` : `${operand} / 2 + Math.random() * ${operand}`;
  return { title: 'Randomise the wait (same mean, full jitter around it)', isPreferred: true, edits: [{ ...spanOf(delay), newText }] };
}

function loopHead(loop: Loop): { start: number; end: number } {
  return { start: loop.getStart(), end: loop.statement.getStart() };
}

/** A `setInterval` retry whose interval has no random part: every waiter ticks in step. */
function reportInterval(model: LockModel, acquire: Acquire, interval: IntervalRetry, report: RuleContext['report']): void {
  const delay = interval.delay;
  if (!delay || !fixedDelay(model, delay) || RANDOM.test(acquire.fn.getText())) return;
  report({
    span: spanOf(delay),
    message: `This timer retries the acquire of ${describeKey(acquire.key)} every \`${delay.getText()}\` ms until it is taken, with no random part: the workers that lost the race all try again at the same moment and collide again, so the contention repeats in lockstep. Wait a random delay between tries (a setTimeout per try, for example delay / 2 + Math.random() * delay).`,
    related: [{ span: spanOf(acquire.call), message: 'the acquire it retries' }],
  });
}

/**
 * A standby polling for a lease its holder renews (`setTimeout(tryToGetTheLock, lockTTL / 10)`, the same
 * function extending the lock it takes): its wait is a share of the lock's TTL, a few tries per lease, and
 * the lock changes hands only when a holder stops renewing, so there is no contention to spread out.
 */
function pollsForLease(model: LockModel, acquire: Acquire, delay: Node): boolean {
  const renewals = model.extends.filter((e) => contains(acquire.fn, e.call));
  if (renewals.length === 0) return false;
  // The lease length, as the acquire or a renewal passes it (`extend(lockTTL)`).
  const lengths = [acquire.ttl?.value, ...renewals.flatMap((e) => (ts.isCallExpression(e.call) ? [...e.call.arguments] : []))]
    .map((n) => n && unwrap(n)).filter((n): n is ts.Identifier => !!n && ts.isIdentifier(n)).map((n) => n.text);
  const written = resolveConst(unwrap(delay)) ?? delay;
  return lengths.length > 0 && identifiersNamed(written, lengths).length > 0;
}

// A command that writes a value under a key: where a caller announces itself (`set(LATEST, requestId)`).
const WRITE = /^(?:set|setex|psetex|setEx|pSetEx|SET)$/;

/**
 * "The newest request wins": before the loop each caller writes its own id under a shared key, and
 * after a refused acquire it leaves unless that key still holds its id (`if (latest !== requestId)
 * return`), before it waits. Only the newest caller goes round again, so there is one retrier and no
 * lockstep to break up.
 */
function supersededRetrier(loop: Loop, acquire: Acquire, wait: Node): boolean {
  const announced = new Set(
    descendantsWhere<ts.CallExpression>(acquire.fn, (d) => ts.isCallExpression(d) && d.end < loop.getStart() && WRITE.test(calleeName(d) ?? ''))
      .flatMap((call) => call.arguments.slice(1).map(unwrap).filter(ts.isIdentifier).map((id) => id.text)),
  );
  if (announced.size === 0) return false;
  return descendantsWhere<ts.IfStatement>(loop.statement, ts.isIfStatement).some((test) => {
    const condition = unwrap(test.expression);
    if (test.getStart() < acquire.call.end || test.end > wait.getStart() || !ts.isBinaryExpression(condition) || !/^!==?$/.test(condition.operatorToken.getText())) return false;
    const sides = [unwrap(condition.left), unwrap(condition.right)];
    const last = ts.isBlock(test.thenStatement) ? test.thenStatement.statements.at(-1) : test.thenStatement;
    return sides.some((side) => ts.isIdentifier(side) && announced.has(side.text)) && !!last && (ts.isReturnStatement(last) || (ts.isBreakStatement(last) && !last.label));
  });
}

export const backoffBetweenRetries: Rule = {
  id: 'backoff-between-retries',
  defaultSeverity: 'warning',
  summary: 'An acquire retried with no wait between attempts (a busy spin), or with a fixed wait and no jitter.',
  check({ model, report }) {
    const reported = new Set<Node>();
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock') continue;
      // A script that pops the next entry and claims its scope is a dequeue: polling an empty queue waits on no holder.
      if (acquire.command?.script?.traits?.dequeues) continue;
      const mapped = promiseAllOf(acquire);
      const loop = retryLoop(acquire, mapped ?? acquire.call);
      const recursion = loop ? undefined : selfRetry(acquire);
      const interval = loop || recursion ? undefined : intervalRetry(acquire);
      if (interval) {
        reportInterval(model, acquire, interval, report);
        continue;
      }
      const retry = loop ?? recursion?.call;
      // A recursion chained on a promise waits for it (a release message, an event): a wait of no known length.
      if (!retry || reported.has(retry) || recursion?.waitsFor) continue;
      reported.add(retry);
      const key = describeKey(acquire.key);
      // A retry scheduled with setTimeout waits its delay; any other waits with an awaited sleep.
      const scheduled = recursion?.delay ? [{ delay: recursion.delay }] : [];
      const waits = scheduled.length > 0 ? [] : waitsIn(loop ?? acquire.fn, (mapped && ancestorWhere(mapped, isFunctionLike)) || acquire.fn, acquire);
      if (waits.length === 0 && scheduled.length === 0) {
        report({
          span: loop ? loopHead(loop) : spanOf(retry),
          message: `This ${loop ? 'loop' : 'recursion'} retries the acquire of ${key} with no wait between attempts: a busy spin that sends Redis a command per round trip for as long as the lock is held, from every waiting worker, and starves the holder's own commands. Wait a random delay between attempts (for example 50-150 ms, growing with each try).`,
          related: [{ span: spanOf(acquire.call), message: 'the acquire it retries' }],
        });
        continue;
      }
      const fixed = [...scheduled, ...waits.filter((w) => !jitteredInside(w)).map((w) => ({ delay: delayOf(w) }))].find((w) => w.delay && fixedDelay(model, w.delay));
      // A random part computed anywhere in the retry (`delay = base * (0.5 + Math.random())`) counts.
      if (!fixed?.delay || RANDOM.test((loop ?? acquire.fn).getText()) || pollsForLease(model, acquire, fixed.delay) || (loop && supersededRetrier(loop, acquire, fixed.delay))) continue;
      const delay = fixed.delay;
      report({
        span: spanOf(delay),
        message: `This retry of ${key} waits \`${delay.getText()}\` between attempts, with no random part: the workers that lost the race all wake at the same moment and collide again, so the contention repeats in lockstep. Add jitter: wait a random share of the delay (for example delay / 2 + Math.random() * delay).`,
        related: [{ span: spanOf(acquire.call), message: 'the acquire it retries' }],
        fix: () => jitterFix(delay),
      });
    }
    for (const object of model.libraryObjects) {
      const options = object.library === 'redlock' ? object.options : undefined;
      const jitter = options && propertyAssignment(options, 'retryJitter');
      const count = options && propertyAssignment(options, 'retryCount');
      if (!jitter || literalNumber(jitter.initializer) !== 0 || (count && literalNumber(count.initializer) === 0)) continue;
      const delay = options && propertyAssignment(options, 'retryDelay');
      const spin = !!delay && literalNumber(delay.initializer) === 0;
      const fix = (): Fix => ({ title: 'Add a random part to redlock\'s retry delay (retryJitter: 100)', isPreferred: true, edits: [{ ...spanOf(jitter.initializer), newText: '100' }] });
      report({
        span: spanOf(jitter),
        message: spin
          ? 'retryDelay: 0 with retryJitter: 0 makes redlock retry the acquire with no wait at all: a busy spin against every Redis instance while the lock is held. Give it a retryDelay and a retryJitter.'
          : 'retryJitter: 0 makes every redlock client retry after exactly retryDelay: the clients that lost the race wake at the same moment and collide again. Give retryJitter a share of retryDelay (redlock adds a random wait up to it).',
        fix,
      });
    }
  },
};
