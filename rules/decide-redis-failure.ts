// When Redis is down (or not configured) the acquire fails with an error; code that then grants the
// lock anyway (returns success, runs the work, hands back a no-op release) lets every process into the
// critical section at once. Failing open can be right, but it must be a decision that says so.
import { ts } from './engine/typescript';
import { FAIL_OPEN, isLoggingCall, throwsIn } from './engine/failure-paths';
import { describeKey } from './engine/keys';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, calleeName, callsNamed, contains, descendantsOfKind, isFunctionLike, isFunctionOrArrow, methodOf, spanOf, unwrap, type Node } from './engine/nodes';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import type { Rule } from './rule';
import type { Fix } from './types';

const NOT_ACQUIRED = /^(?:false|null|undefined|0|''|""|void 0)$/;
const NOT_ACQUIRED_FIELD = /^(?:acquired|ok|locked|success|granted|held)$/;
const GRANTING_WORD = /^(?:ok|acquired|locked|granted|held|true|yes)$/i;

/** A value that says "you have the lock": true, 'OK', 1, a lock-like object, a (no-op) release function. */
function grantingValue(node: Node): boolean {
  const v = unwrap(node);
  const text = v.getText();
  if (NOT_ACQUIRED.test(text)) return false;
  if (v.kind === ts.SyntaxKind.TrueKeyword || ts.isNumericLiteral(v)) return true;
  // 'OK' is SET's own reply; 'busy' or 'unavailable' are answers, not grants.
  if (ts.isStringLiteral(v) || ts.isNoSubstitutionTemplateLiteral(v)) return GRANTING_WORD.test(v.text);
  if (isFunctionOrArrow(v)) return true;
  if (ts.isObjectLiteralExpression(v)) {
    return !v.properties.some((p) => ts.isPropertyAssignment(p) && NOT_ACQUIRED_FIELD.test(p.name.getText()) && NOT_ACQUIRED.test(unwrap(p.initializer).getText()));
  }
  return false;
}

/** The work the lock protects: calls after the acquire in its function (outside the failure path), and a routine passed to it. */
function workCalls(model: LockModel, acquire: Acquire, path: Node): Set<string> {
  const lockCalls = new Set<Node>([...model.commands.map((c) => c.call), ...model.acquires.map((a) => a.call), ...model.releases.map((r) => r.call), ...model.extends.map((e) => e.call)]);
  const names = new Set<string>();
  for (const call of callsNamed(acquire.fn, () => true)) {
    if (call.getStart() < acquire.call.end || contains(path, call) || lockCalls.has(call) || isLoggingCall(call)) continue;
    if (ancestorWhere(call, isFunctionLike) !== ancestorWhere(acquire.call, isFunctionLike)) continue;
    names.add(unwrap(call.expression).getText());
  }
  const routine = acquire.routine ? unwrap(acquire.routine) : undefined;
  if (routine && (ts.isIdentifier(routine) || ts.isPropertyAccessExpression(routine))) names.add(routine.getText());
  return names;
}

/** Does this failure path grant the lock: return a granting value, or run the protected work? */
function grants(path: Node, work: Set<string>): Node | undefined {
  const scopeFn = isFunctionLike(path) ? path : ancestorWhere(path, isFunctionLike);
  const own = (n: Node) => ancestorWhere(n, isFunctionLike) === scopeFn || (isFunctionLike(path) && ancestorWhere(n, isFunctionLike) === path);
  const returns = ts.isReturnStatement(path) ? [path] : descendantsOfKind<ts.ReturnStatement>(path, ts.SyntaxKind.ReturnStatement);
  for (const ret of returns) {
    if (own(ret) && ret.expression && grantingValue(ret.expression)) return ret;
  }
  if (ts.isArrowFunction(path) && !ts.isBlock(path.body) && grantingValue(path.body)) return path.body;
  return callsNamed(path, () => true).find((c) => own(c) && work.has(unwrap(c.expression).getText()) && !insideLogging(c, path));
}

