// Whether an acquire's result is only used for its truthiness, so that replacing SETNX (1|0, or a
// boolean in node-redis v4) by SET NX ('OK'|null) keeps the code's meaning and its types.
import { Node, SyntaxKind } from 'ts-morph';
import type { Acquire } from '../engine/model';
import { enclosingFunction, identifiersNamed } from '../engine/nodes';

function truthyPosition(node: Node): boolean {
  let current = node;
  for (;;) {
    const parent = current.getParent();
    if (!parent) return false;
    if (Node.isParenthesizedExpression(parent) || Node.isAwaitExpression(parent)) {
      current = parent;
      continue;
    }
    if (Node.isIfStatement(parent) || Node.isWhileStatement(parent) || Node.isDoStatement(parent)) return parent.getExpression() === current;
    if (Node.isConditionalExpression(parent)) return parent.getCondition() === current;
    if (Node.isPrefixUnaryExpression(parent)) return parent.getOperatorToken() === SyntaxKind.ExclamationToken;
    if (Node.isBinaryExpression(parent)) {
      const op = parent.getOperatorToken().getKind();
      if (op !== SyntaxKind.AmpersandAmpersandToken && op !== SyntaxKind.BarBarToken) return false;
      // `a && b` is itself used for truthiness only if it stands in a condition.
      if (parent.getLeft() === current) return true;
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
    .filter((id) => id.getText() === use.name && id.getStart() >= use.declaration.getEnd())
    .every((id) => truthyPosition(id));
}
