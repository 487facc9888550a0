// What happens to the value an acquire returns: dropped, stored, tested, or handed on.
import { Node, SyntaxKind, type CallExpression } from 'ts-morph';
import { enclosingFunction, identifiersNamed, isAwaited, valueCarrier } from './nodes';

export type ResultUse =
  | { kind: 'discarded'; awaited: boolean }
  | { kind: 'assigned'; name: string; awaited: boolean; declaration: Node; readLater: boolean; tested: boolean }
  | { kind: 'tested'; awaited: boolean }
  | { kind: 'escapes' };

/** Is this expression read as a condition (if/while/?:/!/&&/||/comparison/switch)? */
export function inConditionPosition(node: Node): boolean {
  let current = node;
  for (let depth = 0; depth < 8; depth++) {
    const parent = current.getParent();
    if (!parent) return false;
    if (Node.isIfStatement(parent) || Node.isWhileStatement(parent) || Node.isDoStatement(parent)) {
      return parent.getExpression() === current;
    }
    if (Node.isForStatement(parent)) return parent.getCondition() === current;
    if (Node.isConditionalExpression(parent)) return parent.getCondition() === current;
    if (Node.isSwitchStatement(parent)) return parent.getExpression() === current;
    if (Node.isPrefixUnaryExpression(parent) && parent.getOperatorToken() === SyntaxKind.ExclamationToken) return true;
    if (Node.isBinaryExpression(parent)) {
      const op = parent.getOperatorToken().getKind();
      if (
        op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken ||
        op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken ||
        op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken || op === SyntaxKind.QuestionQuestionToken
      ) {
        return true;
      }
      return false;
    }
    if (Node.isParenthesizedExpression(parent) || Node.isAwaitExpression(parent) || Node.isAsExpression(parent)) {
      current = parent;
      continue;
    }
    return false;
  }
  return false;
}

export function resultUse(call: CallExpression): ResultUse {
  const awaited = isAwaited(call);
  // Callback style (node_redis v3): the result goes to the callback.
  if (call.getArguments().some((a) => Node.isArrowFunction(a) || Node.isFunctionExpression(a))) return { kind: 'escapes' };
  const carrier = valueCarrier(call);
  const parent = carrier.getParent();
  if (!parent) return { kind: 'escapes' };
  if (Node.isExpressionStatement(parent) || Node.isVoidExpression(parent)) return { kind: 'discarded', awaited };
  if (Node.isVariableDeclaration(parent) && parent.getInitializer() === carrier) {
    const nameNode = parent.getNameNode();
    if (!Node.isIdentifier(nameNode)) return { kind: 'escapes' };
    return assigned(nameNode.getText(), awaited, parent);
  }
  if (Node.isBinaryExpression(parent) && parent.getOperatorToken().getKind() === SyntaxKind.EqualsToken && parent.getRight() === carrier) {
    const left = parent.getLeft();
    if (Node.isIdentifier(left)) return assigned(left.getText(), awaited, parent);
    return { kind: 'escapes' };
  }
  if (inConditionPosition(carrier)) return { kind: 'tested', awaited };
  return { kind: 'escapes' };
}

function assigned(name: string, awaited: boolean, declaration: Node): ResultUse {
  const fn = enclosingFunction(declaration);
  let readLater = false;
  let tested = false;
  for (const id of identifiersNamed(fn, name)) {
    if (id.getText() !== name || id.getStart() < declaration.getEnd()) continue;
    const parent = id.getParent();
    // `x = ...` writes; `obj.x` is another name.
    if (parent && Node.isBinaryExpression(parent) && parent.getLeft() === id && parent.getOperatorToken().getKind() === SyntaxKind.EqualsToken) continue;
    if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) continue;
    readLater = true;
    if (inConditionPosition(id)) tested = true;
  }
  return { kind: 'assigned', name, awaited, declaration, readLater, tested };
}
