// A release written in an RxJS operator on the work's stream, a NestJS interceptor's shape:
// `from(lock(key)).pipe(switchMap((lock) => next.handle().pipe(switchMap(async (r) => { await
// lock.release(); return r; }))))`. Such an operator runs for each value the work emits; when the work
// errors (the handler threw), it never runs, and unless a `finalize` or `catchError` releases, nothing
// does: the lock stays held until its TTL.
import { ts } from './typescript';
import type { Acquire, LockModel, Release } from './model';
import { releasesSomething } from './failure-paths';
import { ancestorWhere, calleeName, callsNamed, contains, isFunctionLike } from './nodes';

/** Operators that run only for the values of their source. */
const ON_VALUE = /^(?:switchMap|mergeMap|concatMap|exhaustMap|flatMap|map|tap)$/;
/** Operators that run when the source errors (or ends either way). */
const ON_ERROR = /^(?:finalize|catchError)$/;

export interface RxGap {
  release: Release;
  /** The stream whose error skips the release. */
  work: ts.Expression;
  /** The operator the release is written in. */
  operator: string;
}

/** The first release of `acquire` (of those given, all of this lock) written only in an operator on another stream's values. */
export function rxValueGap(model: LockModel, acquire: Acquire, releases: readonly Release[]): RxGap | undefined {
  const gap = valueOperatorRelease(acquire, releases);
  // Asked only of a release in an operator: a walk of the function for each acquire showed in the profile.
  const onError = gap && callsNamed(acquire.fn, (name) => ON_ERROR.test(name)).some((call) => call.arguments.some((a) => releasesSomething(model, a)));
  return onError ? undefined : gap;
}

function valueOperatorRelease(acquire: Acquire, releases: readonly Release[]): RxGap | undefined {
  for (const release of releases) {
    if (release.call.pos < acquire.call.end) continue;
    for (let fn = ancestorWhere(release.call, isFunctionLike); fn && fn !== acquire.fn && contains(acquire.fn, fn); fn = ancestorWhere(fn, isFunctionLike)) {
      const operator = fn.parent;
      const name = ts.isCallExpression(operator) && operator.arguments[0] === fn ? calleeName(operator) : undefined;
      if (!name || !ON_VALUE.test(name)) continue;
      const pipe = operator.parent;
      const access = ts.isCallExpression(pipe) && pipe.arguments.includes(operator as ts.CallExpression) ? pipe.expression : undefined;
      if (!access || !ts.isPropertyAccessExpression(access) || access.name.text !== 'pipe') continue;
      // The acquire's own stream hands the lock on: its values are the acquired lock, not the work.
      if (contains(access.expression, acquire.call)) continue;
      return { release, work: access.expression, operator: name };
    }
  }
  return undefined;
}
