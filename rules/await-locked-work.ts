// Work started while the lock is held and not awaited: the release after it runs at once, the work goes
// on without the lock, and the next holder's run overlaps it. What counts as such work is read by
// engine/unsettled-work.ts (droppedWork), beside the returned and held promises release-on-all-paths
// reports. `void work()` says fire-and-forget on purpose.
import { ts } from './engine/typescript';
import { describeKey } from './engine/keys';
import { methodOf, spanOf, type Node } from './engine/nodes';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import { droppedWork, isAsync } from './engine/unsettled-work';
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
  },
};
