// redlock v5 `lock.extend(ms)` returns a NEW Lock and invalidates the old one: discarding the result
// means the next extend or release acts on a dead lock.
import { ts } from './engine/typescript';
import type { Extend, LockModel } from './engine/model';
import { descendantsOfKind, isConstList, isFunctionOrArrow, literalString, methodOf, nameOf, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import type { Rule } from './rule';
import type { Fix, TextEdit } from './types';

/** The handle expression (`lock`, `this.lock`) an extend acts on. */
function handleExpression(extend: Extend): Node | undefined {
  const m = methodOf(extend.call);
  if (!m) return undefined;
  if (m.name === 'extend' && extend.call.arguments.length === 1) return unwrap(m.receiver);
  return extend.call.arguments[0]; // redlock.extend(lock, ms)
}

/**
 * redlock v4 (the package lists it, lock() acquires, callbacks are taken, or acquire() is handed one
 * resource string); v5 returns promises only, takes no callback and acquires a list of resources.
 */
function isV4(model: LockModel, extend: Extend): boolean {
  if (model.redlockMajor !== undefined && model.imports.modules.has('redlock')) return model.redlockMajor < 5;
  if (extend.call.arguments.some(isFunctionOrArrow)) return true;
  return model.acquires.some((a) => a.kind === 'redlock' && a.owner === extend.handle && (methodOf(a.call)?.name === 'lock' || oneResource(a.call)));
}

/** `redlock.acquire('locks:x', ttl)`: a resource string, where v5 takes an array. */
const oneResource = (call: ts.CallExpression) => {
  const first = call.arguments[0];
  return methodOf(call)?.name === 'acquire' && !!first && (literalString(first) !== undefined || ts.isTemplateExpression(unwrap(first)));
};

function fix(model: LockModel, extend: Extend, handle: Node): Fix | undefined {
  const carrier = valueCarrier(extend.call);
  const edits: TextEdit[] = [{ start: carrier.getStart(), end: carrier.getStart(), newText: `${handle.getText()} = ` }];
  if (ts.isIdentifier(handle)) {
    const decl = descendantsOfKind<ts.VariableDeclaration>(model.sourceFile, ts.SyntaxKind.VariableDeclaration)
      .find((d) => nameOf(d) === handle.text && d.getStart() < extend.call.getStart());
    const list = decl?.parent;
    if (!list || !ts.isVariableDeclarationList(list)) return undefined;
    if (isConstList(list)) {
      if (list.declarations.length !== 1) return undefined;
      const start = list.getStart(); // the `const` keyword
      edits.unshift({ start, end: start + 'const'.length, newText: 'let' });
    }
  }
  return { title: `Keep the extended lock (${handle.getText()} = await ...extend())`, isPreferred: true, edits };
}

export const useExtendedLock: Rule = {
  id: 'use-extended-lock',
  defaultSeverity: 'error',
  unattendedFixes: true,
  summary: 'The result of redlock v5 lock.extend() is discarded; it returns a new Lock and the old one is dead.',
  check({ model, report }) {
    for (const extend of model.extends) {
      if (extend.kind !== 'library' || !extend.handle || isV4(model, extend)) continue;
      if (!ts.isExpressionStatement(valueCarrier(extend.call).parent)) continue;
      const handle = handleExpression(extend);
      if (!handle) continue;
      report({
        span: spanOf(extend.call),
        message: `The Lock returned by extend() is discarded. redlock v5 returns a new Lock and marks ${handle.getText()} expired: the next ${handle.getText()}.extend() throws ExecutionError ("Cannot extend an already-expired lock"), so the lock is not renewed and expires under the work. Assign the result: ${handle.getText()} = await ${handle.getText()}.extend(ms).`,
        fix: () => fix(model, extend, handle),
      });
    }
  },
};
