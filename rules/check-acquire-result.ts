// The result of an NX acquire (or redis-semaphore tryAcquire) is ignored: the critical section runs
// whether or not this process got the lock.
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import { callsNamed, enclosingFunction, identifiersNamed, isAwaited, methodOf, spanOf, unwrap, unwrapAwait, valueCarrier, type Node } from './engine/nodes';
import { resultUse } from './engine/result-use';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import { indentOf } from './fixes/text';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';
import { leadingComments, onlyObserves, saysFailOpen } from './engine/failure-paths';
import { helperRelated } from './engine/helper-related';
import { eitherWayGuard, invertedGuard, neverAcquiredTest } from './engine/inverted-guard';
import { goesOnWhenBusy } from './engine/busy-path';

/**
 * A project helper whose return value says whether the lock was taken: its reply, a token or null, a
 * release function that is null when busy, or a lock object with a field saying so.
 */
function helperTells(acquire: Acquire): boolean {
  const via = acquire.via;
  return acquire.kind === 'helper' && (via?.returns === 'reply' || via?.returns === 'token' || !!via?.emptyWhenBusy || !!via?.acquiredField);
}

/**
 * What was handed back is used but never asked whether the lock was taken: a release function only
 * called (`release?.()` after the work), a lock object whose acquired field is never read.
 */
function handedBackUntested(acquire: Acquire): { message: string; at: Node } | undefined {
  const use = acquire.result;
  const via = acquire.via;
  if (use.kind !== 'assigned' || !use.readLater || !via || (!via.emptyWhenBusy && !via.acquiredField)) return undefined;
  const reads = readsAfter(use.declaration, use.name);
  if (via.emptyWhenBusy && !use.tested && reads.every((id) => ts.isCallExpression(id.parent) && id.parent.expression === id)) {
    return { message: 'is only called, never tested', at: acquire.call };
  }
  const field = via.acquiredField;
  const member = (id: Node) => (ts.isPropertyAccessExpression(id.parent) && id.parent.expression === id ? id.parent.name.text : undefined);
  // `if (!lock) return`: the object is there whether or not the lock was taken, so that test always passes.
  const truthTest = (id: Node) => !!via.objectWhenBusy && conditionOf(id);
  if (field && reads.every((id) => (member(id) !== undefined && member(id) !== field) || truthTest(id))) {
    const test = reads.find(truthTest);
    if (test) {
      const tested = ts.isPrefixUnaryExpression(test.parent) ? test.parent : test;
      return { message: `is tested as \`${tested.getText()}\`, but ${via.name} hands back an object whether or not the lock was taken, so that test always lets the work run: test \`${use.name}.${field}\``, at: tested };
    }
    return { message: `is stored in ${use.name}, whose \`${field}\` is never read`, at: acquire.call };
  }
  return undefined;
}

function isAsync(fn: Node): boolean {
  const canBeAsync = ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn) || ts.isArrowFunction(fn) || ts.isMethodDeclaration(fn);
  return canBeAsync && !!fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
}

/** A reference to the un-awaited result that is tested as if it were the reply (a Promise is always truthy). */
function promiseTested(acquire: Acquire): Node | undefined {
  const use = acquire.result;
  if (use.kind !== 'assigned' || use.awaited) return undefined;
  return identifiersNamed(enclosingFunction(use.declaration), use.name)
    .find((id) => id.getStart() > use.declaration.end && !isAwaited(id) && conditionOf(id));
}

function conditionOf(id: Node): boolean {
  const parent = id.parent;
  return (
    (ts.isIfStatement(parent) && parent.expression === id) ||
    (ts.isPrefixUnaryExpression(parent) && parent.operator === ts.SyntaxKind.ExclamationToken) ||
    (ts.isConditionalExpression(parent) && parent.condition === id)
  );
}

/** Does the statement do nothing but call these releases (`await locks.release(key, id);`, a block of them)? */
function onlyReleases(statement: ts.Statement, releaseCalls: ReadonlySet<Node>): boolean {
  if (ts.isBlock(statement)) return statement.statements.length > 0 && statement.statements.every((s) => onlyReleases(s, releaseCalls));
  // `try { await release() } catch (err) { log(err) }`: a release whose failure is only observed.
  if (ts.isTryStatement(statement)) {
    const observed = (block: ts.Block | undefined) => !block || onlyObserves(block.statements, statement.getSourceFile());
    return onlyReleases(statement.tryBlock, releaseCalls) && observed(statement.catchClause?.block) && observed(statement.finallyBlock);
  }
  return ts.isExpressionStatement(statement) && releaseCalls.has(unwrapAwait(statement.expression));
}


/**
 * A read that only decides whether to release: `if (token) await release(key, token)` (no else), or
 * `token && release(key, token)`. The work before it ran whether or not the lock was taken.
 */
