// redlock v5 `lock.extend(ms)` returns a NEW Lock and invalidates the old one: discarding the result
// means the next extend or release acts on a dead lock.
import { Node, SyntaxKind, VariableDeclarationKind } from 'ts-morph';
import type { Extend, LockModel } from './engine/model';
import { descendantsOfKind, methodOf, spanOf, unwrap, valueCarrier } from './engine/nodes';
import type { Rule } from './rule';
import type { Fix, TextEdit } from './types';

/** The handle expression (`lock`, `this.lock`) an extend acts on. */
function handleExpression(extend: Extend): Node | undefined {
  const m = methodOf(extend.call);
  if (!m) return undefined;
  if (m.name === 'extend' && extend.call.getArguments().length === 1) return unwrap(m.receiver);
  return extend.call.getArguments()[0]; // redlock.extend(lock, ms)
}

function isV4(model: LockModel, handle: string): boolean {
  return model.acquires.some((a) => a.kind === 'redlock' && a.owner === handle && methodOf(a.call)?.name === 'lock');
}

function fix(model: LockModel, extend: Extend, handle: Node): Fix | undefined {
  const carrier = valueCarrier(extend.call);
  const edits: TextEdit[] = [{ start: carrier.getStart(), end: carrier.getStart(), newText: `${handle.getText()} = ` }];
  if (Node.isIdentifier(handle)) {
    const decl = descendantsOfKind(model.sourceFile, SyntaxKind.VariableDeclaration)
      .find((d) => d.getName() === handle.getText() && d.getStart() < extend.call.getStart());
    const list = decl?.getParent();
    if (!decl || !Node.isVariableDeclarationList(list)) return undefined;
    if (list.getDeclarationKind() === VariableDeclarationKind.Const) {
      if (list.getDeclarations().length !== 1) return undefined;
      const keyword = list.getFirstChild();
      if (!keyword) return undefined;
      edits.unshift({ ...spanOf(keyword), newText: 'let' });
    }
  }
  return { title: `Keep the extended lock (${handle.getText()} = await ...extend())`, isPreferred: true, edits };
}

export const useExtendedLock: Rule = {
  id: 'use-extended-lock',
  defaultSeverity: 'error',
  summary: 'The result of redlock v5 lock.extend() is discarded; it returns a new Lock and the old one is dead.',
  check({ model, report }) {
    for (const extend of model.extends) {
      if (extend.kind !== 'library' || !extend.handle || isV4(model, extend.handle)) continue;
      const parent = valueCarrier(extend.call).getParent();
      if (!parent || !Node.isExpressionStatement(parent)) continue;
      const handle = handleExpression(extend);
      if (!handle) continue;
      report({
        span: spanOf(extend.call),
        message: `The Lock returned by extend() is discarded. redlock v5 returns a new Lock and marks ${handle.getText()} expired: the next ${handle.getText()}.extend() throws ExecutionError ("Cannot extend an already-expired lock"), so the lock is not renewed and expires under the work. Assign the result: ${handle.getText()} = await ${handle.getText()}.extend(ms).`,
        fixes: [fix(model, extend, handle)].filter((f): f is Fix => !!f),
      });
    }
  },
};
