// What happens to the value an acquire returns: dropped, stored, tested, or handed on.
import { ts } from './typescript';
import { contains, enclosingFunction, identifiersNamed, isAssignment, isAwaited, isCallback, isFunctionOrArrow, methodOf, ownReturns, unwrap, valueCarrier, type Node } from './nodes';

export type ResultUse =
  | { kind: 'discarded'; awaited: boolean }
  | { kind: 'assigned'; name: string; awaited: boolean; declaration: Node; readLater: boolean; tested: boolean }
  | { kind: 'tested'; awaited: boolean }
  | { kind: 'escapes' };

const CONDITION_OPERATORS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken,
]);

/** Is this expression read as a condition (if/while/?:/!/&&/||/comparison/switch)? */
export function inConditionPosition(node: Node): boolean {
  let current = node;
  for (let depth = 0; depth < 8; depth++) {
    const parent = current.parent;
    if (!parent) return false;
    if (ts.isIfStatement(parent) || ts.isWhileStatement(parent) || ts.isDoStatement(parent)) return parent.expression === current;
    if (ts.isForStatement(parent)) return parent.condition === current;
    if (ts.isConditionalExpression(parent)) return parent.condition === current;
    if (ts.isSwitchStatement(parent)) return parent.expression === current;
    if (ts.isPrefixUnaryExpression(parent)) return parent.operator === ts.SyntaxKind.ExclamationToken;
    if (ts.isBinaryExpression(parent)) return CONDITION_OPERATORS.has(parent.operatorToken.kind);
    if (ts.isParenthesizedExpression(parent) || ts.isAwaitExpression(parent) || ts.isAsExpression(parent)) {
      current = parent;
      continue;
    }
    return false;
  }
  return false;
}

const PROMISE_HANDLERS = new Set(['then', 'catch', 'finally']);

export function resultUse(call: ts.CallExpression): ResultUse {
  const awaited = isAwaited(call);
  // Callback style (node_redis v3): the result goes to the callback. A promise's `.catch(() => false)`
  // handler is no such callback: the chain answers a value of its own.
  if (!PROMISE_HANDLERS.has(methodOf(call)?.name ?? '') && call.arguments.some(isCallback)) return { kind: 'escapes' };
  const carrier = valueCarrier(call);
  const parent = carrier.parent;
  if (!parent) return { kind: 'escapes' };
  const then = thenCallback(carrier);
  if (then) return then;
  if (ts.isExpressionStatement(parent) || ts.isVoidExpression(parent)) return { kind: 'discarded', awaited };
  // `const token = handedIn ?? (await acquire(key)) ?? undefined`: the value goes on to the name either way.
  const stored = nullishChainTop(carrier);
  if (stored !== carrier) {
    const holder = stored.parent;
    if (ts.isVariableDeclaration(holder) && holder.initializer === stored && ts.isIdentifier(holder.name)) return assigned(holder.name.text, awaited, holder);
  }
  if (ts.isVariableDeclaration(parent) && parent.initializer === carrier) {
    return ts.isIdentifier(parent.name) ? assigned(parent.name.text, awaited, parent) : { kind: 'escapes' };
  }
  if (isAssignment(parent) && parent.right === carrier) {
    if (!ts.isIdentifier(parent.left)) return { kind: 'escapes' };
    const use = assigned(parent.left.text, awaited, parent);
    // `while (!(id = await acquire(key)))`: the assignment's own value is the test.
    return use.kind === 'assigned' && inConditionPosition(parent) ? { ...use, tested: true } : use;
  }
  if (inConditionPosition(carrier)) return { kind: 'tested', awaited };
  return errorTupleValue(carrier) ?? { kind: 'escapes' };
}

/** The outermost `a ?? b` chain (with its parentheses) the value is an operand of, else the value: a default, not a test. */
function nullishChainTop(node: Node): Node {
  const nullish = (n: Node) => ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken;
  let top = node;
  let chained = false;
  for (let parent = node.parent; parent && (ts.isParenthesizedExpression(parent) || nullish(parent)); parent = parent.parent) {
    chained ||= nullish(parent);
    top = parent;
  }
  return chained ? top : node;
}

