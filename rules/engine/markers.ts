// Set-once markers with a rollback. `SET k 1 NX EX window` marks that something was done or claimed
// (an idempotency key, a sent receipt, a replayed nonce, a claim kept for a day); the function keeps
// the key when it goes on, and deletes it only on the paths that give up (a catch, an early return
// or throw, the else of a success check, a rejection handler of the work it started) so a retry can run. That is not a lock: it is never
// released when the work is done, and its DELs undo this request's own mark moments after setting
// it. Such acquires are markers, and their rollback DELs are no releases.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import type { Acquire, Release } from './model';
import { isLockFunction, looksLikeLockKey } from './keys';
import { afterItsTry, ancestorWhere, calleeName, callsNamed, declarationOf, descendantsOfKind, functionNameOf, isAncestor, isFunctionLike, literalString, methodOf, normalizeText, resolveConst, unwrap, type Node } from './nodes';

const MARKER_KINDS = new Set(['set-nx', 'setnx']);

function tested(acquire: Acquire): boolean {
  const use = acquire.result;
  return use.kind === 'tested' || (use.kind === 'assigned' && use.tested);
}

const exits = (s: ts.Statement) => ts.isReturnStatement(s) || ts.isThrowStatement(s) || ts.isContinueStatement(s) || ts.isBreakStatement(s);

/**
 * Is the release on a path that gives up: in a catch clause, in an `if` branch that then leaves
 * (return, throw, continue, break), or in one branch of an if/else whose other branch keeps the key
 * (`if (result.ok) {...} else del`) on a test other than the acquire's answer? A finally, or the
 * function's main line, is the work's own end.
 */
function givesUp(release: Release, acquire: Acquire, own: readonly Release[], guard: ts.IfStatement): boolean {
  if (release.fn !== acquire.fn) return true; // in a rejection handler (ownFlow)
  if (afterKeptReturn(release, acquire, own, guard) || onWorkFailure(release, acquire)) return true;
  for (let a: Node = release.call; a.parent && a !== acquire.fn; a = a.parent) {
    const parent = a.parent;
    if (ts.isTryStatement(parent) && parent.finallyBlock === a) return false;
    if (ts.isCatchClause(parent)) return true;
    if (ts.isBlock(a) && ts.isIfStatement(parent) && a.statements.some(exits)) return true;
    // `if (!eligible) return redis.del(key)`: the branch itself leaves.
    if (ts.isIfStatement(parent) && a !== parent.expression && exits(a as ts.Statement)) return true;
    if (ts.isIfStatement(parent) && parent.elseStatement && a !== parent.expression && keptOnOtherBranch(parent, a, acquire, own)) return true;
  }
  return false;
}

/**
 * `if (fresh.ok) return; await redis.del(windowKey)`: the function's main line deletes the key after an
 * `if` that returns keeping it (the else of a success check, written as an early return). Only for a
 * fixed value written on a key and in a function not named like a lock, deleted by a plain DEL: a lock
 * left held on an early return is a forgotten release (release-on-all-paths), and its DEL the release.
 */
function afterKeptReturn(release: Release, acquire: Acquire, own: readonly Release[], guard: ts.IfStatement): boolean {
  const fn = acquire.fn;
  if (!acquire.key || looksLikeLockKey(acquire.key) || !isFunctionLike(fn) || isLockFunction(fn) || !fn.body || !ts.isBlock(fn.body)) return false;
  // A marker writes a fixed value and deletes it as it is; a token compared on release is a lock's.
  if (release.ownerChecked || !acquire.token || !isLiteralValue(acquire.token)) return false;
  const body = fn.body;
  let top: Node = release.call;
  for (; top.parent && top.parent !== body; top = top.parent) {
    const parent = top.parent;
    const mainLine = ts.isExpressionStatement(parent) || ts.isAwaitExpression(parent) || ts.isParenthesizedExpression(parent) || ts.isBlock(parent) || (ts.isTryStatement(parent) && parent.tryBlock === top);
    if (!mainLine) return false;
  }
  const statements = body.statements;
  const [from, to] = [statements.indexOf(guard), statements.indexOf(top as ts.Statement)];
  if (from < 0 || to <= from) return false;
  return statements.slice(from + 1, to).some((s) => ts.isIfStatement(s) && !s.elseStatement && returnsOnly(s.thenStatement) && !own.some((r) => isAncestor(s, r.call)));
}