/** `logger.error(err, { id: id.toString() })`: a call that only builds what is logged runs no work. */
function insideLogging(call: Node, path: Node): boolean {
  const logging = ancestorWhere(call, (a) => a === path || (ts.isCallExpression(a) && isLoggingCall(a)));
  return !!logging && logging !== path;
}

/** Acquires that throw when the lock is taken or Redis fails: after their catch, no answer says "not acquired". */
function throwsWhenNotAcquired(acquire: Acquire): boolean {
  if (acquire.kind === 'redlock' || acquire.kind === 'semaphore') return true;
  return acquire.kind === 'helper' && (acquire.via?.returns === 'throws' || acquire.via?.returns === 'lock-object');
}

/**
 * A catch that only logs, around an acquire that throws when it fails: the function goes on after the
 * try. The first statement after it that runs the work, unless an early return or throw comes first
 * (the code decided what a failed acquire means).
 */
function workAfterCatch(acquire: Acquire, statement: ts.TryStatement, work: Set<string>): Node | undefined {
  const block = statement.parent;
  if (!throwsWhenNotAcquired(acquire) || !ts.isBlock(block)) return undefined;
  for (const next of block.statements.slice(block.statements.indexOf(statement) + 1)) {
    if (ts.isIfStatement(next) && (throwsIn(next) || descendantsOfKind(next, ts.SyntaxKind.ReturnStatement).length > 0)) return undefined;
    const call = callsNamed(next, () => true).find((c) => ancestorWhere(c, isFunctionLike) === acquire.fn && work.has(unwrap(c.expression).getText()) && !insideLogging(c, next));
    if (call) return call;
  }
  return undefined;
}

/** A comment or name near the failure path that says failing open is intended. */
function explicit(model: LockModel, path: Node, statement: Node): boolean {
  if (FAIL_OPEN.test(path.getText())) return true;
  const text = model.text;
  const lineStart = text.lastIndexOf('\n', statement.getStart() - 1);
  const before = text.slice(Math.max(0, text.lastIndexOf('\n', lineStart - 1)), statement.getStart());
  return FAIL_OPEN.test(before);
}

interface Found {
  path: Node;
  grant: Node;
  how: 'catch' | '.catch' | 'branch';
  /** The grant is the work after the try, which the catch lets the function go on to. */
  after?: boolean;
}

function tryCatchPath(model: LockModel, acquire: Acquire): Found | undefined {
  for (let a = acquire.call.parent; a && a !== acquire.fn; a = a.parent) {
    if (!ts.isTryStatement(a) || !a.catchClause || !contains(a.tryBlock, acquire.call)) continue;
    const path = a.catchClause.block;
    if (throwsIn(path) || explicit(model, path, a.catchClause)) return undefined;
    // The work outside the catch: also every call the function goes on to after the try.
    const work = workCalls(model, acquire, path);
    const grant = grants(path, work);
    if (grant) return { path, grant, how: 'catch' };
    const returns = descendantsOfKind<ts.ReturnStatement>(path, ts.SyntaxKind.ReturnStatement).some((r) => ancestorWhere(r, isFunctionLike) === acquire.fn);
    const after = returns ? undefined : workAfterCatch(acquire, a, work);
    return after ? { path, grant: after, how: 'catch', after: true } : undefined;
  }
  return undefined;
}

function catchCallbackPath(model: LockModel, acquire: Acquire): Found | undefined {
  const access = acquire.call.parent;
  const chained = ts.isPropertyAccessExpression(access) && access.name.text === 'catch' && ts.isCallExpression(access.parent) ? access.parent : undefined;
  const handler = chained?.arguments[0];
  if (!chained || !handler || !isFunctionOrArrow(handler)) return undefined;
  if (throwsIn(handler.body) || explicit(model, handler, chained)) return undefined;
  const grant = grants(handler, workCalls(model, acquire, handler));
  return grant ? { path: handler, grant, how: '.catch' } : undefined;
}

