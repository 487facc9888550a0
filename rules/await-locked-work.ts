// Work started while the lock is held and not awaited: the release after it runs at once, the work goes
// on without the lock, and the next holder's run overlaps it. Only calls that show, where they are
// written, that they hand back a promise count: a promise chain, Promise.all, forEach with an async
// callback, a parameter typed as returning a Promise. Not a call of an async function declared
// elsewhere in the file: the lean parse (engine/lock-text.ts) blanks such declarations, and both parses
// must agree. `void work()` says fire-and-forget on purpose.
import { ts } from './engine/typescript';
import { describeKey } from './engine/keys';
import type { Acquire, LockModel } from './engine/model';
import { declarationOf, isFunctionLike, methodOf, spanOf, unwrap, type Node } from './engine/nodes';
import { releasesLock } from './engine/paths';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import type { Rule } from './rule';
import type { Fix } from './types';

const PROMISE_CHAIN = new Set(['then', 'catch', 'finally']);
const PROMISE_COMBINATOR = /^Promise\.(?:all|allSettled|race|any)$/;

function isAsync(fn: Node): boolean {
  return isFunctionLike(fn) && (ts.getCombinedModifierFlags(fn as ts.Declaration) & ts.ModifierFlags.Async) !== 0;
}

/** `work: () => Promise<void>`, `job: (signal: AbortSignal) => Promise<T>`: a parameter typed as async work. */
function promiseParameter(callee: Node): boolean {
  if (!ts.isIdentifier(callee)) return false;
  const decl = declarationOf(callee);
  const type = decl && ts.isParameter(decl) ? decl.type : undefined;
  return !!type && ts.isFunctionTypeNode(type) && /^Promise\s*</.test(type.type.getText());
}

/** What makes this call's promise one the release does not wait for; undefined when it may be none. */
function unawaitedPromise(call: ts.CallExpression): string | undefined {
  const method = methodOf(call);
  if (method && PROMISE_CHAIN.has(method.name)) return 'a promise chain';
  if (PROMISE_COMBINATOR.test(unwrap(call.expression).getText())) return 'a promise';
  if (method?.name === 'forEach') {
    const callback = call.arguments[0] && unwrap(call.arguments[0]);
    return callback && isAsync(callback) ? 'forEach with an async callback: nothing awaits the promises it starts' : undefined;
  }
  return promiseParameter(unwrap(call.expression)) ? 'work typed as returning a Promise' : undefined;
}

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

/** The expression statements of `fn` itself (not of nested functions) that lie inside [from, until). */
function statementsBetween(fn: Node, from: number, until: number): ts.ExpressionStatement[] {
  const found: ts.ExpressionStatement[] = [];
  const visit = (n: ts.Node): void => {
    // Only the subtrees that overlap the range: a lock-heavy file has many acquires in one function.
    if (n.end <= from || n.pos >= until || (n !== fn && isFunctionLike(n))) return;
    if (ts.isExpressionStatement(n) && n.pos >= from && n.end <= until) found.push(n);
    ts.forEachChild(n, visit);
  };
  visit(fn);
  return found;
}

/** The statements between the acquire and its last release in its own function that start work and drop it. */
function droppedWork(model: LockModel, acquire: Acquire, lockCalls: ReadonlySet<Node>): Array<{ call: ts.CallExpression; why: string }> {
  let until = -1;
  for (const r of model.releases) if (r.fn === acquire.fn && r.call.pos > acquire.call.end && r.call.pos > until && releasesLock(acquire, r)) until = r.call.pos;
  if (until < 0) return [];
  const found: Array<{ call: ts.CallExpression; why: string }> = [];
  for (const statement of statementsBetween(acquire.fn, acquire.call.end, until)) {
    const call = unwrap(statement.expression);
    if (!ts.isCallExpression(call) || lockCalls.has(call)) continue;
    const why = unawaitedPromise(call);
    if (why) found.push({ call, why });
  }
  return found;
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
