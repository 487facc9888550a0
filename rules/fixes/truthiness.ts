// Whether an acquire's result is only used for its truthiness, so that replacing SETNX (1|0, or a
// boolean in node-redis v4) by SET NX ('OK'|null) keeps the code's meaning and its types.
import { ts } from '../engine/typescript';
import type { Acquire } from '../engine/model';
import { enclosingFunction, identifiersNamed, type Node } from '../engine/nodes';

function truthyPosition(node: Node): boolean {
  let current = node;
  for (;;) {
    const parent = current.parent;
    if (!parent) return false;
    if (ts.isParenthesizedExpression(parent) || ts.isAwaitExpression(parent)) {
      current = parent;
      continue;
    }
    if (ts.isIfStatement(parent) || ts.isWhileStatement(parent) || ts.isDoStatement(parent)) return parent.expression === current;
    if (ts.isConditionalExpression(parent)) return parent.condition === current;
    if (ts.isPrefixUnaryExpression(parent)) return parent.operator === ts.SyntaxKind.ExclamationToken;
    if (ts.isBinaryExpression(parent)) {
      const op = parent.operatorToken.kind;
      if (op !== ts.SyntaxKind.AmpersandAmpersandToken && op !== ts.SyntaxKind.BarBarToken) return false;
      // `a && b` is itself used for truthiness only if it stands in a condition.
      if (parent.left === current) return true;
      current = parent;
      continue;
    }
    return false;
  }
}

export function resultUsedOnlyAsTruthy(acquire: Acquire): boolean {
  const use = acquire.result;
  if (use.kind === 'discarded' || use.kind === 'tested') return use.kind === 'discarded' || truthyPosition(acquire.call);
  if (use.kind !== 'assigned') return false;
  const fn = enclosingFunction(use.declaration);
  return identifiersNamed(fn, use.name)
    .filter((id) => id.getStart() >= use.declaration.end)
    .every((id) => truthyPosition(id));
}