/** `if (!this.redis) return work();` before the acquire: no Redis, no lock, work anyway. */
function unconfiguredBranch(model: LockModel, acquire: Acquire): Found | undefined {
  const receiver = methodOf(acquire.call)?.receiver;
  if (!receiver) return undefined;
  const client = unwrap(receiver).getText();
  for (const test of descendantsOfKind<ts.IfStatement>(acquire.fn, ts.SyntaxKind.IfStatement)) {
    if (test.end > acquire.call.getStart() || ancestorWhere(test, isFunctionLike) !== acquire.fn) continue;
    const condition = unwrap(test.expression);
    const absent = ts.isPrefixUnaryExpression(condition) && unwrap(condition.operand).getText() === client;
    const isNull = ts.isBinaryExpression(condition) && /^[!=]=/.test(condition.operatorToken.getText()) && unwrap(condition.left).getText() === client && /^(?:null|undefined)$/.test(condition.right.getText());
    if ((!absent && !isNull) || explicit(model, test.thenStatement, test)) continue;
    const grant = grants(test.thenStatement, workCalls(model, acquire, test.thenStatement));
    if (grant) return { path: test.thenStatement, grant, how: 'branch' };
  }
  return undefined;
}

/** Fail closed: rethrow in a catch clause, or answer "not acquired" (null) from a `.catch` callback. */
function fix(found: Found): Fix | undefined {
  if (found.how === 'catch' && ts.isReturnStatement(found.grant)) {
    const binding = ts.isCatchClause(found.path.parent) ? found.path.parent.variableDeclaration?.name : undefined;
    if (!binding || !ts.isIdentifier(binding)) return undefined;
    return { title: `Rethrow the Redis error (fail closed)`, isPreferred: true, edits: [{ ...spanOf(found.grant), newText: `throw ${binding.text};` }] };
  }
  if (found.how === '.catch' && ts.isArrowFunction(found.path) && found.grant === found.path.body) {
    return { title: 'Answer "not acquired" (null) when Redis fails', isPreferred: true, edits: [{ ...spanOf(found.grant), newText: 'null' }] };
  }
  return undefined;
}

/** The key as the message names it; a key fixed inside a helper stands as the helper call, so it is named by what it locks. */
function keyName(acquire: Acquire): string {
  const key = acquire.key;
  if (key && unwrap(key.node) === acquire.call) return key.glob === '*' ? 'the lock' : `'${key.glob}'`;
  return describeKey(key);
}

export const decideRedisFailure: Rule = {
  id: 'decide-redis-failure',
  defaultSeverity: 'warning',
  summary: 'The error path of an acquire (catch, .catch, "no Redis" branch) silently grants the lock.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) continue;
      const found = tryCatchPath(model, acquire) ?? catchCallbackPath(model, acquire) ?? unconfiguredBranch(model, acquire);
      if (!found) continue;
      const key = keyName(acquire);
      const when = found.how === 'branch' ? 'When the Redis client is not configured' : `When the acquire of ${key} fails with an error (Redis down, a timeout, a failover)`;
      const value = ts.isReturnStatement(found.grant) ? found.grant.expression : found.grant;
      const ran = () => `\`${(value && calleeName(value as ts.CallExpression)) ?? 'the work'}\``;
      const grant = found.after ? `lets the function go on to run ${ran()}` : value && !ts.isCallExpression(value) ? `returns \`${value.getText().split('\n')[0].slice(0, 50)}\`` : `runs ${ran()}`;
      report({
        span: spanOf(found.how === 'branch' ? (ancestorWhere(found.path, ts.isIfStatement) ?? found.path) : found.how === 'catch' ? found.path.parent : found.path),
        message: `${when}, this ${found.how === 'branch' ? 'branch' : found.how} ${grant} as if the lock were held: every process does the same, so all of them enter the critical section at once. Decide what an outage means: rethrow or return "not acquired"; if failing open is intended, say so with a \`lockwise: fail-open\` comment there.`,
        related: [{ span: spanOf(acquire.call), message: 'the acquire whose failure grants the lock' }],
        fix: () => fix(found),
      });
    }
  },
};
