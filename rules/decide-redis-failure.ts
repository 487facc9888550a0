// When Redis is down (or not configured) the acquire fails with an error; code that then grants the
// lock anyway (returns success, runs the work, hands back a no-op release) lets every process into the
// critical section at once. Failing open can be right, but it must be a decision that says so.
import { ts } from './engine/typescript';
import { answerOf, isErrorResponse, isIncidentalCall, saysNotAcquired } from './engine/failure-answers';
import { bodyStatements, isLoggingCall, leadingComments, mentions, saysFailOpen, releasesSomething, throwsIn } from './engine/failure-paths';
import { describeKey } from './engine/keys';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, calleeName, callsNamed, contains, declarationOf, descendantsOfKind, identifiersNamed, isFunctionLike, isFunctionOrArrow, isNamedRead, literalString, methodOf, nameOf, normalizeText, parameterIndex, spanOf, unwrap, type Node } from './engine/nodes';
import { guardNames, inNotAcquiredBranch, isGuard } from './engine/paths';
import { isCallbackParameter } from './engine/unsettled-work';
import { isLockAcquire, isPlainReference, isRedisAcquire } from './engine/queries';
import { emptyOnlyWhenUnconfigured } from './engine/configured-client';
import type { Rule } from './rule';
import type { Fix } from './types';

/** The work the lock protects: the calls it guards (after the acquire in its function, outside the failure path), by their text, and the routines handed in. */
interface Work {
  calls: Set<string>;
  /** Some guarded call is not named as a read: the work writes. */
  writes: boolean;
  /** A routine run under the lock, or a callback parameter the guarded code calls: the caller's work, whatever it is called with. */
  routines: Set<string>;
}

function workOf(model: LockModel, acquire: Acquire, path: Node): Work {
  const lockCalls = new Set<Node>([...model.commands.map((c) => c.call), ...model.acquires.map((a) => a.call), ...model.releases.map((r) => r.call), ...model.extends.map((e) => e.call)]);
  const work: Work = { calls: new Set(), writes: false, routines: new Set() };
  const incidental = (call: ts.CallExpression) => lockCalls.has(call) || isLoggingCall(call) || isIncidentalCall(call) || isRollback(call);
  const routine = acquire.routine ? unwrap(acquire.routine) : undefined;
  if (routine) {
    // withLock(key, routine): the lock is held while the routine runs, and gone when the call returns.
    if (ts.isIdentifier(routine) || ts.isPropertyAccessExpression(routine)) work.routines.add(routine.getText());
    if (isFunctionOrArrow(routine)) {
      for (const call of callsNamed(routine, () => true)) {
        if (incidental(call)) continue;
        work.calls.add(normalizeText(call));
        work.writes ||= !isNamedRead(call);
      }
    }
    return work;
  }
  const scope = ancestorWhere<ts.FunctionLikeDeclaration>(acquire.call, isFunctionLike);
  for (const call of callsNamed(acquire.fn, () => true)) {
    if (call.getStart() < acquire.call.end || contains(path, call) || incidental(call) || inNotAcquiredBranch(acquire, call)) continue;
    if (ancestorWhere(call, isFunctionLike) !== scope || handlesError(call, acquire)) continue;
    work.calls.add(normalizeText(call));
    work.writes ||= !isNamedRead(call);
    const callee = unwrap(call.expression);
    if (scope && ts.isIdentifier(callee) && parameterIndex(scope, callee) !== undefined && !isCallbackParameter(scope, callee.text)) work.routines.add(callee.text);
  }
  return work;
}

/** A call in a catch clause after the acquire (recording or cleaning up a failed step) handles an error; it is not the work. */
function handlesError(call: Node, acquire: Acquire): boolean {
  const clause = ancestorWhere(call, (a) => a === acquire.fn || ts.isCatchClause(a));
  return !!clause && ts.isCatchClause(clause) && !contains(clause, acquire.call);
}

/** `client.query('ROLLBACK')`, `tx.rollback()`: undoing the work, in the work and in the catch alike. */
function isRollback(call: ts.CallExpression): boolean {
  if (/^rollback/i.test(methodOf(call)?.name ?? calleeName(call) ?? '')) return true;
  const first = call.arguments[0] && unwrap(call.arguments[0]);
  return !!first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) && /^\s*ROLLBACK\b/i.test(first.text);
}

/**
 * The same call as one the lock guards, or a call of a routine run under it. A read the guarded work
 * also makes before its writes (`findOne` of the saga it then saves) lets no second writer in; where the
 * work is only reads (a cache fill's `loadTheme`), the read is the work the lock spares.
 */
function runsWork(call: ts.CallExpression, work: Work): boolean {
  if (isLoggingCall(call) || isIncidentalCall(call) || RETRY_LATER.test(methodOf(call)?.name ?? calleeName(call) ?? '')) return false;
  if (work.routines.has(unwrap(call.expression).getText())) return true;
  return work.calls.has(normalizeText(call)) && !(work.writes && isNamedRead(call));
}