/** Names an error-as-value tuple gives its error: `err`, `error`, `setError`, `e`. */
const ERROR_NAME = /^(?:e|err|error|[\w$]*(?:Error|Err))$/;

/**
 * `const [err, ok] = await to(acquire(...))` (await-to-js, a project's `tryCatch`): the acquire handed
 * alone to a wrapper that answers with a pair of its error and its value. The element not named like an
 * error holds the reply; when the names do not tell which is which, the reply escapes.
 */
function errorTupleValue(carrier: Node): ResultUse | undefined {
  const wrapper = carrier.parent;
  if (!ts.isCallExpression(wrapper) || wrapper.arguments.length !== 1 || wrapper.arguments[0] !== carrier) return undefined;
  const holder = valueCarrier(wrapper).parent;
  if (!holder || !ts.isVariableDeclaration(holder) || !ts.isArrayBindingPattern(holder.name) || holder.name.elements.length !== 2) return undefined;
  const [first, second] = holder.name.elements.map((e) => (ts.isBindingElement(e) && ts.isIdentifier(e.name) ? e.name.text : undefined));
  const isError = (name: string | undefined) => !!name && ERROR_NAME.test(name);
  const value = isError(first) && second && !isError(second) ? second : isError(second) && first && !isError(first) ? first : undefined;
  return value ? assigned(value, isAwaited(wrapper), holder) : undefined;
}

function assigned(name: string, awaited: boolean, declaration: Node): ResultUse {
  const fn = enclosingFunction(declaration);
  let readLater = false;
  let tested = false;
  for (const id of identifiersNamed(fn, name)) {
    if (id.pos < declaration.end && !readNextRound(id, declaration)) continue;
    const parent = id.parent;
    // `x = ...` writes; `obj.x` is another name.
    if (isAssignment(parent) && parent.left === id) continue;
    if (ts.isPropertyAccessExpression(parent) && parent.name === id) continue;
    readLater = true;
    if (inConditionPosition(id)) tested = true;
  }
  return { kind: 'assigned', name, awaited, declaration, readLater, tested };
}

/**
 * `while (!token) token = await tryLock(key)`: the loop's condition, written before the assignment in
 * its body, reads the stored value at the start of the next round.
 */
function readNextRound(id: Node, declaration: Node): boolean {
  for (let n = id.parent; n && !ts.isBlock(n); n = n.parent) {
    if (ts.isWhileStatement(n)) return contains(n.expression, id) && contains(n.statement, declaration);
    if (ts.isForStatement(n)) return !!n.condition && contains(n.condition, id) && contains(n.statement, declaration);
  }
  return false;
}

/**
 * `acquire().then((ok) => ...)`: the callback's parameter is the result. A callback that takes none
 * runs whatever the reply was; one that tests it decides.
 */
function thenCallback(carrier: Node): ResultUse | undefined {
  const access = carrier.parent;
  if (!ts.isPropertyAccessExpression(access) || access.name.text !== 'then' || access.expression !== carrier) return undefined;
  const chained = access.parent;
  const callback = ts.isCallExpression(chained) && chained.expression === access ? chained.arguments[0] : undefined;
  if (!isFunctionOrArrow(callback)) return { kind: 'escapes' };
  const param = callback.parameters[0];
  if (!param) return { kind: 'discarded', awaited: true };
  if (!ts.isIdentifier(param.name)) return { kind: 'escapes' };
  // `.then((ok) => ok)`: the reply handed on unchanged is the next link's to use.
  if (handsBack(callback, param.name.text)) return thenCallback(chained) ?? { kind: 'escapes' };
  const uses = identifiersNamed(callback.body, param.name.text);
  if (uses.length === 0) return { kind: 'discarded', awaited: true };
  return uses.some(inConditionPosition) ? { kind: 'tested', awaited: true } : { kind: 'escapes' };
}

/** Does `callback` return its parameter `name` as it came (`(ok) => ok`, `{ return ok; }`)? */
function handsBack(callback: ts.ArrowFunction | ts.FunctionExpression, name: string): boolean {
  const isName = (e: ts.Node | undefined) => !!e && ts.isIdentifier(unwrap(e)) && unwrap(e).getText() === name;
  return ts.isBlock(callback.body) ? ownReturns(callback).some((r) => isName(r.expression)) : isName(callback.body);
}
