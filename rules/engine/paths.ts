// Paths out of a function between an acquire and its release: the awaited work that can throw and the
// returns that skip the release. Structured (try/finally aware), not a full control-flow graph.
import { ts } from './typescript';
import { sameKey } from './keys';
import { neverThrows } from './never-throws';
import { throwsWhenCalled } from './written-text';
import { repliesOldValue } from './inverted-guard';
import type { Acquire, LockModel, Release } from './model';
import { ancestorWhere, contains, isLoop, descendantsOfKind, enclosingFunction, enclosingStatement, identifiersNamed, isAncestor, isAssignment, isFunctionLike, methodOf, parameterIndex, unwrap, unwrapAwait, valueCarrier, type Node } from './nodes';

/** The releases in the acquire's own function that release this acquire's lock. */
export function releasesOf(model: LockModel, acquire: Acquire): Release[] {
  return model.releasesIn(acquire.fn).filter((r) => r.call.pos >= acquire.call.end && (r.fn === acquire.fn || isFinallyCallback(r)) && releasesLock(acquire, r));
}

/** Does this release release that acquire's lock: through its handle, or by its key? */
export function releasesLock(acquire: Acquire, r: Release): boolean {
  if (acquire.owner && r.handle === acquire.owner) return true;
  // A lock held through an object is released through it, or by its key alone (`locks.release(key)`).
  return !!acquire.key && !!r.key && sameKey(acquire.key, r.key) && (!acquire.owner || r.handle === undefined);
}

/** `res.on('finish', () => del(key))`: a release of the lock in a function nested in the acquire's. */
function releasedInCallback(model: LockModel, acquire: Acquire): boolean {
  return !!acquire.key && model.releasesOn(acquire.key).some((r) => r.fn !== acquire.fn && r.call.pos > acquire.call.end && contains(acquire.fn, r.call));
}

/** `promise.finally(() => lock.release())` runs on every path too. */
function isFinallyCallback(release: Release): boolean {
  const call = release.fn.parent;
  return !!call && ts.isCallExpression(call) && methodOf(call)?.name === 'finally';
}

/** The names that carry this lock: the result/handle variable and a token variable. */
export function lockNames(acquire: Acquire): string[] {
  const names: string[] = [];
  if (acquire.owner) names.push(acquire.owner);
  if (acquire.result.kind === 'assigned') names.push(acquire.result.name);
  else if (acquire.result.kind === 'escapes') names.push(...declaredFrom(acquire.call));
  if (acquire.token && ts.isIdentifier(acquire.token)) names.push(acquire.token.text);
  return names;
}

/**
 * The names a declaration binds from a value the call is part of: `const [[, got]] =
 * await redis.multi().setnx(key, token).expire(key, 30).exec()` holds the SETNX reply in `got`.
 */