/** `handleRetryWithdrawal(w)`, `requeue(job)`, `markFailed(id)`: the failure recorded for a later try, not the work. */
const RETRY_LATER = /retry|requeue|re_?schedule|defer|postpone|mark_?(?:as_?)?fail|handle_?(?:fail|error)/i;

/** `res.status(503).json(...)` and each call of its chain: an error response answers, it runs no work. */
function inErrorResponse(call: ts.CallExpression): boolean {
  let top: Node = call;
  while (ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top && ts.isCallExpression(top.parent.parent)) top = top.parent.parent;
  return isErrorResponse(top);
}

/** What the function answers when the acquire says "not acquired" (the branch of a guard on its result), as text. */
function notAcquiredAnswers(acquire: Acquire): Set<string> {
  const answers = new Set<string>();
  for (const test of descendantsOfKind<ts.IfStatement>(acquire.fn, ts.SyntaxKind.IfStatement)) {
    if (test.end < acquire.call.getStart() || ancestorWhere(test, isFunctionLike) !== acquire.fn || !isGuard(test, acquire)) continue;
    const branch = saysNotAcquired(test.expression) ? test.thenStatement : test.elseStatement;
    const returns = branch ? (ts.isReturnStatement(branch) ? [branch] : descendantsOfKind<ts.ReturnStatement>(branch, ts.SyntaxKind.ReturnStatement)) : [];
    for (const ret of returns) if (ret.expression && ancestorWhere(ret, isFunctionLike) === acquire.fn) answers.add(normalizeText(unwrap(ret.expression)));
  }
  return answers;
}

/**
 * A value that says "you have the lock": true, 'OK', a lock-like object, a (no-op) release function,
 * the acquire's own token; never what the function answers when the lock is busy (`return true` from an
 * `isDuplicate()` that answers `true` when its NX SET found the key).
 */
function grantingValue(node: Node, acquire: Acquire): boolean {
  let v = unwrap(node);
  if (ts.isAwaitExpression(v)) v = unwrap(v.expression);
  if (acquire.token && isPlainReference(acquire.token) && normalizeText(v) === normalizeText(unwrap(acquire.token))) return true;
  const answer = answerOf(v);
  const grants = answer ? answer === 'grant' : ts.isObjectLiteralExpression(v) && !otherOutcome(v, acquire);
  // What the function answers when the key is taken (`isDuplicate()`'s `true`) refuses, whatever it is.
  return grants && !notAcquiredAnswers(acquire).has(normalizeText(v));
}

/** The string-literal fields of an object literal: the tags of a discriminated answer (`type: 'summary'`). */
function tagsOf(obj: ts.ObjectLiteralExpression): Map<string, string> {
  const tags = new Map<string, string>();
  for (const p of obj.properties) {
    const name = ts.isPropertyAssignment(p) ? nameOf(p) : undefined;
    const word = name && literalString((p as ts.PropertyAssignment).initializer);
    if (name && word !== undefined) tags.set(name, word);
  }
  return tags;
}

/**
 * `catch { return { type: 'pass' } }` where the function otherwise answers `{ type: 'summary' }` or
 * `{ type: 'suppress' }` after the acquire: a tag none of those answers carries is an outcome of its
 * own, for the caller to tell apart, not the acquired answer.
 */
function otherOutcome(obj: ts.ObjectLiteralExpression, acquire: Acquire): boolean {
  const tags = tagsOf(obj);
  if (tags.size === 0) return false;
  const seen = new Map<string, Set<string>>();
  for (const ret of descendantsOfKind<ts.ReturnStatement>(acquire.fn, ts.SyntaxKind.ReturnStatement)) {
    const value = ret.expression && unwrap(ret.expression);
    if (!value || value === obj || !ts.isObjectLiteralExpression(value) || ret.pos < acquire.call.end || ancestorWhere(ret, isFunctionLike) !== acquire.fn) continue;
    for (const [name, word] of tagsOf(value)) seen.set(name, (seen.get(name) ?? new Set()).add(word));
  }
  return [...tags].some(([name, word]) => seen.has(name) && !seen.get(name)!.has(word));
}

/**
 * Does this failure path grant the lock: return a granting value, or run the protected work? When the
 * failed code was the whole critical section (`answers` false), what it returns answers for the work,
 * not for the lock.
 */
