// An acquire retried by a timer: `const timer = setInterval(async () => { if (await take(key)) {
// clearInterval(timer); ... } }, 10)`. The interval runs the acquire again and again until the branch
// where the lock was taken stops it, so each tick is one more try and the interval is the wait between
// two tries. A timer that keeps ticking after a taken lock (a poller) does not retry an acquire.
import { ts } from './typescript';
import type { Acquire } from './model';
import { callsNamed, contains, isFunctionOrArrow, unwrap, type Node } from './nodes';
import { mentions } from './failure-paths';
import { testsFailure } from './paths';

export interface IntervalRetry {
  /** The `setInterval(...)` call that runs the acquire. */
  timer: ts.CallExpression;
  /** Its interval, when given. */
  delay?: ts.Expression;
}

/** The text the timer's handle is stored under: `const t = setInterval(...)`, `this.timer = setInterval(...)`. */
function handleOf(timer: ts.CallExpression): string | undefined {
  const holder = timer.parent;
  if (ts.isVariableDeclaration(holder) && holder.initializer === timer && ts.isIdentifier(holder.name)) return holder.name.text;
  const assigned = ts.isBinaryExpression(holder) && holder.operatorToken.kind === ts.SyntaxKind.EqualsToken && holder.right === timer;
  return assigned ? holder.left.getText() : undefined;
}

/** The names that hold the acquire's answer: the variable it is stored in, the reply parameters of its callback. */
function answerNames(acquire: Acquire): string[] {
  const names = acquire.result.kind === 'assigned' ? [acquire.result.name] : [];
  const callback = acquire.call.arguments.find((a) => isFunctionOrArrow(unwrap(a)));
  const params = callback && isFunctionOrArrow(unwrap(callback)) ? (unwrap(callback) as ts.ArrowFunction).parameters : [];
  // Node-style `(err, reply)`: the error is not the answer.
  for (const p of params.length > 1 ? params.slice(1) : params) if (ts.isIdentifier(p.name)) names.push(p.name.text);
  return names;
}

const exits = (s: Node) => ts.isReturnStatement(s) || ts.isThrowStatement(s) || (ts.isBlock(s) && s.statements.some((t) => ts.isReturnStatement(t) || ts.isThrowStatement(t)));

/**
 * Is `node` reached only when the lock was taken: in the branch of an `if` on the acquire's answer that
 * runs then, or after an `if (<not taken>) return` guard before it in its block?
 */
function onTakenBranch(acquire: Acquire, node: Node, stop: Node): boolean {
  const names = answerNames(acquire);
  const onAnswer = (condition: Node) => contains(condition, acquire.call) || mentions(condition, names);
  for (let child = node, parent = node.parent; parent && parent !== stop; child = parent, parent = parent.parent) {
    if (ts.isBlock(parent)) {
      const before = parent.statements.slice(0, parent.statements.indexOf(child as ts.Statement));
      if (before.some((s) => ts.isIfStatement(s) && !s.elseStatement && onAnswer(s.expression) && testsFailure(s.expression) && exits(s.thenStatement))) return true;
    }
    if (!ts.isIfStatement(parent) || child === parent.expression || !onAnswer(parent.expression)) continue;
    return (child === parent.thenStatement) !== testsFailure(parent.expression);
  }
  return false;
}

/** The `setInterval` that retries this acquire: the acquire runs in its callback, which clears it once the lock is taken. */
export function intervalRetry(acquire: Acquire): IntervalRetry | undefined {
  const fn = acquire.fn;
  const timer = fn.parent;
  if (!isFunctionOrArrow(fn) || !ts.isCallExpression(timer) || timer.arguments[0] !== fn || unwrap(timer.expression).getText() !== 'setInterval') return undefined;
  const handle = handleOf(timer);
  if (!handle) return undefined;
  const stops = callsNamed(fn, (n) => n === 'clearInterval').filter((c) => (c.pos > acquire.call.end || contains(acquire.call, c)) && !!c.arguments[0] && unwrap(c.arguments[0]).getText() === handle);
  return stops.some((c) => onTakenBranch(acquire, c, fn)) ? { timer, delay: timer.arguments[1] } : undefined;
}