function declaredFrom(call: Node): string[] {
  const declaration = ancestorWhere(call, (n) => ts.isVariableDeclaration(n) || ts.isStatement(n) || isFunctionLike(n));
  if (!declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer || !contains(declaration.initializer, call)) return [];
  const names: string[] = [];
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.push(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  bind(declaration.name);
  return names;
}

/** The handle or token leaves the function (returned, stored, handed to another call): not ours to judge. */
export function escapes(acquire: Acquire, releaseCalls: readonly Node[]): boolean {
  const names = new Set(lockNames(acquire));
  // A token the caller handed in (`processJob(shop, jobId)` locking with jobId) is the caller's id: passing
  // it on (`db.job.update({ where: { id: jobId } })`) hands no lock away.
  if (acquire.token && isFunctionLike(acquire.fn) && parameterIndex(acquire.fn, acquire.token) !== undefined) names.delete((unwrap(acquire.token) as ts.Identifier).text);
  if (names.size === 0) return false;
  const toRedis = (call: ts.CallExpression) => releaseCalls.includes(call) || REDIS_CALL.test(methodOf(call)?.name ?? '');
  for (const id of identifiersNamed(acquire.fn, names)) {
    if (id.pos < acquire.call.end) continue;
    const parent = id.parent;
    if (ts.isReturnStatement(parent)) return true;
    if (ts.isShorthandPropertyAssignment(parent) || ts.isArrayLiteralExpression(parent) || (ts.isPropertyAssignment(parent) && parent.initializer === id)) {
      // node-redis `eval(script, { keys: [key], arguments: [token] })`: the token goes to Redis, not away.
      const call = argumentLiteralCall(parent);
      if (!call || !toRedis(call)) return true;
    }
    if (isAssignment(parent) && parent.right === id) return true;
    if (ts.isCallExpression(parent) && parent.arguments.includes(id) && !toRedis(parent)) return true;
  }
  return false;
}

const REDIS_CALL = /^(set|get|del|unlink|eval|evalsha|pexpire|expire|call|sendCommand)$/i;

/** The call an array or object literal (or one nested in such literals) is an argument of. */
function argumentLiteralCall(node: Node): ts.CallExpression | undefined {
  let n = node;
  while (ts.isArrayLiteralExpression(n) || ts.isObjectLiteralExpression(n) || ts.isPropertyAssignment(n) || ts.isShorthandPropertyAssignment(n)) {
    const parent = n.parent;
    if (ts.isCallExpression(parent)) return parent.arguments.includes(n as ts.Expression) ? parent : undefined;
    n = parent;
  }
  return undefined;
}

/** The try statement whose finally block holds `release`, when that try runs after (or around) the acquire. */
function finallyTry(release: Release, acquire: Acquire): ts.TryStatement | undefined {
  for (let ancestor = release.call.parent; ancestor; ancestor = ancestor.parent) {
    if (ancestor === acquire.fn) return undefined;
    const parent = ancestor.parent;
    if (parent && ts.isTryStatement(parent) && parent.finallyBlock === ancestor) return parent.end > acquire.call.getStart() ? parent : undefined;
  }
  return undefined;
}

/** Is `release` inside the finally block of a try that runs after (or around) the acquire? */
export function inFinally(release: Release, acquire: Acquire): boolean {
  return isFinallyCallback(release) || !!finallyTry(release, acquire);
}

/** A release in a catch clause plus one after the try: every path releases. */
function catchAndAfter(releases: Release[]): boolean {
  return releases.some((r) => {
    const tryStatement = ancestorWhere(r.call, ts.isCatchClause)?.parent;
    // Nothing between the try and the release after it can leave: a try around part of the work only
    // (`try { page = await open(url) } catch { release; continue }`, more awaits after it) covers that part.
    const nothingBetween = (other: Release) => !/\b(?:await|throw|return|continue|break)\b/.test(other.call.getSourceFile().text.slice(tryStatement!.end, other.call.getStart()));
    return !!tryStatement && releases.some((other) => other !== r && other.call.getStart() >= tryStatement.end && nothingBetween(other));
  });
}

/**
 * A release that every run of a catch reaches (a statement of the catch block itself, or of an `if` in it
 * that asks whether the lock is held, `if (token) await release(key, token)`, or of a loop over the held
 * keys): an exception in its try releases. With a release in the try block too, that one is the success
 * path's; with none, the lock is kept on success by design (a rollback on failure only).
 */
function catchRelease(releases: Release[]): { release: Release; tryBlock: ts.Block; success?: Release } | undefined {
  // With no release but in catches, one under any `if` of its catch counts too (`if (options?.reclaimOnFailure)
  // await release(key, token)`): the function hands the lock on when it succeeds either way.
  const onlyInCatches = releases.every((r) => !!ancestorWhere(r.call, ts.isCatchClause));
  for (const r of releases) {
    const clause = ancestorWhere<ts.CatchClause>(r.call, ts.isCatchClause);
    let statement: Node | undefined = ancestorWhere(r.call, ts.isExpressionStatement);
    while (clause && statement && statement.parent !== clause.block) statement = heldTest(statement) ?? ownerCheck(statement, r) ?? (onlyInCatches ? optionalIn(statement) : undefined);
    if (!clause || statement?.parent !== clause.block) continue;
    const tryBlock = clause.parent.tryBlock;
    // The success path's release: in the try block, or after the try statement.
    return { release: r, tryBlock, success: releases.find((other) => other !== r && (contains(tryBlock, other.call) || other.call.pos >= clause.parent.end)) };
  }
  return undefined;
}

/** The `if (!ok) return/throw` right after an acquire: the not-acquired path, which has nothing to release. */
export function isGuard(statement: Node, acquire: Acquire): boolean {
  if (!ts.isIfStatement(statement)) return false;
  const condition = statement.expression;
  return identifiersNamed(condition, guardNames(acquire)).length > 0 ||
    condition.getText().includes(acquire.call.getText());
}

const guardNamesOf = new WeakMap<Acquire, readonly string[]>();

/**
 * The lock's names and the booleans that say whether it was taken: `const ok = (await redis.set(...))
 * === 'OK'`, `locked = reply === 'OK'`. Only a comparison true on success is followed, so a guard on
 * such a name keeps its polarity (`if (!ok)` is the not-acquired path).
 */
export function guardNames(acquire: Acquire): readonly string[] {
  let names = guardNamesOf.get(acquire);
  if (names) return names;
  const own = lockNames(acquire);
  const aliases: string[] = [];
  const token = acquire.token && ts.isIdentifier(unwrap(acquire.token)) ? (unwrap(acquire.token) as ts.Identifier).text : undefined;
  const note = (comparison: Node | undefined) => {
    const name = successVariable(comparison, token);
    if (name && !own.includes(name) && !aliases.includes(name)) aliases.push(name);
  };
  if (acquire.result.kind === 'tested') note(valueCarrier(acquire.call).parent);
  for (const id of identifiersNamed(acquire.fn, own)) if (id.pos >= acquire.call.end) note(id.parent);
  for (const flag of flagsSetAfter(acquire.call, own)) if (!own.includes(flag) && !aliases.includes(flag)) aliases.push(flag);
  names = aliases.length > 0 ? [...own, ...aliases] : own;
  guardNamesOf.set(acquire, names);
  return names;
}

/**
 * `await mutex.acquire(); held = true;`: flags set to true by the statements after the acquire's own,
 * in its block. An acquire that fails throws (or answers, and its answer is tested first), so the flag
 * is true only once the lock is taken.
 */
function flagsSetAfter(call: Node, names: readonly string[]): string[] {
  const statement = ancestorWhere(call, (n) => ts.isStatement(n) || isFunctionLike(n));
  if (!statement) return [];
  // `if ((await set(...)) === 'OK') { held = true; break; }`: set in the branch the acquire's success opens.
  const opened = ts.isIfStatement(statement) && contains(statement.expression, call) && !testsFailure(statement.expression) ? statement.thenStatement : undefined;
  if (!opened && !ts.isBlock(statement.parent)) return [];
  const after = opened ? (ts.isBlock(opened) ? [...opened.statements] : [opened]) : (statement.parent as ts.Block).statements.slice((statement.parent as ts.Block).statements.indexOf(statement as ts.Statement) + 1);
  const setTrue = (s: Node): string[] => {
    const e = ts.isExpressionStatement(s) ? unwrap(s.expression) : undefined;
    return e && isAssignment(e) && ts.isIdentifier(e.left) && e.right.kind === ts.SyntaxKind.TrueKeyword ? [e.left.text] : [];
  };
  return after.flatMap((s) => {
    // `const claimed = await set(...); if (claimed === 'OK') { held = true; break; }`.
    if (ts.isIfStatement(s) && mentionsAny(s.expression, names) && !testsFailure(s.expression)) {
      return (ts.isBlock(s.thenStatement) ? [...s.thenStatement.statements] : [s.thenStatement]).flatMap(setTrue);
    }
    return setTrue(s);
  });
}

/**
 * The variable that stores a comparison true when the acquire succeeded: with a literal (`reply === 'OK'`),
 * or a reply that is the holder's value (set-if-absent-or-get) equal to this acquire's token.
 */
function successVariable(node: Node | undefined, token?: string): string | undefined {
  if (!node || !ts.isBinaryExpression(node)) return undefined;
  const holdsToken = !!token && EQUALS.has(node.operatorToken.kind) && [node.left, node.right].some((side) => { const n = unwrap(side); return ts.isIdentifier(n) && n.text === token; });
  if (!holdsToken && (!comparedLiteral(node) || testsFailure(node))) return undefined;
  let value: Node = node;
  const outOfParentheses = () => {
    while (value.parent && ts.isParenthesizedExpression(value.parent)) value = value.parent;
  };
  outOfParentheses();
  // `proceed = result === 'acquired' || (result === 'skipped' && optimistic)`: false only when not taken either;
  // `acquired = result !== null && result !== undefined`: both sides test the same reply.
  const compared = [node.left, node.right].map(unwrap).find(ts.isIdentifier);
  const sameReply = (side: Node) => !!compared && mentionsAny(side, [compared.text]);
  for (let parent = value.parent; parent && ts.isBinaryExpression(parent); parent = value.parent) {
    const or = parent.operatorToken.kind === ts.SyntaxKind.BarBarToken;
    const and = parent.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken && sameReply(parent.left === value ? parent.right : parent.left);
    if (!or && !and) break;
    value = parent;
    outOfParentheses();
  }
  const holder = value.parent;
  if (holder && ts.isVariableDeclaration(holder) && holder.initializer === value && ts.isIdentifier(holder.name)) return holder.name.text;
  if (holder && isAssignment(holder) && holder.right === value && ts.isIdentifier(holder.left)) return holder.left.text;
  return undefined;
}

/**
 * The statement whose body is `statement` or holds it, when it runs the release wherever the lock is
 * held: `if (token)` / `if (lockValue)` (no else), a loop over the held keys (`for (const k of keys)`),
 * or a try around the release alone.
 */
function heldTest(statement: Node): ts.Statement | undefined {
  const parent = ts.isBlock(statement.parent) ? statement.parent.parent : statement.parent;
  if (parent && (ts.isForOfStatement(parent) || ts.isForInStatement(parent))) return parent;
  // `try { await release(); } catch (e) { log(e); }`: the release guarded against its own error.
  if (parent && ts.isTryStatement(parent) && parent.tryBlock === statement.parent && parent.tryBlock.statements.length === 1) return parent;
  return parent && ts.isIfStatement(parent) && !parent.elseStatement && testsPresence(parent.expression) ? parent : undefined;
}

/** `if (await get(key) === token) await del(key)`: the owner check of a GET-compare release, around it. */
function ownerCheck(statement: Node, release: Release): ts.IfStatement | undefined {
  const test = optionalIn(statement);
  return test && release.getCompare?.ifStatement === test ? test : undefined;
}

/** The `if` (with no `else`) a statement is the branch of, alone or in a block. */
function optionalIn(statement: Node): ts.IfStatement | undefined {
  const parent = ts.isBlock(statement.parent) ? statement.parent.parent : statement.parent;
  return parent && ts.isIfStatement(parent) && !parent.elseStatement ? parent : undefined;
}

/** `if (token)`, `if (lockKey && lockValue)`, `if (token !== undefined)`: a test that the lock's names are set. */
function testsPresence(condition: Node): boolean {
  const c = unwrap(condition);
  if (ts.isIdentifier(c)) return true;
  if (!ts.isBinaryExpression(c)) return false;
  if (c.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) return testsPresence(c.left) && testsPresence(c.right);
  const unequal = c.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsEqualsToken || c.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsToken;
  return unequal && ts.isIdentifier(unwrap(c.left)) && /^(?:null|undefined)$/.test(c.right.getText());
}

/** A branch that always leaves its block (`break;`, `return x;`, `{ ...; continue; }`). */
function alwaysJumps(branch: Node): boolean {
  const last = ts.isBlock(branch) ? branch.statements[branch.statements.length - 1] : branch;
  return !!last && (ts.isBreakStatement(last) || ts.isContinueStatement(last) || ts.isReturnStatement(last) || ts.isThrowStatement(last));
}

/**
 * Is `node` reached only once the lock was taken: after an `if (!ok) return/throw` on this acquire, in
 * the same block, that does not hold it? A self-call there runs the work again after a taken lock, it
 * does not retry a failed acquire.
 */
export function onlyWhenAcquired(acquire: Acquire, node: Node): boolean {
  const first = enclosingStatement(acquire.call);
  const siblings = (first.parent as ts.Block | undefined)?.statements;
  if (!siblings || !contains(first.parent, node)) return false;
  const exits = (s: Node) => ts.isReturnStatement(s) || ts.isThrowStatement(s);
  return siblings.slice(siblings.indexOf(first as ts.Statement)).some((s) => ts.isIfStatement(s) && !s.elseStatement &&
    s.end <= node.getStart() && isGuard(s, acquire) && testsFailure(s.expression) &&
    (exits(s.thenStatement) || (ts.isBlock(s.thenStatement) && s.thenStatement.statements.some(exits))));
}

/** Is `node` in the branch a guard on this acquire takes when it failed (`if (!lock) { return next(busy) }`)? */
export function inNotAcquiredBranch(acquire: Acquire, node: Node): boolean {
  for (let a = node.parent; a && a !== acquire.fn; a = a.parent) {
    if (!ts.isIfStatement(a) || !isGuard(a, acquire)) continue;
    const failed = testsFailure(a.expression, guardNames(acquire)) ? a.thenStatement : a.elseStatement;
    if (failed && contains(failed, node)) return true;
  }
  return false;
}

/** `if (holder)` right on the reply of `SET ... NX GET` (isGuard looks for the name inside the condition). */
function oldValueTest(statement: ts.IfStatement, acquire: Acquire): boolean {
  const condition = unwrap(statement.expression);
  return repliesOldValue(acquire) && ts.isIdentifier(condition) && lockNames(acquire).includes(condition.text);
}

/** `if (ok)` on the lock's name itself, which isGuard (looking inside the condition) leaves out. */
function bareTest(statement: ts.IfStatement, acquire: Acquire): boolean {
  const condition = unwrap(statement.expression);
  return ts.isIdentifier(condition) && guardNames(acquire).includes(condition.text);
}

/** A branch that only returns (`return token;`): what the acquired path hands back is the caller's to release. */
function isHandOver(branch: Node): boolean {
  const only = ts.isBlock(branch) && branch.statements.length === 1 ? branch.statements[0] : branch;
  return ts.isReturnStatement(only) && !!only.expression;
}

/** Is this guard's condition true when the acquire failed (`!ok`, `ok === null`, `reply !== 'OK'`)? */
export function testsFailure(condition: Node, names?: readonly string[]): boolean {
  const e = unwrap(condition);
  if (ts.isPrefixUnaryExpression(e)) return e.operator === ts.SyntaxKind.ExclamationToken;
  if (!ts.isBinaryExpression(e)) return false;
  // `!lock.acquired || !lock.id`, given the lock's names: true only when the lock was not taken if every
  // part tests the lock (`!ok || !job` is also true while the lock is held).
  if (names && e.operatorToken.kind === ts.SyntaxKind.BarBarToken) {
    return [e.left, e.right].every((part) => testsFailure(part, names) && mentionsAny(part, names));
  }
  const literal = comparedLiteral(e);
  if (!literal) return false;
  const failedValue = FAILED.has(literal.kind) || (ts.isIdentifier(literal) && literal.text === 'undefined') || (ts.isNumericLiteral(literal) && literal.text === '0');
  const equal = e.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken || e.operatorToken.kind === ts.SyntaxKind.EqualsEqualsToken;
  return equal === failedValue;
}

const FAILED = new Set([ts.SyntaxKind.NullKeyword, ts.SyntaxKind.FalseKeyword]);
const EQUALS = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken]);