/**
 * `if (!delivered && reserved) await redis.del(dedupeKey)`: a delete only when an outcome of the work done
 * after the acquire (a variable set after it) says it failed, the key kept when it went well. Only for a
 * fixed value on a key and in a function not named like a lock: a lock is released whatever the outcome.
 */
function onWorkFailure(release: Release, acquire: Acquire): boolean {
  const fn = acquire.fn;
  if (!acquire.key || looksLikeLockKey(acquire.key) || !isFunctionLike(fn) || isLockFunction(fn) || release.ownerChecked || !acquire.token || !isLiteralValue(acquire.token)) return false;
  const statement = ancestorWhere(release.call, (a) => ts.isStatement(a) && !ts.isExpressionStatement(a) && !ts.isBlock(a));
  if (!statement || !ts.isIfStatement(statement) || statement.elseStatement || isAncestor(statement.expression, release.call)) return false;
  return descendantsOfKind<ts.Identifier>(statement.expression, ts.SyntaxKind.Identifier).concat(ts.isIdentifier(statement.expression) ? [statement.expression] : []).some((id) => {
    const declared = ts.isIdentifier(id) ? declarationOf(id) : undefined;
    return !!declared && ts.isVariableDeclaration(declared) && declared.pos > acquire.call.end && ancestorWhere(declared, isFunctionLike) === fn;
  });
}

function isLiteralValue(node: Node): boolean {
  const value = unwrap(node);
  return ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value) || ts.isNumericLiteral(value) || value.kind === ts.SyntaxKind.TrueKeyword;
}

/** A branch that leaves by `return` (not a throw: that is giving up). */
function returnsOnly(branch: ts.Statement): boolean {
  return ts.isReturnStatement(branch) || (ts.isBlock(branch) && branch.statements.some(ts.isReturnStatement) && !branch.statements.some(ts.isThrowStatement));
}

/** The other branch of `if (...) a else b` deletes nothing, and the test is not the acquire's answer. */
function keptOnOtherBranch(statement: ts.IfStatement, branch: Node, acquire: Acquire, own: readonly Release[]): boolean {
  const other = branch === statement.thenStatement ? statement.elseStatement! : statement.thenStatement;
  const answer = acquire.result.kind === 'assigned' ? acquire.result.name : undefined;
  const test = statement.expression;
  const readsAnswer = [test, ...descendantsOfKind<ts.Identifier>(test, ts.SyntaxKind.Identifier)].some((n) => ts.isIdentifier(n) && n.text === answer);
  return !readsAnswer && !own.some((r) => isAncestor(other, r.call));
}

const names = (acquire: Acquire): string[] => {
  const key = acquire.key ? unwrap(acquire.key.node) : undefined;
  const use = acquire.result;
  const answer = use.kind === 'assigned' ? use.name : testStoredIn(acquire);
  return [...(key && ts.isIdentifier(key) ? [key.text] : []), ...(answer ? [answer] : [])];
};

