// Taking several locks one by one (a loop over keys) or at once (Promise.all over keys): when one of
// them fails, the ones already taken must be released, or they stay locked until their TTL (or forever).
import { ts } from './engine/typescript';
import { bodyStatements, enclosingTries, releasedOnThrow, releasesSomething, mentions, throwsIn } from './engine/failure-paths';
import { isGuard, testsFailure } from './engine/paths';
import { describeKey, informative, sameKey, type KeyRef } from './engine/keys';
import { keyVariesWithLoop, type KeyLoop } from './engine/key-loops';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, contains, descendantsWhere, identifiersNamed, isFunctionLike, isLoop, literalTruth, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import { promiseAllOf } from './engine/mapped-acquire';
import type { Rule } from './rule';

/** Acquires that throw when the lock is not available (or whose failure we cannot see otherwise). */
const THROWING = new Set(['redlock', 'semaphore']);

/** The loop over keys the acquire sits in: its key is built from the loop's variable. */
function keyLoop(acquire: Acquire): KeyLoop | undefined {
  const loop = ancestorWhere(acquire.call, (a) => isLoop(a) || ts.isForOfStatement(a) || ts.isForInStatement(a) || isFunctionLike(a));
  if (!loop || !(ts.isForOfStatement(loop) || ts.isForInStatement(loop) || ts.isForStatement(loop))) return undefined;
  return keyVariesWithLoop(loop, acquire) ? loop : undefined;
}

/** Released in the same iteration or callback: each key is its own lock, not part of a set. */
function selfContained(model: LockModel, acquire: Acquire, scope: Node): boolean {
  const key = acquire.key;
  return !!key && model.releases.some((r) => contains(scope, r.call) && ((r.key && sameKey(r.key, key)) || (!!acquire.owner && r.handle === acquire.owner)));
}

function isAcquireTest(acquire: Acquire, exit: Node): boolean {
  const test = ancestorWhere<ts.IfStatement>(exit, ts.isIfStatement);
  return !!test && (contains(test.expression, acquire.call) || mentions(test.expression, acquire.result.kind === 'assigned' ? [acquire.result.name] : []));
}

/** A way out of the loop: throw/return inside it, or a break of this loop. */
function exitsOf(loop: KeyLoop, fn: Node): Node[] {
  return descendantsWhere(loop.statement, (d) => {
    if (ancestorWhere(d, isFunctionLike) !== fn) return false;
    if (ts.isThrowStatement(d) || ts.isReturnStatement(d)) return true;
    return ts.isBreakStatement(d) && !d.label && ancestorWhere(d, (a) => a === loop || isLoop(a) || ts.isForOfStatement(a) || ts.isForInStatement(a) || ts.isSwitchStatement(a)) === loop;
  });
}

/**
 * Does the exit's own branch release the keys taken so far before leaving, or a catch/finally around it?
 * Releasing another lock there (the account lock taken before the loop) leaves these held.
 */
function covered(model: LockModel, exit: Node, acquire: Acquire, fn: Node = acquire.fn): boolean {
  const block = exit.parent;
  // A key that says nothing of itself (`key` of a list of taken keys) may be one of these.
  const ofThisLock = (key: KeyRef | undefined, handle?: string) => !key || !acquire.key || !informative(key.glob) || sameKey(key, acquire.key) || (!!acquire.owner && handle === acquire.owner);
  if (ts.isBlock(block) && block.statements.some((s) => s.end <= exit.getStart() && releasesSomething(model, s, ofThisLock))) return true;
  return releasedOnThrow(model, exit, fn);
}

/**
 * `for (const id of ids) { if (!(await lock(id))) continue; picked = id; break; }`: the first free one.
 * Only a failed acquire goes on to the next key and a taken one leaves the loop, so it never holds two.
 */
function takesFirstFree(loop: KeyLoop, acquire: Acquire): boolean {
  const body = bodyStatements(loop.statement);
  const endsInContinue = (branch: Node) => bodyStatements(branch).slice(-1).some(ts.isContinueStatement);
  const guard = body.findIndex((s) => ts.isIfStatement(s) && !s.elseStatement && isGuard(s, acquire) && testsFailure(s.expression) &&
    endsInContinue(s.thenStatement));
  if (guard < 0) return false;
  const leave = body.findIndex((s, i) => i > guard && ((ts.isBreakStatement(s) && !s.label) || ts.isReturnStatement(s)));
  return leave > guard && !body.slice(guard + 1, leave).some((s) => descendantsWhere(s, ts.isContinueStatement).length > 0);
}

/**
 * `runJob({ id }).catch(log);` as a statement: a job started and left to run, its failure handled by its own
 * chain. Each is a lock of its own; none is part of a set the loop holds, and none leaves the loop.
 */
function detached(acquire: Acquire): boolean {
  let n: Node = acquire.call;
  while (ts.isPropertyAccessExpression(n.parent) || (ts.isCallExpression(n.parent) && n.parent.expression === n) || ts.isParenthesizedExpression(n.parent)) n = n.parent;
  return ts.isExpressionStatement(n.parent) && n !== acquire.call;
}

