// Work under redlock.using / withLock must watch the lock's AbortSignal: when an extension fails the
// lock is gone, and work that goes on runs unprotected next to the new holder.
import { ts } from './engine/typescript';
import type { Acquire } from './engine/model';
import { indentOf } from './fixes/text';
import type { Rule } from './rule';
import type { Fix, TextEdit } from './types';
import { descendantsOfKind, descendantsWhere, identifiersNamed, isFunctionOrArrow, unwrap } from './engine/nodes';
import { helperRelated } from './engine/helper-related';

type Routine = ts.ArrowFunction | ts.FunctionExpression;

function signalName(routine: Routine, index: number): string | undefined | null {
  const param = routine.parameters[index];
  if (!param) return undefined;
  return ts.isIdentifier(param.name) ? param.name.text : null; // null: destructured, cannot judge
}

function readsSignal(routine: Routine, name: string): boolean {
  return identifiersNamed(routine.body, name).length > 0;
}

/** Adds the parameter if missing, and `signal.throwIfAborted()` after each awaited step but the last. */
function fix(routine: Routine, name: string | undefined): Fix | undefined {
  const body = routine.body;
  if (!ts.isBlock(body)) return undefined;
  const steps = body.statements.filter((s) => descendantsOfKind(s, ts.SyntaxKind.AwaitExpression).length > 0);
  if (steps.length < 2) return undefined;
  const signal = name ?? 'signal';
  const edits: TextEdit[] = [];
  if (!name) {
    // The parameter list starts right after its `(`.
    const open = routine.parameters.pos;
    if (routine.getSourceFile().text[open - 1] !== '(') return undefined;
    edits.push({ start: open, end: open, newText: signal });
  }
  for (const step of steps.slice(0, -1)) {
    edits.push({ start: step.end, end: step.end, newText: `\n${indentOf(step)}${signal}.throwIfAborted();` });
  }
  return { title: `Check ${signal} between the awaited steps`, isPreferred: true, edits };
}

/**
 * `() => Promise.resolve()`: a routine that awaits and calls nothing (a probe of whether the lock is
 * free) has no step that could go on once the lock is lost.
 */
function doesNothing(routine: Routine): boolean {
  const settles = (call: ts.CallExpression) => /^Promise\.(?:resolve|reject)$/.test(unwrap(call.expression).getText());
  const body = unwrap(routine.body);
  const own = ts.isCallExpression(body) ? [body] : [];
  return ![...own, ...descendantsWhere(body, (d) => ts.isCallExpression(d) || ts.isNewExpression(d) || ts.isAwaitExpression(d) || ts.isTaggedTemplateExpression(d))].some((d) => !ts.isCallExpression(d) || !settles(d));
}

function routineOf(acquire: Acquire): Routine | undefined {
  const r = acquire.routine;
  return isFunctionOrArrow(r) ? r : undefined;
}

export const respectAbortSignal: Rule = {
  id: 'respect-abort-signal',
  defaultSeverity: 'warning',
  summary: 'A redlock.using / withLock routine that never reads, checks or forwards the lock\'s AbortSignal.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (acquire.kind !== 'redlock-using' && acquire.kind !== 'with-lock') continue;
      const routine = routineOf(acquire);
      if (!routine || doesNothing(routine)) continue;
      const index = acquire.signalArg ?? 0;
      const name = signalName(routine, index);
      if (name === null || (name && readsSignal(routine, name))) continue;
      // Parameters before the signal's must be there for a fix to add it.
      if (!name && index > 0) continue;
      const api = acquire.via ? acquire.via.name : acquire.kind === 'with-lock' ? 'withLock' : 'redlock.using';
      const body = routine.body;
      report({
        span: { start: routine.getStart(), end: body.getStart() },
        message: `This ${api} routine ${name ? `never reads its ${name} parameter` : 'does not take the AbortSignal'}. The signal aborts when the lock is lost or about to lapse (it could not be extended, or its time is nearly up), and work that does not check it keeps running next to the next holder. Check signal.aborted (or call signal.throwIfAborted()) between steps, or pass the signal on (fetch, database clients).`,
        related: helperRelated(acquire.via, `${acquire.via?.name} aborts this signal when the lock is lost`),
        fix: () => fix(routine, name),
      });
    }
  },
};