function mentionsAny(node: Node, names: readonly string[]): boolean {
  const e = unwrap(node);
  return (ts.isIdentifier(e) && names.includes(e.text)) || identifiersNamed(e, names).length > 0;
}

/** The literal side of a comparison (`null`, `false`, `undefined`, `'OK'`, `1`). */
function comparedLiteral(e: ts.BinaryExpression): Node | undefined {
  // `true` too (`(await take(key)) !== true`): a keyword, not a literal expression, in TypeScript's tree.
  return [e.left, e.right].map(unwrap).find((side) => FAILED.has(side.kind) || side.kind === ts.SyntaxKind.TrueKeyword || ts.isLiteralExpression(side) || (ts.isIdentifier(side) && side.text === 'undefined'));
}

export interface Exit {
  node: Node;
  /** `jump`: a `continue` or `break` out of the loop round that holds the acquire and the release. */
  kind: 'exception' | 'return' | 'jump';
}

/** `check(x)`, `this.buildWindow(now)`, `Dates.bounds(key)`: a call of a function of the file, not async, that can throw. */
function throwsSynchronously(call: ts.CallExpression): boolean {
  const callee = unwrap(call.expression);
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) && (callee.expression.kind === ts.SyntaxKind.ThisKeyword || /^[A-Z]/.test(callee.expression.getText())) ? callee.name.text : undefined;
  return !!name && throwsWhenCalled(call.getSourceFile(), name);
}