function guardsOnlyRelease(id: Node, releaseCalls: ReadonlySet<Node>): boolean {
  let test: Node = id;
  const parent = test.parent;
  // `token !== null`, `reply === 'OK'`: the same test spelled out.
  if (ts.isBinaryExpression(parent) && parent.left === id && EQUALITY.has(parent.operatorToken.kind) && LITERAL.test(parent.right.getText())) test = parent;
  const holder = test.parent;
  if (ts.isIfStatement(holder)) return holder.expression === test && !holder.elseStatement && onlyReleases(holder.thenStatement, releaseCalls);
  return (
    ts.isBinaryExpression(holder) &&
    holder.left === test &&
    holder.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
    releaseCalls.has(unwrapAwait(holder.right)) &&
    ts.isExpressionStatement(holder.parent)
  );
}
const EQUALITY = new Set([ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken]);
const LITERAL = /^(?:null|undefined|true|false|\d+|'[^']*'|"[^"]*")$/;

/**
 * `const token = await locks.acquire(key); await work(); await locks.release(key, token)`: the stored
 * reply is read only as an argument of this lock's releases (or as the object whose release method is
 * called: `if (lock) await lock.unlock()`), or to decide whether to release, which
 * may skip an empty token, but the work before them runs whether or not the lock was taken.
 */
function onlyHandedToRelease(model: LockModel, acquire: Acquire): 'handed' | 'guards the release' | undefined {
  const use = acquire.result;
  if (use.kind !== 'assigned' || !use.readLater) return undefined;
  const releaseCalls = new Set<Node>(acquire.key ? model.releasesOn(acquire.key).map((r) => r.call) : []);
  // `releaseAll(locks)`: a helper releasing the lock object by its handle, whatever key it names.
  for (const r of model.releases) if (acquire.owner && r.handle === acquire.owner) releaseCalls.add(r.call);
  const reads = readsAfter(use.declaration, use.name);
  // `release(key, token)`, `releaseAll(locks!)`, the lock object's own `lock.unlock()`, or the handed-back release function called.
  const handed = (id: Node) => {
    const value = valueCarrier(id);
    return (ts.isCallExpression(value.parent) && (value.parent.arguments.includes(value as ts.Expression) || value.parent.expression === value) && releaseCalls.has(value.parent)) ||
      (ts.isPropertyAccessExpression(id.parent) && id.parent.expression === id && releaseCalls.has(id.parent.parent));
  };
  const guards = reads.filter((id) => !handed(id));
  // Tested where no read shows it (the acquire assigned in a loop's condition): tested before the work.
  if ((use.tested && guards.length === 0) || !guards.every((id) => guardsOnlyRelease(id, releaseCalls))) return undefined;
  return guards.length > 0 ? 'guards the release' : 'handed';
}

/** The reads of the variable after its declaration; `this.locks`, a member named like it, is none. */
function readsAfter(declaration: Node, name: string): ts.Identifier[] {
  return identifiersNamed(enclosingFunction(declaration), name).filter((id) => id.pos >= declaration.end && !(ts.isPropertyAccessExpression(id.parent) && id.parent.name === id));
}


/**
 * A command queued on a MULTI or pipeline answers through `exec()`: `const results = await pipeline.exec();
 * ... results[0][1] === 'OK'`. Is the exec's reply read? Then the acquire's answer may be, and is the
 * caller's to test there.
 */
function batchReplyRead(acquire: Acquire): boolean {
  const root = acquire.command?.batch?.root;
  if (!root) return false;
  let exec: ts.CallExpression | undefined;
  if (ts.isIdentifier(root)) {
    exec = callsNamed(acquire.fn, (name) => name === 'exec').find((c) => unwrap(methodOf(c)?.receiver ?? c).getText() === root.text && c.pos > acquire.call.end);
  } else {
    // `redis.multi().set(...).expire(...).exec()`: the chain's own exec.
    for (let n: Node = acquire.call; n.parent && (ts.isPropertyAccessExpression(n.parent) || ts.isCallExpression(n.parent)); n = n.parent) {
      if (ts.isCallExpression(n.parent) && methodOf(n.parent)?.name === 'exec') exec = n.parent;
    }
  }
  return !!exec && resultUse(exec).kind !== 'discarded';
}