function grants(model: LockModel, path: Node, acquire: Acquire, work: Work, answers = true): Node | undefined {
  const scopeFn = isFunctionLike(path) ? path : ancestorWhere(path, isFunctionLike);
  // A fallback acquire on the failure path (SETNX + EXPIRE after SET NX EX failed): what its test grants, it took.
  const fallbacks = model.acquires.filter((a) => a !== acquire && contains(path, a.call));
  const own = (n: Node) => (ancestorWhere(n, isFunctionLike) === scopeFn || (isFunctionLike(path) && ancestorWhere(n, isFunctionLike) === path)) && !behindFallback(n, path, fallbacks);
  const ran = callsNamed(path, () => true).filter((c) => own(c) && runsWork(c, work) && !inErrorResponse(c) && !insideLogging(c, path));
  // Name the work itself: not a link of a call chain (`res.status(200)`), nor a call around the work.
  const named = ran.filter((c) => !(ts.isPropertyAccessExpression(c.parent) && ts.isCallExpression(c.parent.parent)));
  const ranWork = named.find((c) => !named.some((other) => other !== c && contains(c, other))) ?? ran[0];
  if (ranWork) return ranWork;
  if (!answers) return undefined;
  const returns = ts.isReturnStatement(path) ? [path] : descendantsOfKind<ts.ReturnStatement>(path, ts.SyntaxKind.ReturnStatement);
  const granting = returns.find((ret) => own(ret) && ret.expression && grantingValue(ret.expression, acquire));
  if (granting) return granting;
  return ts.isArrowFunction(path) && !ts.isBlock(path.body) && grantingValue(path.body, acquire) ? path.body : undefined;
}

/** Is `node` inside an `if` on the answer of an acquire the failure path itself makes? */
function behindFallback(node: Node, path: Node, fallbacks: readonly Acquire[]): boolean {
  if (fallbacks.length === 0) return false;
  for (let a = node.parent; a && a !== path; a = a.parent) {
    if (ts.isIfStatement(a) && !contains(a.expression, node) && fallbacks.some((f) => a.pos > f.call.pos && isGuard(a, f))) return true;
  }
  return false;
}

/** `logger.error(err, { id: id.toString() })`: a call that only builds what is logged runs no work. */
function insideLogging(call: Node, path: Node): boolean {
  const logging = ancestorWhere(call, (a) => a === path || (ts.isCallExpression(a) && isLoggingCall(a)));
  return !!logging && logging !== path;
}

/** A test of the caller's options only (`if (throwError)`, `if (opts?.strict)`): every name in it is a parameter of `fn`. */
function testsOnlyParameters(test: Node, fn: Node): boolean {
  const names = descendantsOfKind<ts.Identifier>(test, ts.SyntaxKind.Identifier).filter((id) => !(ts.isPropertyAccessExpression(id.parent) && id.parent.name === id));
  if (ts.isIdentifier(test)) names.push(test);
  return names.length > 0 && names.every((id) => {
    const decl = declarationOf(id);
    return !!decl && ts.isParameter(decl) && decl.parent === fn;
  });
}

/**
 * A throw in the catch that decides what a failure means: any throw but one the caller must ask for
 * (`if (throwError) throw ...`, a parameter of the function): without it, the catch goes on.
 */
function decidingThrow(path: Node, fn: Node): boolean {
  const throws = descendantsOfKind<ts.ThrowStatement>(path, ts.SyntaxKind.ThrowStatement).filter((t) => ancestorWhere(t, isFunctionLike) === ancestorWhere(path, isFunctionLike));
  const askedFor = (t: ts.ThrowStatement) => {
    for (let a = t.parent; a && a !== path; a = a.parent) if (ts.isIfStatement(a) && contains(a.thenStatement, t) && testsOnlyParameters(unwrap(a.expression), fn)) return true;
    return false;
  };
  return throws.some((t) => !askedFor(t));
}

/** Does every way through `statement` end in a return, throw, continue or break (so nothing after it runs from here)? */
function endsInJump(statement: Node | undefined): boolean {
  if (!statement) return false;
  if (ts.isBlock(statement)) return endsInJump(statement.statements[statement.statements.length - 1]);
  if (ts.isIfStatement(statement)) return endsInJump(statement.thenStatement) && endsInJump(statement.elseStatement);
  return ts.isReturnStatement(statement) || ts.isThrowStatement(statement) || ts.isContinueStatement(statement) || ts.isBreakStatement(statement);
}

/** Acquires that throw when the lock is taken or Redis fails: after their catch, no answer says "not acquired". */
function throwsWhenNotAcquired(acquire: Acquire): boolean {
  if (acquire.kind === 'redlock' || acquire.kind === 'semaphore') return true;
  // A helper handing back null instead of a lock object (its catch answers null) throws nothing to catch.
  return acquire.kind === 'helper' && (acquire.via?.returns === 'throws' || (acquire.via?.returns === 'lock-object' && !acquire.via.emptyWhenBusy));
}

/**
 * A catch that only logs, around an acquire that throws when it fails: the function goes on after the
 * try. The first statement after it that runs the work, unless an early return or throw on what the
 * try set comes first (`if (!lock) return`: the code decided what a failed acquire means). An early
 * throw on data read after it (`if (!project) throw ...`) decides nothing about the lock.
 */