/** The first await/throw/return between the acquire and the release that skips the release. */
export function firstExit(acquire: Acquire, release: Release, to = release.call.getStart(), caught?: Node, releasing: readonly Node[] = [], returnsKeepIt = false): Exit | undefined {
  // `if (!entry) { await release(key); throw ... }` (or return): an early exit that releases first skips nothing.
  const releases = (node: Node) => releasing.some((call) => contains(node, call));
  const releasedFirst = (exit: Node) => ts.isBlock(exit.parent) && exit.parent.statements.some((s) => s.end <= exit.pos && releases(s));
  const from = acquire.call.end;
  // `await releaseLock(key); if (await moreToDo()) ...`: what throws after a release statement on its way
  // (in its block or one around it) throws with the lock already released.
  const releasedEarlier = (exit: Node) => {
    for (let a: Node = exit; a.parent && a !== acquire.fn; a = a.parent) {
      const list = ts.isBlock(a.parent) || ts.isCaseOrDefaultClause(a.parent) ? a.parent.statements : undefined;
      if (list?.some((s) => s.end <= a.pos && s.pos >= from && ts.isExpressionStatement(s) && releasing.includes(unwrapAwait(s.expression)))) return true;
    }
    return false;
  };
  // Passed to getStart, which otherwise walks up to the file from every node visited.
  const sourceFile = acquire.fn.getSourceFile();
  let found: Exit | undefined;
  // A return or throw that skips the release is named before an await that may throw: it is written
  // there to leave (an error answer), while the await may never throw.
  let exception: Exit | undefined;
  /** Blocks whose statements from an offset on run only when the acquire failed (see the guard below). */
  const notAcquiredFrom = new Map<Node, number>();
  const visit = (node: Node): void => {
    // `pos` (before the trivia) settles most nodes past `to` without scanning their trivia for the start.
    if (found || node.end <= from || node.pos >= to) return;
    if (node.pos >= (notAcquiredFrom.get(node.parent) ?? Infinity)) return;
    const start = node.getStart(sourceFile);
    if (start >= to) return;
    if (node !== acquire.fn && isFunctionLike(node)) return;
    // The catch of the try the acquire itself is in runs when the acquire threw: nothing is held.
    if (ts.isCatchClause(node) && contains(node.parent.tryBlock, acquire.call)) return;
    // `try { await acquire(); held = true; break; } catch { ... }`: the try leaves the block once the lock is
    // taken, so what follows the try in the block runs only after the catch, when the acquire threw.
    if (ts.isTryStatement(node) && node.catchClause && contains(node.tryBlock, acquire.call) && leavesOnceAcquired(node.tryBlock, acquire)) {
      notAcquiredFrom.set(node.parent, node.end);
    }
    // `if (redisReady) { acquire } else { ...; return; }`: the other branch never runs after the acquire.
    if (ts.isIfStatement(node) && node.elseStatement && contains(node, acquire.call) && !contains(node.expression, acquire.call)) {
      visit(contains(node.thenStatement, acquire.call) ? node.thenStatement : node.elseStatement);
      return;
    }
    // `case 'a': acquire...; break; case 'b': ...`: another case of the switch never runs after this one's,
    // nor, in a later switch on the same value, a case of another label.
    if (ts.isCaseOrDefaultClause(node) && !contains(node, acquire.call) && otherCase(node, acquire)) return;
    // `while (!(await acquire())) { ... }`: the loop body runs while the lock is not held.
    if ((ts.isWhileStatement(node) || ts.isForStatement(node)) && contains(node, acquire.call) && !contains(node.statement, acquire.call)) return;
    // `for (let i = 0; !taken && i < 5; i++) { await sleep(d); taken = await set(...) }` after the acquire:
    // a retry that runs only while the lock is not held.
    if ((ts.isWhileStatement(node) || ts.isForStatement(node)) && node.pos >= from && whileNotHeld(node, acquire)) return;
    // Work in a try whose catch swallows the error, before the release: its exceptions go on to the release.
    if (ts.isTryStatement(node) && swallows(node) && node.end <= to) {
      const outer = caught;
      caught = node.tryBlock;
      visit(node.tryBlock);
      caught = outer;
      if (node.catchClause) visit(node.catchClause);
      if (node.finallyBlock) visit(node.finallyBlock);
      return;
    }
    // The not-acquired branch of a guard (`if (!ok) return;`) has nothing to release.
    if (ts.isIfStatement(node) && (isGuard(node, acquire) || oldValueTest(node, acquire) || bareTest(node, acquire)) && !contains(node.thenStatement, release.call)) {
      // `if (ok) { ... }`: its then-branch is the acquired path, the else the not-acquired one.
      // `SET ... NX GET` answers with the previous holder: a truthy reply is the not-acquired path.
      const acquiredPath = testsFailure(node.expression, guardNames(acquire)) !== repliesOldValue(acquire) ? node.elseStatement : node.thenStatement;
      // `if (await set(...)) return token;`: an acquire helper handing the lock to its caller.
      if (acquiredPath && !isHandOver(acquiredPath)) visit(acquiredPath);
      // `if (ok) break;` in a retry loop: what follows in the block (the wait before the next attempt)
      // runs only when the acquire failed.
      if (acquiredPath === node.thenStatement && alwaysJumps(node.thenStatement)) notAcquiredFrom.set(node.parent, node.end);
      return;
    }
    if (start >= from) {
      // The separate EXPIRE of a non-atomic acquire is atomic-acquire's finding, not the work.
      const ttlSetter = acquire.laterExpire && contains(node, acquire.laterExpire.call);
      // An exception inside `caught` reaches a catch that releases.
      const throwsPast = !caught || !contains(caught, node);
      if (ts.isAwaitExpression(node) && !ttlSetter && !isAncestor(node, release.call) && !releases(node) && throwsPast && !neverThrows(node) && !releasedEarlier(node)) {
        exception ??= { node, kind: 'exception' };
        return;
      }
      // `const window = this.buildWindow(now)`: a call, not awaited, of a function of the file that throws.
      if (ts.isCallExpression(node) && node !== acquire.call && !ttlSetter && !isAncestor(node, release.call) && !releases(node) && throwsPast && throwsSynchronously(node) && !releasedEarlier(node)) {
        exception ??= { node, kind: 'exception' };
        return;
      }
      if (ts.isThrowStatement(node) && throwsPast && !releasedFirst(node)) {
        // A rethrow in a catch passes on what an await threw: that await is the cause to name.
        if (ancestorWhere(node, (a) => ts.isCatchClause(a) || isFunctionLike(a))?.kind === ts.SyntaxKind.CatchClause) exception ??= { node, kind: 'exception' };
        else found = { node, kind: 'exception' };
        return;
      }
      if ((ts.isContinueStatement(node) || ts.isBreakStatement(node)) && !node.label && jumpsPastRelease(node, acquire, release) && !releasedBefore(node, release) && !releasedFirst(node) && !keptOnPurpose(node, sourceFile)) {
        found = { node, kind: 'jump' };
        return;
      }
      // `return lock.unlock()`: the return that releases skips nothing.
      if (ts.isReturnStatement(node) && !isAncestor(node, release.call) && !returnsKeepIt && !releasedBefore(node, release) && !releasedFirst(node) && !keptOnPurpose(node, sourceFile)) {
        found = { node, kind: 'return' };
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(acquire.fn, visit);
  return found ?? exception;
}

/** Is a part of the loop's condition (joined by `&&`) true only when the acquire failed (`!taken`)? */
function whileNotHeld(loop: ts.WhileStatement | ts.ForStatement, acquire: Acquire): boolean {
  const names = guardNames(acquire);
  const parts: Node[] = [];
  const split = (e: Node | undefined): void => {
    const n = e && unwrap(e);
    if (n && ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) {
      split(n.left);
      split(n.right);
    } else if (n) parts.push(n);
  };
  split(ts.isForStatement(loop) ? loop.condition : loop.expression);
  return names.length > 0 && parts.some((part) => testsFailure(part, names) && mentionsAny(part, names));
}

/**
 * `redlock.lock(key, ttl).then(async (lock) => { await work(); return lock.unlock(); })`: the callback
 * holds the lock, so an exception from the work before its release skips the release.
 */
function thenCallbackCoverage(model: LockModel, acquire: Acquire) {
  const access = acquire.call.parent;
  const then = access && ts.isPropertyAccessExpression(access) && access.name.text === 'then' && ts.isCallExpression(access.parent) ? access.parent : undefined;
  const callback = then?.arguments[0] && unwrap(then.arguments[0]);
  if (!callback || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return undefined;
  const param = callback.parameters[0]?.name;
  if (!param || !ts.isIdentifier(param)) return undefined;
  const releases = model.releases.filter((r) => r.handle === param.text && contains(callback, r.call) && enclosingFunction(r.call) === callback);
  const release = releases.reduce<Release | undefined>((last, r) => (!last || r.call.pos > last.call.pos ? r : last), undefined);
  if (!release) return undefined;
  // Released in a finally: only awaited work before its try can skip it.
  const guard = ancestorWhere<ts.TryStatement>(release.call, (a) => ts.isTryStatement(a) && !!a.finallyBlock && contains(a.finallyBlock, release.call));
  const exit = firstExit({ ...acquire, fn: callback }, release, guard?.getStart(), undefined, releases.map((r) => r.call));
  return exit ? { release, exit, statement: enclosingStatement(release.call) } : undefined;
}

/**
 * `if (await take(throttleKey, 300)) { if (await take(slotKey, 1)) work(); else { release(throttleKey);
 * requeue(); } }`: a release only in the branch where a second lock was busy undoes the first so the job
 * can come back; on success the first is kept on purpose (a throttle), so no path skips its release.
 */
function undoneWhenOtherBusy(model: LockModel, acquire: Acquire, release: Release): boolean {
  return model.acquires.some((other) => {
    if (other === acquire || !contains(acquire.fn, other.call)) return false;
    const test = ancestorWhere<ts.IfStatement>(other.call, (a) => ts.isIfStatement(a) && contains(a.expression, other.call));
    if (!test || !contains(test, release.call)) return false;
    const busyBranch = testsFailure(test.expression, guardNames(other)) ? test.thenStatement : test.elseStatement;
    return !!busyBranch && contains(busyBranch, release.call);
  });
}

const RELEASE_HELPER = /release|unlock|free|del|clear|drop|remove/i;

/**
 * Does another function hand the same lock to the finishing step this acquire's function hands it to
 * (`executeWithdrawal(user, key)`, a helper that works and releases in its finally)? Then the lock spans
 * two steps on purpose: `if (needsPin) { savePending(); return askPin(); }` leaves it for the PIN
 * handler, which calls the same step on the same key. A helper named as a plain release
 * (`releaseLock(key)` in an admin route) does not count: that is another way to break the lock.
 */
function finishedElsewhere(model: LockModel, acquire: Acquire, own: readonly Release[]): boolean {
  const steps = new Set(own.filter((r) => r.kind === 'helper').map((r) => unwrap(r.call.expression).getText()).filter((name) => !RELEASE_HELPER.test(name)));
  if (steps.size === 0) return false;
  return model.releases.some((r) => r.kind === 'helper' && !contains(acquire.fn, r.call) && steps.has(unwrap(r.call.expression).getText()) && releasesLock(acquire, r));
}

/**
 * A case the path from the acquire never runs: another case of the acquire's own switch when the
 * acquire's case ends in a jump (no fall-through), or a case of another label in a later switch on the
 * same value (`switch (kind)` twice: the `'orders'` acquire is released in the second `'orders'` case).
 */
function otherCase(clause: ts.CaseOrDefaultClause, acquire: Acquire): boolean {
  const own = ancestorWhere<ts.CaseOrDefaultClause>(acquire.call, ts.isCaseOrDefaultClause);
  if (!own) return false;
  if (own.parent === clause.parent) {
    const last = own.statements[own.statements.length - 1];
    const end = last && ts.isBlock(last) ? last.statements[last.statements.length - 1] : last;
    return !!end && (ts.isBreakStatement(end) || ts.isReturnStatement(end) || ts.isThrowStatement(end) || ts.isContinueStatement(end));
  }
  const sameValue = clause.parent.parent.expression.getText() === own.parent.parent.expression.getText();
  return sameValue && ts.isCaseClause(own) && ts.isCaseClause(clause) && clause.expression.getText() !== own.expression.getText();
}

/**
 * Does a try block that takes the lock always leave its block after it (`break`, `return`), with nothing
 * after the acquire that can throw (`held = true`)? Then its catch is reached only from the acquire.
 */
function leavesOnceAcquired(tryBlock: ts.Block, acquire: Acquire): boolean {
  const statements = tryBlock.statements;
  const at = statements.findIndex((s) => contains(s, acquire.call));
  if (at < 0 || !alwaysJumps(tryBlock)) return false;
  const mayThrow = (s: Node) => ts.isThrowStatement(s) || [ts.SyntaxKind.CallExpression, ts.SyntaxKind.NewExpression, ts.SyntaxKind.AwaitExpression].some((kind) => descendantsOfKind(s, kind).length > 0);
  return !statements.slice(at + 1).some(mayThrow);
}

// "Do not unlock", "don't release", "keep the lock", "leave the lock held": the comment says so.
const KEEPS_LOCK = /\b(?:do\s+not|don'?t|never|no)\s+(?:unlock|release)|\bkeep(?:s|ing)?\s+(?:the\s+|this\s+)?lock\b|\bleav(?:e|es|ing)\s+(?:the\s+|this\s+)?lock\s+(?:held|in\s+place|set|taken)/i;

/** A return whose own comment says the lock is kept on purpose (held until its TTL, against duplicates). */
/**
 * `for (const url of urls) { lock(url); ...; if (done) continue; ...; release(url); }`: a jump out of the
 * round of the loop that holds both the acquire and the release (not of an inner loop or a switch).
 */
function jumpsPastRelease(jump: ts.ContinueStatement | ts.BreakStatement, acquire: Acquire, release: Release): boolean {
  const target = ancestorWhere(jump, (a) => isLoop(a) || ts.isForOfStatement(a) || ts.isForInStatement(a) || (ts.isBreakStatement(jump) && ts.isSwitchStatement(a)) || isFunctionLike(a));
  return !!target && !isFunctionLike(target) && !ts.isSwitchStatement(target) && contains(target, acquire.call) && contains(target, release.call);
}

function keptOnPurpose(ret: ts.Statement, sourceFile: ts.SourceFile): boolean {
  const text = sourceFile.text;
  return (ts.getLeadingCommentRanges(text, ret.pos) ?? []).some((c) => KEEPS_LOCK.test(text.slice(c.pos, c.end)));
}

/** A catch that neither rethrows nor leaves: the code after the try runs whatever the try block threw. */
function swallows(statement: ts.TryStatement): boolean {
  const clause = statement.catchClause;
  if (!clause) return false;
  const own = (n: Node) => ancestorWhere(n, isFunctionLike) === ancestorWhere(statement, isFunctionLike);
  return ![ts.SyntaxKind.ThrowStatement, ts.SyntaxKind.ReturnStatement].some((kind) => descendantsOfKind(clause.block, kind).some(own));
}

/** A `return` preceded in its own block by a release of the same lock (`await release(); return;`). */
function releasedBefore(ret: Node, release: Release): boolean {
  const block = ret.parent;
  if (!ts.isBlock(block)) return false;
  const target = release.handle ?? (release.key ? release.key.text : undefined);
  return block.statements.some((s) => s.end <= ret.pos && target !== undefined && s.getText().includes(target) && /release|unlock|del|eval/i.test(s.getText()));
}

export function releaseCoverage(model: LockModel, acquire: Acquire) {
  const releases = releasesOf(model, acquire);
  if (releases.length === 0) return thenCallbackCoverage(model, acquire);
  if (releases.every((r) => undoneWhenOtherBusy(model, acquire, r))) return undefined;
  if (escapes(acquire, releases.map((r) => r.call))) return undefined;
  if (releases.some((r) => isFinallyCallback(r)) || catchAndAfter(releases)) return undefined;
  const caught = catchRelease(releases);
  const guarded = releases.map((r) => ({ r, tryStatement: finallyTry(r, acquire) })).find((g) => g.tryStatement);
  if (guarded?.tryStatement) {
    // Awaited work between the acquire (and its check) and the try that releases can throw past it.
    const tryStart = guarded.tryStatement.getStart();
    const exit = tryStart > acquire.call.end ? firstExit(acquire, guarded.r, tryStart, caught?.tryBlock, releases.map((r) => r.call)) : undefined;
    return exit ? { release: guarded.r, exit, statement: enclosingStatement(guarded.r.call) } : undefined;
  }
  if (caught) {
    const release = caught.success ?? caught.release;
    // With no release on the success path the lock is kept by design, unless a callback releases it later.
    const kept = !caught.success && !releasedInCallback(model, acquire);
    const exit = firstExit(acquire, release, kept ? caught.tryBlock.getStart() : release.call.getStart(), caught.tryBlock, releases.map((r) => r.call));
    return exit ? { release, exit, statement: enclosingStatement(release.call) } : undefined;
  }
  // The last release in the function body: an early `release(); return;` before the work must not hide
  // the work's exceptions from the release after it (a return after its own release is no exit).
  const own = releases.filter((r) => r.fn === acquire.fn && enclosingFunction(r.call) === acquire.fn);
  const release = own.reduce<Release | undefined>((last, r) => (!last || r.call.pos > last.call.pos ? r : last), undefined);
  if (!release) return undefined;
  const exit = firstExit(acquire, release, undefined, undefined, releases.map((r) => r.call), finishedElsewhere(model, acquire, own));
  return exit ? { release, exit, statement: enclosingStatement(release.call) } : undefined;
}
