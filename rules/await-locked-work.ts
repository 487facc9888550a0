// Work started while the lock is held and not awaited: the release after it runs at once, the work goes
// on without the lock, and the next holder's run overlaps it. What counts as such work is read by
// engine/unsettled-work.ts (droppedWork), beside the returned and held promises release-on-all-paths
// reports. `void work()` says fire-and-forget on purpose.
import { ts } from './engine/typescript';
import { describeKey } from './engine/keys';
import { declarationOf, isFunctionLike, methodOf, spanOf, unwrap, type Node } from './engine/nodes';
import { helperRelated } from './engine/helper-related';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import { asyncFunctionsOf, droppedWork, isAsync, unawaitedPromise } from './engine/unsettled-work';
import type { Rule } from './rule';
import type { Fix } from './types';

/** `await work()`, or for forEach the awaited `Promise.all` over the same callback. */
function awaitFix(call: ts.CallExpression): Fix {
  const method = methodOf(call);
  const start = call.getStart();
  if (method?.name === 'forEach') {
    const args = call.arguments.map((a) => a.getText()).join(', ');
    return {
      title: 'Await every callback (await Promise.all(items.map(...)))',
      isPreferred: true,
      edits: [{ start, end: call.end, newText: `await Promise.all(${method.receiver.getText()}.map(${args}))` }],
    };
  }
  return { title: 'Await the work before the release', isPreferred: true, edits: [{ start, end: start, newText: 'await ' }] };
}

export const awaitLockedWork: Rule = {
  id: 'await-locked-work',
  defaultSeverity: 'warning',
  summary: 'Work started under the lock and not awaited: the release runs before it ends, and the next holder overlaps it.',
  check({ model, report }) {
    const reported = new Set<Node>();
    const lockCalls = new Set<Node>([...model.acquires, ...model.releases, ...model.extends].map((o) => o.call));
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock' || acquire.kind === 'routine') continue;
      if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) continue;
      for (const { call, why } of droppedWork(model, acquire, lockCalls)) {
        if (reported.has(call)) continue;
        reported.add(call);
        const key = acquire.key ? describeKey(acquire.key) : (acquire.owner ?? 'the lock');
        report({
          span: spanOf(call),
          message: `\`${call.getText().split('\n')[0].slice(0, 60)}\` starts ${why} and is not awaited, so the release of ${key} after it runs at once: the lock is gone while the work still runs, and the next holder's run overlaps it (and a failure of the work is never seen here). Await it before the release.`,
          related: [{ span: spanOf(acquire.call), message: 'the acquire' }],
          fix: () => (isAsync(acquire.fn) ? awaitFix(call) : 'the function holding the lock is not async: await the work in an async function, or release in its .finally()'),
        });
      }
    }
    // A project helper that runs the routine without awaiting it (`try { task(); } finally { release }`),
    // handed an async routine here: known only at the call, where the routine is seen to be async.
    for (const acquire of model.acquires) {
      const dropped = acquire.via?.routineDropped;
      const routine = acquire.routine && unwrap(acquire.routine);
      if (!dropped || !routine || !asyncRoutine(routine)) continue;
      const key = acquire.key ? describeKey(acquire.key) : 'the lock';
      report({
        span: headSpan(routine),
        message: `\`${acquire.via!.name}\` calls this async routine without awaiting it, so its release of ${key} runs as soon as the routine starts: the lock is gone while the work still runs, and the next holder's run overlaps it (and a failure of the work is never seen there). Await the routine in the helper.`,
        related: helperRelated({ ...acquire.via!, at: dropped }, 'the call of the routine, not awaited'),
        fix: () => 'No automatic fix: the routine is called in another file; await it there.',
      });
    }
  },
};

/** `async () =>` or `async function name(...)` of a routine written at the call: not its whole body. */
function headSpan(routine: Node): { start: number; end: number } {
  if (ts.isArrowFunction(routine)) return { start: routine.getStart(), end: routine.equalsGreaterThanToken.end };
  if (ts.isFunctionExpression(routine)) return { start: routine.getStart(), end: routine.parameters.end + 1 };
  return spanOf(routine);
}

/**
 * An `async` function or arrow, one named by an async function of the file (read from its text, as a
 * lean parse may leave the declaration out), or an arrow handing back such work (`() => rebuild(db)`).
 */
function asyncRoutine(routine: Node): boolean {
  if (ts.isArrowFunction(routine) && !ts.isBlock(routine.body)) {
    const body = unwrap(routine.body);
    if (ts.isCallExpression(body) && unawaitedPromise(body)) return true;
  }
  if (isFunctionLike(routine)) return isAsync(routine);
  if (!ts.isIdentifier(routine)) return false;
  const declared = declarationOf(routine);
  const value = declared && ts.isVariableDeclaration(declared) ? declared.initializer && unwrap(declared.initializer) : declared;
  return value && isFunctionLike(value) ? isAsync(value) : asyncFunctionsOf(routine.getSourceFile()).has(routine.text);
}