function workAfterCatch(acquire: Acquire, statement: ts.TryStatement, work: Work): Node | undefined {
  const block = statement.parent;
  if (!throwsWhenNotAcquired(acquire) || !ts.isBlock(block)) return undefined;
  const setInTry = new Set(
    descendantsOfKind<ts.BinaryExpression>(statement, ts.SyntaxKind.BinaryExpression)
      .filter((b) => b.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      .map((b) => normalizeText(unwrap(b.left))),
  );
  const testsTry = (test: ts.IfStatement) => [unwrap(test.expression), ...descendantsOfKind(test.expression, ts.SyntaxKind.Identifier), ...descendantsOfKind(test.expression, ts.SyntaxKind.PropertyAccessExpression)].some((n) => setInTry.has(normalizeText(n)));
  // `catch (e) { failed = e }` then `if (!failed) redirect(...)`: the work after the try runs only when nothing failed.
  const clause = statement.catchClause;
  const caught = clause?.variableDeclaration?.name;
  const flags = new Set(
    clause && caught && ts.isIdentifier(caught)
      ? descendantsOfKind<ts.BinaryExpression>(clause, ts.SyntaxKind.BinaryExpression)
          .filter((b) => b.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(unwrap(b.left)) && mentions(b.right, [caught.text]))
          .map((b) => (unwrap(b.left) as ts.Identifier).text)
      : [],
  );
  const guardedByFlag = (call: Node, next: Node) => flags.size > 0 && !!ancestorWhere(call, (a) => ts.isIfStatement(a) && contains(next, a) && [...flags].some((flag) => identifiersNamed(a.expression, flag).length > 0));
  for (const next of block.statements.slice(block.statements.indexOf(statement) + 1)) {
    if (ts.isIfStatement(next) && (throwsIn(next) || descendantsOfKind(next, ts.SyntaxKind.ReturnStatement).length > 0) && testsTry(next)) return undefined;
    const call = callsNamed(next, () => true).find((c) => ancestorWhere(c, isFunctionLike) === acquire.fn && runsWork(c, work) && !insideLogging(c, next) && !guardedByFlag(c, next));
    if (call) return call;
  }
  return undefined;
}

/**
 * Said where the lock is taken: in the comments leading the statement that holds the acquire, a
 * statement around it (the `if (this.guard) {` whose block takes the lock), the one before it (the
 * `let lock` declared for it), the function (its JSDoc), its class, or the file's header ("Fallback: if
 * Redis is unavailable, degrades gracefully to an in-memory Set").
 */
function decidedAround(acquire: Acquire, statement: Node): boolean {
  const cls = ancestorWhere(acquire.fn, (a) => ts.isClassDeclaration(a));
  const header = acquire.fn.getSourceFile().statements[0];
  const around: Node[] = [];
  for (let a = statement.parent; a && a !== acquire.fn; a = a.parent) if (ts.isStatement(a) && !ts.isBlock(a)) around.push(a);
  const comments = [...leadingComments(statement), ...around.flatMap(leadingComments), ...leadingComments(acquire.fn), ...(cls ? leadingComments(cls) : []), ...(header ? leadingComments(header) : [])];
  const siblings = ts.isBlock(statement.parent) ? statement.parent.statements : undefined;
  const at = siblings ? siblings.indexOf(statement as ts.Statement) : -1;
  if (siblings && at > 0) comments.push(...leadingComments(siblings[at - 1]));
  return comments.some(saysFailOpen);
}

/** A comment or name near the failure path that says failing open is intended. */
function explicit(model: LockModel, path: Node, statement: Node): boolean {
  if (saysFailOpen(path.getText())) return true;
  const text = model.text;
  // `if (!redis) return true; // fail-open: ...`: a comment after the path, on its last line.
  if (saysFailOpen(trailingComment(path))) return true;
  const lineStart = text.lastIndexOf('\n', statement.getStart() - 1);
  const before = text.slice(Math.max(0, text.lastIndexOf('\n', lineStart - 1)), statement.getStart());
  return saysFailOpen(before);
}

interface Found {
  path: Node;
  grant: Node;
  /** `branch`: a "no client" test; `down`: a test (or a caught ping) saying Redis is not reachable. */
  how: 'catch' | '.catch' | 'branch' | 'down' | 'callback';
  /** The grant is the work after the try, which the catch lets the function go on to. */
  after?: boolean;
}

/**
 * Did the try run the whole critical section: a locked routine, or the work after the acquire and a
 * release (in the try or its finally)? Then it hands no lock to its caller.
 */
function ranCriticalSection(model: LockModel, acquire: Acquire, statement: ts.TryStatement, work: Work): boolean {
  if (acquire.routine) return true;
  const released = releasesSomething(model, statement.tryBlock) || (!!statement.finallyBlock && releasesSomething(model, statement.finallyBlock));
  return released && callsNamed(statement.tryBlock, () => true).some((c) => c.getStart() > acquire.call.end && runsWork(c, work));
}

function tryCatchPath(model: LockModel, acquire: Acquire): Found | undefined {
  for (let a = acquire.call.parent; a && a !== acquire.fn; a = a.parent) {
    if (!ts.isTryStatement(a) || !a.catchClause || !contains(a.tryBlock, acquire.call)) continue;
    const path = a.catchClause.block;
    if (decidingThrow(path, acquire.fn) || explicit(model, path, a.catchClause) || decidedAround(acquire, a)) return undefined;
    // The work outside the catch: also every call the function goes on to after the try.
    const work = workOf(model, acquire, path);
    const grant = grants(model, path, acquire, work, !ranCriticalSection(model, acquire, a, work));
    if (grant) return { path, grant, how: 'catch' };
    // A catch that returns, rethrows, or leaves the loop iteration (continue, break) decided; one whose end is reached goes on.
    const after = endsInJump(path) ? undefined : workAfterCatch(acquire, a, work);
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
  const statement = ancestorWhere(chained, (a) => ts.isStatement(a));
  if (statement && decidedAround(acquire, statement)) return undefined;
  const grant = grants(model, handler, acquire, workOf(model, acquire, handler));
  return grant ? { path: handler, grant, how: '.catch' } : undefined;
}

/** `err`, `err != null`, `err !== undefined`: a test that is true when the callback got an error. */
function testsError(condition: Node, err: string): boolean {
  const c = unwrap(condition);
  if (ts.isIdentifier(c)) return c.text === err;
  return ts.isBinaryExpression(c) && /^!==?$/.test(c.operatorToken.getText()) && unwrap(c.left).getText() === err && /^(?:null|undefined)$/.test(c.right.getText());
}

/**
 * `cb(null, true)`, `done(true)`, `resolve('OK')`: the callback or resolve of an enclosing function
 * called with a value that says "acquired" (not the error, not a 0).
 */
function answersAcquired(path: Node, callback: ts.FunctionLikeDeclaration, err: string): ts.CallExpression | undefined {
  return callsNamed(path, () => true).find((call) => {
    const callee = unwrap(call.expression);
    if (!ts.isIdentifier(callee) || ancestorWhere(call, isFunctionLike) !== callback) return false;
    const owner = ancestorWhere<ts.FunctionLikeDeclaration>(callback, (a) => isFunctionLike(a) && parameterIndex(a as ts.FunctionLikeDeclaration, callee) !== undefined);
    return !!owner && call.arguments.some((arg) => arg.getText() !== err && arg.getText() !== '0' && answerOf(arg) === 'grant');
  });
}

/** Callback style: `client.set(k, v, 'NX', 'PX', t, (err, ok) => { if (err) return cb(null, true); ... })`. */
function errorCallbackPath(model: LockModel, acquire: Acquire): Found | undefined {
  const callback = acquire.call.arguments.find(isFunctionOrArrow);
  const err = callback?.parameters[0]?.name;
  if (!callback || !err || !ts.isIdentifier(err)) return undefined;
  for (const test of descendantsOfKind<ts.IfStatement>(callback.body, ts.SyntaxKind.IfStatement)) {
    if (ancestorWhere(test, isFunctionLike) !== callback || !testsError(test.expression, err.text)) continue;
    const path = test.thenStatement;
    if (throwsIn(path) || explicit(model, path, test)) continue;
    const grant = answersAcquired(path, callback, err.text);
    if (grant) return { path, grant, how: 'callback' };
  }
  return undefined;
}

/**
 * A "not configured" branch its code documents: a comment on the branch or in it that names the missing
 * client ("Redis", "Upstash", or the client's own name), or one on the function or heading the file that
 * says what happens without it. Running without Redis is then a
 * deployment mode someone chose and wrote down, not an outage read as success.
 */
function documented(test: ts.IfStatement, fn: Node, client: string): boolean {
  const name = client.split('.').pop()?.replace(/\W/g, '') ?? '';
  const names = new RegExp(`redis|valkey|upstash${name ? `|\\b${name}\\b` : ''}`, 'i');
  const holders = [test, ...bodyStatements(test.thenStatement)];
  if (holders.some((h) => leadingComments(h).some((c) => names.test(c)) || names.test(trailingComment(h)))) return true;
  // The function's JSDoc, or the file's header, names Redis anyway (`redisService.acquireLock(...)` in an
  // example): it must say what happens without it.
  // Or names it as a requirement and says what happens otherwise: "Requires a Redis instance to be
  // available, otherwise it just runs the function".
  const near = new RegExp(`(?:${WITHOUT})\\W+(?:\\w+\\W+){0,3}?(?:${names.source})|(?:${names.source})\\W+(?:\\w+\\W+){0,3}?(?:${WITHOUT})|(?:${names.source})\\W+(?:\\w+\\W+){0,6}?otherwise\\b`, 'i');
  const header = fn.getSourceFile().statements[0];
  return [fn, ...(header ? [header] : [])].some((h) => leadingComments(h).some((c) => near.test(c)));
}

/** Words that, a few words from "Redis" or the client's name, speak of running without it: "without Redis", "if the client is not configured". */
const WITHOUT = String.raw`\b(?:without|no|not|missing|unavailable|disabled|absent|unset|down|fall(?:s|ing)?\s*back|fallback|skip(?:s|ped)?|bypass(?:es|ed)?)\b`;

/** The comment after a statement on its last line: `if (!redis) return true; // no Redis in dev`. */
function trailingComment(statement: Node): string {
  const text = statement.getSourceFile().text;
  const lineEnd = text.indexOf('\n', statement.end);
  const rest = text.slice(statement.end, lineEnd < 0 ? text.length : lineEnd);
  return /^\s*(?:\/\/|\/\*)/.test(rest) ? rest : '';
}

/**
 * `if (!this.redis) return work();` before the acquire: no Redis, no lock, work anyway. Also `if (redis) {
 * ...acquire... }` with an `else`, or a then that always leaves, followed by a fallback that runs the work.
 */
function unconfiguredBranch(model: LockModel, acquire: Acquire): Found | undefined {
  const client = clientOf(acquire);
  if (!client || emptyOnlyWhenUnconfigured(methodOf(acquire.call)!.receiver, model.unconfiguredNull)) return undefined;
  const nullTest = (condition: Node, equal: boolean) => ts.isBinaryExpression(condition) && unwrap(condition.left).getText() === client &&
    (equal ? /^==/ : /^!=/).test(condition.operatorToken.getText()) && /^(?:null|undefined)$/.test(condition.right.getText());
  for (const test of testsBefore(acquire)) {
    const condition = unwrap(test.expression);
    const absent = ts.isPrefixUnaryExpression(condition) && unwrap(condition.operand).getText() === client;
    if ((!absent && !nullTest(condition, true)) || explicit(model, test.thenStatement, test) || documented(test, acquire.fn, client) || catchSaysFailOpen(acquire)) continue;
    const grant = grants(model, test.thenStatement, acquire, workOf(model, acquire, test.thenStatement));
    if (grant) return { path: test.thenStatement, grant, how: 'branch' };
  }
  const around = ifAround(acquire);
  const present = around && (unwrap(around.expression).getText() === client || nullTest(unwrap(around.expression), false));
  const fallback = around && present && !documented(around, acquire.fn, client) && !catchSaysFailOpen(acquire) ? fallbackOf(model, acquire, around) : undefined;
  return fallback ? { ...fallback, how: 'branch' } : undefined;
}

/**
 * `catch { // Coordination is best-effort; the seed itself is idempotent. return true }` around the
 * acquire: failing open is the function's decision, for an outage and for no client alike.
 */
function catchSaysFailOpen(acquire: Acquire): boolean {
  const attempt = ancestorWhere(acquire.call, (a) => a === acquire.fn || (ts.isTryStatement(a) && contains(a.tryBlock, acquire.call)));
  return !!attempt && ts.isTryStatement(attempt) && !!attempt.catchClause && saysFailOpen(attempt.catchClause.getText());
}

/** The innermost `if` whose then-branch holds the acquire. */
function ifAround(acquire: Acquire): ts.IfStatement | undefined {
  const around = ancestorWhere(acquire.call, (a) => a === acquire.fn || (ts.isIfStatement(a) && contains(a.thenStatement, acquire.call)));
  return around && ts.isIfStatement(around) ? around : undefined;
}

/**
 * The path that runs when `around`'s test (Redis usable) is false, and its grant: the `else`, or what
 * follows the `if`: after a then-branch that always leaves (`if (client) { ...; return token } <an
 * in-process Map lock>`), or after one that goes on (`if (redisUp) locks = await acquire(); <the work>`),
 * up to a test of what the acquire answered.
 */
function fallbackOf(model: LockModel, acquire: Acquire, around: ts.IfStatement): Omit<Found, 'how'> | undefined {
  const otherwise = around.elseStatement;
  if (otherwise) {
    const grant = explicit(model, otherwise, otherwise) ? undefined : grants(model, otherwise, acquire, workOf(model, acquire, otherwise));
    return grant ? { path: otherwise, grant } : undefined;
  }
  if (!ts.isBlock(around.parent)) return undefined;
  // After a then-branch that goes on, the statements after the `if` are the locked work itself, run
  // there without the lock unless a test of the acquire's answer stops it first.
  const goesOn = !endsInJump(around.thenStatement);
  const answer = goesOn ? guardNames(acquire) : [];
  for (const statement of around.parent.statements.slice(around.parent.statements.indexOf(around) + 1)) {
    if (explicit(model, statement, statement) || (ts.isIfStatement(statement) && mentions(statement.expression, answer))) return undefined;
    const grant = grants(model, statement, acquire, workOf(model, acquire, goesOn ? around.thenStatement : statement));
    if (grant) return { path: around, grant };
  }
  return undefined;
}

/** The client the acquire is called on, as written (`this.redis`), when it is a method call. */
function clientOf(acquire: Acquire): string | undefined {
  const receiver = methodOf(acquire.call)?.receiver;
  return receiver && unwrap(receiver).getText();
}

/** The `if` statements of the acquire's own function that end before it. */
function testsBefore(acquire: Acquire): ts.IfStatement[] {
  return descendantsOfKind<ts.IfStatement>(acquire.fn, ts.SyntaxKind.IfStatement).filter((test) => test.end <= acquire.call.getStart() && ancestorWhere(test, isFunctionLike) === acquire.fn);
}

/** `redisReady`, `isRedisAvailable()`, `this.connected`, `client.isOpen`: a name that says the connection is usable. */
const UP_NAME = /^(?:is_?|has_?)?(?:redis_?|valkey_?|cache_?|client_?|connection_?)?(?:ready|open|connected|available|alive|healthy|online|reachable|up)$/i;

/** The words one of the tests above needs somewhere in the file: most lock files have none, and skip the search. */
const MAY_TEST_UP = /[Rr]eady|[Oo]pen|[Cc]onnect|[Aa]vailab|[Aa]live|[Hh]ealth|[Oo]nline|[Rr]eachab|\b[Uu]p\b|Up\b|status|ping/;

/** The expression a test reads, through `await`, parentheses and a `!`: whether it is negated. */
function readsOf(condition: Node): { operand: Node; negated: boolean } {
  let operand = unwrap(condition);
  let negated = false;
  while (ts.isPrefixUnaryExpression(operand) && operand.operator === ts.SyntaxKind.ExclamationToken) {
    negated = !negated;
    operand = unwrap(operand.operand);
  }
  if (ts.isAwaitExpression(operand)) operand = unwrap(operand.expression);
  return { operand, negated };
}

/** Does `value` say the connection is usable: an up-named flag or check, or the answer of the client's `ping()`? */
function saysUp(value: Node, client: string): boolean {
  const callee = ts.isCallExpression(value) ? unwrap(value.expression) : value;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
  if (name && UP_NAME.test(name)) return true;
  if (!ts.isIdentifier(value)) return false;
  // `const up = await redis.ping().then(() => true, () => false)`: a flag from the client's ping.
  const declaration = declarationOf(value);
  const initializer = declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
  return !!initializer && pingsOf(initializer, client).length > 0;
}

/** The client's `ping()` calls in `node`. */
function pingsOf(node: Node, client: string): ts.CallExpression[] {
  return callsNamed(node, (name) => name === 'ping').filter((call) => {
    const method = methodOf(call);
    return !!method && unwrap(method.receiver).getText() === client;
  });
}

/** ioredis' `redis.status`: of the acquire's client, or of a client so named (the one a helper's acquire uses). */
function isStatusOf(node: Node, client: string): boolean {
  if (!ts.isPropertyAccessExpression(node) || node.name.text !== 'status') return false;
  const receiver = unwrap(node.expression).getText();
  return receiver === client || /redis|valkey/i.test(receiver);
}

/** Does the test hold when Redis cannot be used: `!redisReady`, `client.status !== 'ready'`, `up === false`? */
function testsDown(condition: Node, client: string): boolean {
  const cond = unwrap(condition);
  if (ts.isBinaryExpression(cond)) {
    const op = cond.operatorToken.kind;
    const unequal = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
    const equal = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
    const left = unwrap(cond.left);
    const right = unwrap(cond.right);
    // ioredis: `redis.status !== 'ready'`.
    if (unequal && isStatusOf(left, client) && ts.isStringLiteral(right) && right.text === 'ready') return true;
    if ((equal && right.kind === ts.SyntaxKind.FalseKeyword) || (unequal && right.kind === ts.SyntaxKind.TrueKeyword)) return saysUp(readsOf(left).operand, client);
    // `||`: either side saying Redis is down makes the branch run then.
    return op === ts.SyntaxKind.BarBarToken && (testsDown(cond.left, client) || testsDown(cond.right, client));
  }
  const { operand, negated } = readsOf(cond);
  return negated && saysUp(operand, client);
}

/** Does the test hold only when Redis can be used: `redisReady`, `redis.status === 'ready'`, `client && isConnected()`? */
function testsUp(condition: Node, client: string): boolean {
  const cond = unwrap(condition);
  if (ts.isBinaryExpression(cond)) {
    // `&&`: false (the else runs) whenever either side says Redis is down.
    if (cond.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) return testsUp(cond.left, client) || testsUp(cond.right, client);
    const left = unwrap(cond.left);
    const right = unwrap(cond.right);
    return cond.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken && isStatusOf(left, client) && ts.isStringLiteral(right) && right.text === 'ready';
  }
  const { operand, negated } = readsOf(cond);
  return !negated && saysUp(operand, client);
}

/**
 * A test before the acquire that Redis is not reachable (`if (!redisReady) return true`, `if
 * (redis.status !== 'ready') return work()`), or a caught `ping()` before it, whose path grants the
 * lock: while Redis is down, every instance takes that path together.
 */
function unreachableBranch(model: LockModel, acquire: Acquire): Found | undefined {
  if (!MAY_TEST_UP.test(model.text)) return undefined;
  // A helper's acquire has no client in sight: only an up-named test can say Redis is down there.
  const client = clientOf(acquire) ?? '';
  for (const test of testsBefore(acquire)) {
    if (!testsDown(test.expression, client) || explicit(model, test.thenStatement, test)) continue;
    const grant = grants(model, test.thenStatement, acquire, workOf(model, acquire, test.thenStatement));
    if (grant) return { path: test.thenStatement, grant, how: 'down' };
  }
  const around = ifAround(acquire);
  const fallback = around && testsUp(around.expression, client) ? fallbackOf(model, acquire, around) : undefined;
  if (fallback) return { ...fallback, how: 'down' };
  for (const attempt of descendantsOfKind<ts.TryStatement>(acquire.fn, ts.SyntaxKind.TryStatement)) {
    const caught = attempt.catchClause?.block;
    if (!caught || attempt.end > acquire.call.getStart() || ancestorWhere(attempt, isFunctionLike) !== acquire.fn || explicit(model, caught, attempt.catchClause!)) continue;
    const grant = pingsOf(attempt.tryBlock, client).length > 0 ? grants(model, caught, acquire, workOf(model, acquire, caught)) : undefined;
    if (grant) return { path: caught, grant, how: 'down' };
  }
  return undefined;
}

/**
 * `const token = redis ? await acquireLock(redis, key) : 'no-redis'`: the other arm of a test that the
 * client is there (or up) answers a value the guard after it reads as "acquired".
 */
function conditionalArm(model: LockModel, acquire: Acquire): Found | undefined {
  let arm: Node = acquire.call;
  while (ts.isAwaitExpression(arm.parent) || ts.isParenthesizedExpression(arm.parent)) arm = arm.parent;
  const choice = arm.parent;
  if (!ts.isConditionalExpression(choice) || (choice.whenTrue !== arm && choice.whenFalse !== arm)) return undefined;
  const onTrue = choice.whenTrue === arm;
  const other = onTrue ? choice.whenFalse : choice.whenTrue;
  const client = clientOf(acquire) ?? '';
  // The client as the acquire's receiver, or handed to a helper as an argument.
  const clients = new Set([client, ...acquire.call.arguments.map((a) => unwrap(a).getText())].filter((c) => c !== ''));
  const test = unwrap(choice.condition);
  const negatedClient = ts.isPrefixUnaryExpression(test) && test.operator === ts.SyntaxKind.ExclamationToken && clients.has(unwrap(test.operand).getText());
  const present = clients.has(test.getText());
  const tested = onTrue ? present || testsUp(test, client) : negatedClient || testsDown(test, client);
  const value = unwrap(other);
  const grants = (ts.isStringLiteral(value) && value.text !== '') || value.kind === ts.SyntaxKind.TrueKeyword || grantingValue(value, acquire);
  if (!tested || !grants || explicit(model, other, choice)) return undefined;
  // `redis ? ... : 'no-redis'` of a client made only when its setting is there: a stated deployment mode.
  const receiver = methodOf(acquire.call)?.receiver;
  if ((present || negatedClient) && receiver && emptyOnlyWhenUnconfigured(receiver, model.unconfiguredNull)) return undefined;
  return { path: choice, grant: other, how: present || negatedClient ? 'branch' : 'down' };
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
  summary: 'The error path of an acquire (catch, .catch, "no Redis" or "Redis down" branch) silently grants the lock.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) continue;
      const found = tryCatchPath(model, acquire) ?? catchCallbackPath(model, acquire) ?? errorCallbackPath(model, acquire) ?? unconfiguredBranch(model, acquire) ?? unreachableBranch(model, acquire) ?? conditionalArm(model, acquire);
      if (!found) continue;
      const key = keyName(acquire);
      const arm = ts.isConditionalExpression(found.path);
      const when =
        found.how === 'branch'
          ? arm ? 'When there is no Redis client (not configured, or not connected)' : 'When the Redis client is not configured'
          : found.how === 'down'
            ? `When Redis cannot be reached (a failover, a network split), before the acquire of ${key}`
            : `When the acquire of ${key} fails with an error (Redis down, a timeout, a failover)`;
      const value = ts.isReturnStatement(found.grant) ? found.grant.expression : found.grant;
      const ran = () => `\`${(value && calleeName(value as ts.CallExpression)) ?? 'the work'}\``;
      const grant = found.after ? `lets the function go on to run ${ran()}` : found.how === 'callback' ? `answers \`${found.grant.getText().slice(0, 50)}\`` : value && !ts.isCallExpression(value) ? `returns \`${value.getText().split('\n')[0].slice(0, 50)}\`` : `runs ${ran()}`;
      report({
        span: spanOf(ts.isConditionalExpression(found.path) || ts.isIfStatement(found.path) ? found.path : found.how === 'branch' || found.how === 'down' || found.how === 'callback' ? (ancestorWhere(found.path, (a) => ts.isIfStatement(a) || ts.isCatchClause(a)) ?? found.path) : found.how === 'catch' ? found.path.parent : found.path),
        message: `${when}, ${arm ? 'the other arm of this conditional' : `this ${found.how === 'branch' || found.how === 'down' ? 'branch' : found.how === 'callback' ? 'error branch of its callback' : found.how}`} ${grant} as if the lock were held: every process does the same, so all of them enter the critical section at once. Decide what an outage means: rethrow or return "not acquired"; if failing open is intended, say so with a \`lockwise: fail-open\` comment there.`,
        related: [{ span: spanOf(acquire.call), message: found.how === 'down' ? 'the acquire this path skips' : 'the acquire whose failure grants the lock' }],
        fix: () => fix(found),
      });
    }
  },
};