function problem(model: LockModel, acquire: Acquire): { message: string; at: Node } | undefined {
  const use = acquire.result;
  if (use.kind === 'discarded' && batchReplyRead(acquire)) return undefined;
  if (use.kind === 'discarded') return { message: 'is ignored', at: acquire.call };
  if (use.kind === 'tested' && !use.awaited) return { message: 'is tested without await: a Promise is always truthy', at: acquire.call };
  if (use.kind === 'assigned' && !use.readLater) return { message: `is stored in ${use.name} but never tested`, at: acquire.call };
  const toRelease = use.kind === 'assigned' ? onlyHandedToRelease(model, acquire) : undefined;
  if (use.kind === 'assigned' && toRelease) {
    const how = toRelease === 'handed' ? 'only handed to the release, never tested' : 'tested only to decide whether to release, after the work ran';
    return { message: `is stored in ${use.name} and ${how}`, at: acquire.call };
  }
  const tested = promiseTested(acquire);
  if (tested) return { message: `is tested as ${tested.getText()} without await: a Promise is always truthy`, at: tested };
  const open = goesOnWhenBusy(model, acquire);
  if (open) return { message: `is tested (\`${open.expression.getText()}\`), but that branch does not stop: it can fall through to the work after it`, at: open.expression };
  return handedBackUntested(acquire);
}

function fix(acquire: Acquire): Fix | undefined {
  // A command queued on a MULTI or pipeline answers through exec(), not its own call.
  if (acquire.result.kind !== 'discarded' || !isAsync(acquire.fn) || acquire.command?.batch) return undefined;
  const statement = valueCarrier(acquire.call).parent;
  if (!ts.isExpressionStatement(statement)) return undefined;
  const indent = indentOf(statement);
  return {
    title: 'Stop when the lock is not acquired (throw)',
    isPreferred: true,
    edits: [{
      ...spanOf(statement),
      newText: `if (!(await ${acquire.call.getText()})) {\n${indent}  throw new Error('lock is held by another process');\n${indent}}`,
    }],
  };
}

export const checkAcquireResult: Rule = {
  id: 'check-acquire-result',
  defaultSeverity: 'error',
  summary: 'The result of an NX acquire or tryAcquire is ignored: the critical section runs even when another process holds the lock.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      const tryStyle = acquire.kind === 'semaphore-try' || helperTells(acquire) || (isRedisAcquire(acquire) && isLockAcquire(model, acquire));
      if (!tryStyle) continue;
      const inverted = isRedisAcquire(acquire) ? invertedGuard(acquire) : undefined;
      if (inverted) {
        report({
          span: spanOf(inverted.expression),
          message: `This test of the NX acquire of ${describeKey(acquire.key)} is the wrong way round: \`${inverted.expression.getText()}\` is true when this process got the lock, and that branch leaves, keeping the lock until its TTL. The work after it runs only when the lock was NOT acquired, at the same time as the process that holds it. Leave when the acquire failed (\`if (!ok)\`) and work when it succeeded.`,
        });
        continue;
      }
      const eitherWay = isRedisAcquire(acquire) ? eitherWayGuard(acquire) : undefined;
      if (eitherWay) {
        report({
          span: spanOf(eitherWay),
          message: `This test of the NX acquire of ${describeKey(acquire.key)} passes either way: \`${eitherWay.getText()}\` is true when this process got the lock and also when the reply says another process holds it, so both go on as the holder, at the same time. Test for success alone (\`=== 'OK'\`) and treat the failure reply as "not acquired".`,
        });
        continue;
      }
      const never = neverAcquiredTest(acquire);
      if (never) {
        report({
          span: spanOf(never.test),
          message: `SET with NX answers 'OK' when it takes ${describeKey(acquire.key)} and null when another process holds it, never ${never.value}: \`${never.test.getText()}\` is always false. This code never goes on as the holder, while the lock it did take stays held until its TTL runs out, blocking everyone (and its own retries). Test \`=== 'OK'\` (or the reply's truthiness).`,
        });
        continue;
      }
      // `// Best-effort lock to avoid a stampede; every branch falls through to the work`: going on without it is the decision.
      if (leadingComments(acquire.statement).some(saysFailOpen)) continue;
      const found = problem(model, acquire);
      if (!found) continue;
      const helper = acquire.via;
      const what = acquire.kind === 'semaphore-try' ? 'tryAcquire()' : helper ? `${helper.name}(...)` : `the NX acquire of ${describeKey(acquire.key)}`;
      const reply = acquire.kind === 'semaphore-try' ? 'false' : acquire.kind === 'setnx' ? '0' : helper?.acquiredField ? `an object whose \`${helper.acquiredField}\` is false` : helper?.emptyWhenBusy ? 'null' : helper ? 'falsy' : 'null';
      report({
        span: spanOf(found.at),
        message: `The result of ${what} ${found.message}. When another process holds the lock the reply is ${reply} and this code runs the critical section anyway, at the same time as the holder. Test the result and stop (or retry with a bound) when it is not acquired.`,
        related: helperRelated(helper, `the acquire inside ${helper?.name}, whose result it returns`),
        fix: () => fix(acquire),
      });
    }
  },
};