function loopProblem(model: LockModel, acquire: Acquire): { at: Node; exit: Node } | undefined {
  const loop = keyLoop(acquire);
  if (!loop || selfContained(model, acquire, loop.statement) || takesFirstFree(loop, acquire) || detached(acquire)) return undefined;
  const exits = exitsOf(loop, acquire.fn);
  const throwing = THROWING.has(acquire.kind) || (acquire.kind === 'helper' && acquire.result.kind !== 'assigned' && acquire.result.kind !== 'tested');
  const candidates = throwing ? [acquire.call, ...exits] : exits.filter((e) => isAcquireTest(acquire, e) || e.getStart() > acquire.call.end);
  const exit = candidates.find((e) => !covered(model, e, acquire));
  return exit ? { at: loop, exit } : undefined;
}

/**
 * A way out that says the keys were not all taken: a throw, or a return of nothing, of a falsy value or
 * of `{ ok: false }`. A return of the token or of `true` after testing the answers is the way out with
 * all of them (`if (won >= quorum) return token;`).
 */
function leavesEmptyHanded(exit: Node): boolean {
  if (!ts.isReturnStatement(exit) || !exit.expression) return true;
  const value = unwrap(exit.expression);
  if (ts.isObjectLiteralExpression(value)) return value.properties.some((p) => ts.isPropertyAssignment(p) && literalTruth(p.initializer) === false);
  return literalTruth(value) === false;
}

function promiseAllProblem(model: LockModel, acquire: Acquire): { at: Node; exit: Node } | undefined {
  const all = promiseAllOf(acquire);
  if (!all || selfContained(model, acquire, acquire.fn)) return undefined;
  const fn = ancestorWhere(all, isFunctionLike) ?? all.getSourceFile();
  const failsInside = THROWING.has(acquire.kind) || descendantsWhere(acquire.fn, ts.isThrowStatement).length > 0;
  // A callback that catches its own acquire's failure (and does not throw it on) never rejects the Promise.all.
  const caught = enclosingTries(acquire.call, acquire.fn).some((t) => t.catchClause && !throwsIn(t.catchClause.block));
  const rejects = failsInside && !caught && unwrap(all.expression).getText() === 'Promise.all';
  if (rejects && !releasedOnThrow(model, all, fn)) return { at: all, exit: all };
  // The answers tested after the Promise.all: `if (results.some((r) => !r)) throw ...`.
  const carrier = valueCarrier(all).parent;
  const name = carrier && ts.isVariableDeclaration(carrier) && ts.isIdentifier(carrier.name) ? carrier.name.text : undefined;
  if (!name) return undefined;
  for (const id of identifiersNamed(fn, name)) {
    if (id.pos < all.end) continue;
    const test = ancestorWhere<ts.IfStatement>(id, ts.isIfStatement);
    if (!test || !contains(test.expression, id)) continue;
    const isExit = (d: Node) => (ts.isThrowStatement(d) || ts.isReturnStatement(d)) && ancestorWhere(d, isFunctionLike) === fn;
    const exit = isExit(test.thenStatement) ? test.thenStatement : descendantsWhere(test.thenStatement, isExit)[0];
    if (exit && leavesEmptyHanded(exit) && !covered(model, exit, acquire, fn)) return { at: all, exit };
  }
  return undefined;
}

export const rollbackPartialAcquire: Rule = {
  id: 'rollback-partial-acquire',
  defaultSeverity: 'warning',
  summary: 'A multi-key acquire (loop or Promise.all over keys) whose failure path leaves the keys already taken locked.',
  check({ model, report }) {
    const reported = new Set<Node>();
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock') continue;
      const problem = loopProblem(model, acquire) ?? promiseAllProblem(model, acquire);
      if (!problem || reported.has(problem.at)) continue;
      reported.add(problem.at);
      const key = describeKey(acquire.key);
      const exitText = problem.exit === problem.at ? 'a rejected acquire' : `\`${problem.exit.getText().split('\n')[0].slice(0, 50)}\``;
      const held = acquire.hasTtl ? 'until their TTL runs out' : 'forever, since they have no TTL';
      report({
        span: ts.isCallExpression(problem.at) ? spanOf(problem.at) : { start: problem.at.getStart(), end: problem.at.getStart() + 3 },
        message: `This takes the locks ${key} one key at a time, and when one fails, ${exitText} leaves without releasing the ones already taken: they stay locked ${held}, and every other worker that needs any of them is blocked (two workers can each hold half the set). Release the keys taken so far on the failure path (catch or finally), or take all keys in one atomic step (a Lua script, or redlock.acquire with all resources).`,
        related: [{ span: spanOf(acquire.call), message: 'the acquire of each key' }, ...(problem.exit !== problem.at ? [{ span: spanOf(problem.exit), message: 'leaves without releasing' }] : [])],
      });
    }
  },
};