/** `claimed = (await redis.set(...)) === 'OK'`: the variable the acquire's tested answer is stored in. */
function testStoredIn(acquire: Acquire): string | undefined {
  const statement = acquire.statement;
  const assignment = ts.isExpressionStatement(statement) ? unwrap(statement.expression) : undefined;
  if (!assignment || !ts.isBinaryExpression(assignment) || assignment.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return undefined;
  const left = unwrap(assignment.left);
  return ts.isIdentifier(left) && isAncestor(assignment.right, acquire.call) ? left.text : undefined;
}

/**
 * The plain `if (!ok) <leave>` (or `!== 'OK'`, `=== null`) that tests the acquire's answer, if any. A test that
 * also reads something else (`!ok && !held`) lets the not-acquired path go on to the deletes, which
 * then remove a key this request did not set: that is no rollback.
 */
function cleanGuard(acquire: Acquire): ts.IfStatement | undefined {
  if (acquire.result.kind === 'tested' && !testStoredIn(acquire)) return guardTest(acquire, acquire.statement);
  // `if (setError) return;` of an error-as-value pair may come first: a few leaving ifs are passed over.
  let statement = nextStatement(acquire.statement) ?? afterTry(acquire.statement);
  for (let i = 0; i < GUARD_LOOKAHEAD && statement && ts.isIfStatement(statement); i++, statement = nextStatement(statement)) {
    const guard = guardTest(acquire, statement);
    if (guard) return guard;
    if (!leaves(statement)) return undefined;
  }
  return undefined;
}

/**
 * `try { first = await redis.set(...) } catch { ...; return }` then `if (!first) return`: the statement
 * after a try whose block ends with the acquire and whose catch leaves, so that it is reached only with
 * the acquire's answer.
 */
function afterTry(statement: Node): ts.Statement | undefined {
  const found = afterItsTry(statement);
  if (!found || found.attempt.tryBlock.statements.at(-1) !== statement) return undefined;
  const handler = found.attempt.catchClause?.block.statements;
  return handler && handler.length > 0 && exits(handler[handler.length - 1]) ? found.next : undefined;
}

/** Statements after the acquire among which its guard is looked for. */
const GUARD_LOOKAHEAD = 3;

const leaves = (statement: ts.IfStatement) => exits(statement.thenStatement) || (ts.isBlock(statement.thenStatement) && statement.thenStatement.statements.some(exits));

function guardTest(acquire: Acquire, statement: Node): ts.IfStatement | undefined {
  if (!ts.isIfStatement(statement)) return undefined;
  let condition: Node = unwrap(statement.expression);
  if (ts.isPrefixUnaryExpression(condition) && condition.operator === ts.SyntaxKind.ExclamationToken) condition = unwrap(condition.operand);
  if (ts.isBinaryExpression(condition) && /^[!=]==?$/.test(condition.operatorToken.getText())) condition = unwrap(condition.left);
  if (ts.isAwaitExpression(condition)) condition = unwrap(condition.expression);
  return leaves(statement) && (condition === acquire.call || (ts.isIdentifier(condition) && names(acquire).includes(condition.text))) ? statement : undefined;
}

/**
 * Does a DEL in the not-acquired branch delete the key this acquire just failed to take: the same key
 * expression, or the same key over every element of the list the acquire loops over (`for (const s of
 * seats) del(seat:${s})` after `for (const seat of seats)` took some of them)? That key is another
 * holder's: no rollback.
 */
function deletesUnacquired(release: Release, acquire: Acquire, guard: ts.IfStatement): boolean {
  if (!acquire.key || !release.key || !isAncestor(guard.thenStatement, release.call)) return false;
  if (release.key.canonical === acquire.key.canonical) return true;
  const taking = loopOver(acquire.call, acquire.fn);
  const deleting = loopOver(release.call, guard.thenStatement);
  if (!taking || !deleting || normalizeText(taking.expression) !== normalizeText(deleting.expression)) return false;
  const [from, to] = [loopName(deleting), loopName(taking)];
  return !!from && !!to && renamed(release.key.canonical, from, to) === acquire.key.canonical;
}

/** The innermost `for (const x of list)` around `node`, below `top`. */
function loopOver(node: Node, top: Node): ts.ForOfStatement | undefined {
  for (let a = node.parent; a && a !== top; a = a.parent) if (ts.isForOfStatement(a)) return a;
  return undefined;
}

function loopName(loop: ts.ForOfStatement): string | undefined {
  const list = loop.initializer;
  const decl = ts.isVariableDeclarationList(list) && list.declarations.length === 1 ? list.declarations[0].name : list;
  return ts.isIdentifier(decl) ? decl.text : undefined;
}

function renamed(text: string, from: string, to: string): string {
  return text.replace(new RegExp(`(?<![\\w$.])${from.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'), to);
}

function nextStatement(statement: Node): ts.Statement | undefined {
  const block = statement.parent;
  if (!block || !(ts.isBlock(block) || ts.isSourceFile(block))) return undefined;
  return block.statements[block.statements.indexOf(statement as ts.Statement) + 1];
}

/**
 * Is the key handed to another function after the acquire (`await payout(account, lockKey)`)? Then the
 * lock lives on past this function, which may release it there: no marker can be told.
 */
function keyHandedOn(acquire: Acquire, isCommand: (call: ts.CallExpression) => boolean): boolean {
  const key = acquire.key ? unwrap(acquire.key.node) : undefined;
  if (!key || !ts.isIdentifier(key)) return false;
  return descendantsOfKind<ts.CallExpression>(acquire.fn, ts.SyntaxKind.CallExpression).some(
    (call) => call.pos > acquire.call.end && !isCommand(call) && call.arguments.some((a) => ts.isIdentifier(unwrap(a)) && (unwrap(a) as ts.Identifier).text === key.text),
  );
}

/**
 * A handler that runs only when work started after the acquire failed: `work().catch((e) => ...)`, the
 * second argument of `.then`, RxJS `catchError(...)` or the `error` callback of `tap({ error })` /
 * `subscribe({ error })`. A delete there undoes the mark when the work it let start fails.
 */
function isRejectionHandler(fn: Node): boolean {
  const parent = fn.parent;
  if (!parent) return false;
  if (ts.isCallExpression(parent)) {
    const method = calleeName(parent);
    const at = parent.arguments.indexOf(fn as ts.Expression);
    return (method === 'catch' && at === 0) || (method === 'then' && at === 1) || (method === 'catchError' && at === 0);
  }
  const call = ts.isPropertyAssignment(parent) && parent.initializer === fn && parent.name.getText() === 'error' ? parent.parent.parent : undefined;
  return !!call && ts.isCallExpression(call) && /^(?:tap|subscribe)$/.test(calleeName(call) ?? '');
}

/**
 * `work().then((started) => { if (!started) del })`: in the fulfilment handler of the work, a branch
 * taken when the outcome it was handed says the work did not go ahead.
 */
function onFailedOutcome(release: Release, handler: Node): boolean {
  if (!ts.isArrowFunction(handler) && !ts.isFunctionExpression(handler)) return false;
  const parent = handler.parent;
  if (!ts.isCallExpression(parent) || methodOf(parent)?.name !== 'then' || parent.arguments[0] !== handler) return false;
  const outcome = handler.parameters[0]?.name;
  if (!outcome || !ts.isIdentifier(outcome)) return false;
  for (let a: Node = release.call; a.parent && a !== handler; a = a.parent) {
    const test = a.parent;
    if (ts.isIfStatement(test) && test.thenStatement === a && saysNotDone(test.expression, outcome.text)) return true;
  }
  return false;
}

/** `!started`, `!result.ok`, `started === false`, `result.status !== 'started'`: the outcome says no. */
function saysNotDone(condition: Node, outcome: string): boolean {
  const c = unwrap(condition);
  const readsOutcome = (n: Node): boolean => {
    const e = unwrap(n);
    return (ts.isIdentifier(e) && e.text === outcome) || (ts.isPropertyAccessExpression(e) && readsOutcome(e.expression));
  };
  if (ts.isPrefixUnaryExpression(c)) return c.operator === ts.SyntaxKind.ExclamationToken && readsOutcome(c.operand);
  if (!ts.isBinaryExpression(c) || !readsOutcome(c.left)) return false;
  const right = unwrap(c.right);
  const op = c.operatorToken.kind;
  if (op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken) return ts.isStringLiteral(right) || right.kind === ts.SyntaxKind.TrueKeyword;
  return (op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken) && (right.kind === ts.SyntaxKind.FalseKeyword || right.kind === ts.SyntaxKind.NullKeyword);
}

/**
 * Does the release belong to the acquiring function's own flow: in it, or in a rejection handler (or a
 * failed-outcome branch of the fulfilment handler) of work it started after the acquire?
 */
function ownFlow(release: Release, acquire: Acquire): boolean {
  if (release.fn === acquire.fn) return true;
  for (let fn: Node | undefined = release.fn; fn && fn !== acquire.fn; fn = ancestorWhere(fn, isFunctionLike)) {
    if ((isRejectionHandler(fn) || onFailedOutcome(release, fn)) && fn.pos > acquire.call.end) return isAncestor(acquire.fn, fn);
  }
  return false;
}

/**
 * The NX acquires that are markers (each gets `marker`), and the deletes that only roll them back:
 * its answer is tested by a plain guard, every release of the key in the acquiring function comes
 * after it and gives up, and the key is not handed on.
 */
export function markerRollbacks(acquires: readonly Acquire[], releasesOn: (acquire: Acquire) => readonly Release[], isCommand: (call: ts.CallExpression) => boolean): Set<Release> {
  const candidates = new Map<Acquire, { guard: ts.IfStatement; own: Release[]; foreign: Release[] }>();
  for (const acquire of acquires) {
    const guard = MARKER_KINDS.has(acquire.kind) && acquire.key && tested(acquire) ? cleanGuard(acquire) : undefined;
    if (!guard) continue;
    const all = releasesOn(acquire);
    const own = all.filter((r) => ownFlow(r, acquire));
    if (own.length === 0 || own.some((r) => r.call.pos < acquire.call.end || !givesUp(r, acquire, own, guard)) || keyHandedOn(acquire, isCommand)) continue;
    candidates.set(acquire, { guard, own, foreign: all.filter((r) => !own.includes(r)) });
  }
  // Released anywhere else in the file (a release helper, a finally in another function): a lock. Unless
  // that delete rolls back another marker of the same key (one claim taken by several handlers).
  for (let changed = true; changed; ) {
    changed = false;
    const rolledBack = new Set([...candidates.values()].flatMap((c) => c.own));
    for (const [acquire, { foreign }] of candidates) {
      if (foreign.some((r) => !rolledBack.has(r))) {
        candidates.delete(acquire);
        changed = true;
      }
    }
  }
  const rollbacks = new Set<Release>();
  for (const [acquire, { guard, own }] of candidates) {
    acquire.marker = true;
    // A DEL of the key this acquire did not take stays a release: it deletes another holder's lock.
    for (const r of own) {
      if (deletesUnacquired(r, acquire, guard)) r.failedAcquire = acquire;
      else rollbacks.add(r);
    }
  }
  return rollbacks;
}

/**
 * `try { r = await this.reserveUsage(...); ...work } catch (e) { await this.releaseReservation(r); throw e }`:
 * a release helper of this file called only in catch clauses whose try called a helper that acquires.
 * The reservation is kept when the work is done and rolled back when it fails, so those releases are
 * rollbacks, not a holder's release.
 */
export function rollbackHelpers(acquires: readonly Acquire[], releases: readonly Release[], sourceFile: ts.SourceFile): Set<Release> {
  const rollbacks = new Set<Release>();
  const acquiring = new Set(acquires.filter((a) => isFunctionLike(a.fn)).map((a) => functionNameOf(a.fn)).filter((n) => n !== ''));
  if (acquiring.size === 0) return rollbacks;
  const byFn = new Map<Node, Release[]>();
  for (const r of releases) if (isFunctionLike(r.fn) && !acquires.some((a) => a.fn === r.fn)) byFn.set(r.fn, [...(byFn.get(r.fn) ?? []), r]);
  for (const [fn, own] of byFn) {
    const name = functionNameOf(fn);
    const calls = name ? callsNamed(sourceFile, (n) => n === name).filter((c) => !isAncestor(fn, c)) : [];
    const onGiveUp = (call: ts.CallExpression) => {
      const clause = ancestorWhere(call, (a) => ts.isCatchClause(a) || isFunctionLike(a));
      return !!clause && ts.isCatchClause(clause) && callsNamed(clause.parent.tryBlock, (n) => acquiring.has(n)).length > 0;
    };
    if (calls.length > 0 && calls.every(onGiveUp)) for (const r of own) rollbacks.add(r);
  }
  return rollbacks;
}

/** A function named for undoing what failed: `tryReleaseOnFailure`, `rollbackClaim`, `undoReservation`. */
const ON_FAILURE = /on_?(?:fail|error)|roll_?back|undo|revert/i;

/**
 * `tryAcquireProcessingLock` (SET NX), `tryConfirmProcessed` (a longer TTL once done) and
 * `tryReleaseOnFailure` (DEL, so a retry can run): a key released only by functions named for a
 * failure is kept when the work is done, a marker; those deletes are its rollbacks.
 */
export function failureNamedRollbacks(acquires: readonly Acquire[], releasesOn: (acquire: Acquire) => readonly Release[]): Set<Release> {
  const rollbacks = new Set<Release>();
  const onFailure = (r: Release) => isFunctionLike(r.fn) && ON_FAILURE.test(functionNameOf(r.fn));
  for (const acquire of acquires) {
    const releases = releasesOn(acquire);
    if (!MARKER_KINDS.has(acquire.kind) || releases.length === 0 || !releases.every((r) => r.fn !== acquire.fn && onFailure(r))) continue;
    acquire.marker = true;
    for (const r of releases) rollbacks.add(r);
  }
  return rollbacks;
}

/**
 * `SET k 'processing' NX PX 5m` to claim, `SET k 'completed' PX 1d` (or the response itself) once done,
 * `DEL k` when the run failed: a key its own code moves from a fixed claim to another state is an
 * idempotency record, not a lock (no holder releases a lock by writing a new state into it); its
 * deletes let a retry run.
 */
export function stateRecordRollbacks(acquires: readonly Acquire[], plainSetsOn: (acquire: Acquire) => readonly RedisCommand[], releasesOn: (acquire: Acquire) => readonly Release[]): Set<Release> {
  const rollbacks = new Set<Release>();
  for (const acquire of acquires) {
    const claimed = MARKER_KINDS.has(acquire.kind) && acquire.token ? fixedValue(acquire.token) : undefined;
    if (claimed === undefined) continue;
    // A value that is no fixed one (the response stored for replays, `JSON.stringify(result)`, also by a
    // SETEX) is another state too.
    const moved = plainSetsOn(acquire).some((set) => !!set.args[0] && fixedValue(set.args[0]) !== claimed);
    if (!moved) continue;
    acquire.marker = true;
    for (const r of releasesOn(acquire)) rollbacks.add(r);
  }
  return rollbacks;
}

/** A literal's text, or that of the literal a `const` holds (`const COMPLETED = 'completed'`). */
function fixedValue(node: Node): string | undefined {
  const n = unwrap(node);
  const value = ts.isIdentifier(n) ? resolveConst(n) : n;
  if (!value) return undefined;
  const v = unwrap(value);
  return literalString(v) ?? (ts.isNumericLiteral(v) ? v.text : undefined);
}

/** `redis.multi()`, `client.pipeline()`: a queue of commands sent together, whose replies come from `exec`. */
function isQueue(receiver: Node): boolean {
  let r = unwrap(receiver);
  if (ts.isIdentifier(r)) {
    const declaration = declarationOf(r);
    const initializer = declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
    if (!initializer) return false;
    r = unwrap(initializer);
  }
  // `redis.multi().get(k).set(k, ...)`: somewhere down the chain, the queue was opened.
  for (; ts.isCallExpression(r); r = unwrap(methodOf(r)?.receiver ?? r.expression)) {
    const name = methodOf(r)?.name;
    if (name === 'multi' || name === 'pipeline') return true;
    if (!methodOf(r)) return false;
  }
  return false;
}

/**
 * `multi.get(k); multi.set(k, now, 'NX', 'EX', ttl)`: a transaction that reads a key and writes it only
 * when it is missing keeps a first-seen value (SET NX GET, spelled for servers before Redis 7). Nobody
 * waits on it or releases it as a holder: it is a value, not a lock, whatever is done with it later.
 */
const COUNTS = /^(?:h?incr(?:by(?:float)?)?|decr(?:by)?)$/i;

/**
 * `multi().set(k, '0', { NX: true, EX: 60 }).incr(k)`: an NX SET whose key the same function then
 * increments seeds a counter (a fixed-window rate limit), it takes no lock: a marker, with no holder.
 */
export function markCounterSeeds(acquires: readonly Acquire[]): void {
  // A file that increments nothing has no counter: most files are spared the walk of each function.
  if (acquires.length === 0 || !/incr|decr/i.test(acquires[0].call.getSourceFile().text)) return;
  for (const acquire of acquires) if (seedsCounter(acquire)) acquire.marker = true;
}

/** A TTL named as a deduplication window (`DEDUPE_TTL_SECONDS`, `idempotencyTtl`). */
const DEDUPE_TTL = /dedup|idempoten/i;

/**
 * `set(key, '1', { nx: true, ex: CLEANUP_DEDUPE_TTL_SECONDS })`: a claim kept for a deduplication window,
 * whose delete elsewhere can only be the rollback of a failed attempt (its callers may be in other files).
 */
export function markDedupeWindows(acquires: readonly Acquire[]): void {
  for (const acquire of acquires) {
    const ttl = acquire.command?.set?.ttl?.value;
    if (ttl && MARKER_KINDS.has(acquire.kind) && acquire.key && !looksLikeLockKey(acquire.key) && DEDUPE_TTL.test(ttl.getText())) acquire.marker = true;
  }
}

/** `setnx(key, 0)` then `incr(key)` in the same function: the SETNX seeds a counter, it claims nothing. */
export function seedsCounter(acquire: Acquire): boolean {
  const key = MARKER_KINDS.has(acquire.kind) ? acquire.call.arguments[0] : undefined;
  if (!key) return false;
  const text = normalizeText(key);
  return callsNamed(acquire.fn, (name) => COUNTS.test(name)).some((c) => c.arguments[0] !== undefined && normalizeText(c.arguments[0]) === text);
}

export function markGetOrInit(acquires: readonly Acquire[]): void {
  for (const acquire of acquires) {
    const method = acquire.kind === 'set-nx' ? methodOf(acquire.call) : undefined;
    const key = acquire.call.arguments[0];
    if (!method || !key || !isQueue(method.receiver)) continue;
    const queue = normalizeText(unwrap(method.receiver));
    const reads = callsNamed(acquire.fn, (name) => name === 'get').filter((get) => {
      const on = methodOf(get)?.receiver;
      const sameQueue = !!on && (normalizeText(unwrap(on)) === queue || isAncestor(get, acquire.call) || isAncestor(acquire.call, get));
      return sameQueue && get.arguments[0] !== undefined && normalizeText(get.arguments[0]) === normalizeText(key);
    });
    if (reads.length > 0) acquire.marker = true;
  }
}
