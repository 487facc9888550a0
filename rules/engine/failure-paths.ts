// What code does on a path where something about the lock went wrong (a catch clause, a `.catch`
// callback, the failed branch of a test): does it only observe (log, set a flag no one reads), does it
// release, does it say out loud that failing open is intended? Shared by the rules of issue 12.
import { ts } from './typescript';
import type { KeyRef } from './keys';
import type { LockModel } from './model';
import { ancestorWhere, calleeName, callsNamed, contains, declarationOf, descendantsWhere, identifiersNamed, isAssignment, isFunctionLike, methodOf, unwrap, type Node } from './nodes';

/** The marker that makes failing open a decision: `// lockwise: fail-open`, `failOpen`, `FAIL_OPEN`, "fails open". */
export const FAIL_OPEN = /fail(?:s|ed|ing)?[-_ ]?open/i;

/**
 * The plain words a comment uses for the same decision: "fall back to allowing", "proceed without the
 * lock", "proceed unlocked", "degrade gracefully", "degrades to the unserialized path", "degraded mode",
 * "best-effort", "just proceed", "allow processing", "on error, allow execution", "better to have
 * duplicates". Only in comments: a log message saying the code goes on without a lock describes what
 * happens, which is the very thing to decide.
 */
export const FAIL_OPEN_PROSE = new RegExp(
  [
    /fall(?:s|ing)?[-_ ]?back(?: to| and)? (?:allow|proceed|continu|run|execut|process|no[- ]lock|without|unlocked)/.source,
    /\b(?:allow|proceed|continu|run|execut|process)\w*\b[^\n]{0,40}?\bwithout (?:a |the |any )?(?:[\w-]+ )?(?:lock|redis)/.source,
    /\b(?:proceed|continu|run|go(?:es)? on|execut|process)\w*\s+(?:\w+\s+){0,2}?unlocked\b/.source,
    /degrade[sd]? gracefully|graceful(?:ly)? degrad|\bdegraded mode\b|\bdegrade[sd]?\s+(?:\w+\s+){0,2}?(?:to|into)\b|\bbest[- ]effort\b/.source,
    /\bjust (?:proceed|continue|run|go on)\b/.source,
    /\b(?:allow|let)(?:s|ing)? (?:the )?processing\b/.source,
    // "On error, allow execution (better to have duplicates than no execution)": the trade-off, weighed.
    /\b(?:on|upon|if) (?:an? )?(?:redis |connection )?(?:error|failure|outage),? (?:we )?(?:allow|proceed|continu|run|execut|process)/.source,
    // "Fallback: if Redis is down, allow operation (rely on MongoDB atomics)".
    /\b(?:if|when|while) (?:the )?(?:redis|valkey|cache|connection|client) (?:is|goes|was) (?:down|unavailable|unreachable|offline|not connected),? (?:we )?(?:allow|proceed|continu|run|execut|process)/.source,
    // "If Redis is unavailable the lock is skipped and the job proceeds".
    /\b(?:skip(?:s|ped|ping)?|bypass(?:es|ed|ing)?) (?:the |a )?(?:redis )?lock\b|\block (?:is|gets) (?:skipped|bypassed)\b/.source,
    /\bbetter (?:to (?:have|run) )?(?:a )?duplicates?\b|\bduplicates? (?:are|is) (?:better|cheaper|acceptable|fine)\b/.source,
  ].join('|'),
  'i',
);

const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

/** Does `text` mark failing open as intended: the marker anywhere, or the plain words in a comment? */
export function saysFailOpen(text: string): boolean {
  return FAIL_OPEN.test(text) || (text.match(COMMENT) ?? []).some((c) => FAIL_OPEN_PROSE.test(c));
}

/** The comments that lead `node` and the declaration it belongs to (a JSDoc included). */
export function leadingComments(node: Node): string[] {
  const text = node.getSourceFile().getFullText();
  const comments: string[] = [];
  for (let n: Node | undefined = node; n && !ts.isBlock(n) && !ts.isSourceFile(n) && !ts.isClassLike(n) && !ts.isObjectLiteralExpression(n); n = n.parent) {
    for (const range of ts.getLeadingCommentRanges(text, n.pos) ?? []) comments.push(text.slice(range.pos, range.end));
  }
  return comments;
}

const LOGGER = /^(?:console|log|logger|logging|this\.(?:log|logger)|[\w$.]*\.(?:log|logger))$/i;
const LOG_METHOD = /^(?:log|info|warn|warning|error|debug|trace|fatal|verbose|notice|captureException|captureMessage)$/;
const TIMER_CLEAR = /^(?:clearInterval|clearTimeout)$/;
/** A call named for stopping the renewal itself (`stopLockRenewal(key)`, `clearHeartbeat()`): it stops the watchdog, not the work. */
const RENEWAL_STOP = /^(?:stop|clear|cancel|end|kill|halt)[\w$]*?(?:renew|refresh|heartbeat|watchdog|extend|extension|keep_?alive)/i;
/** `this.activeLockTimers.delete(key)`, `renewals.delete(key)`: the watchdog's own bookkeeping, read only to stop it. */
const RENEWAL_BOOKKEEPING = /timer|interval|renew|heartbeat|watchdog/i;

/** A function called by name that only records an error: `log(...)`, `logError(...)`, `handleLogError(...)`, `captureException(...)`. */
const LOG_FUNCTION = /^(?:log\w*|\w*Log(?:Error|Exception)|warn|report(?:Error|Exception)?|capture(?:Error|Exception|Message))$/i;

/** `console.warn(...)`, `this.logger.error(...)`, `log(...)`, `Sentry.captureException(...)`. */
export function isLoggingCall(node: Node): boolean {
  const call = unwrap(node);
  if (!ts.isCallExpression(call)) return false;
  const m = methodOf(call);
  if (m) return LOG_METHOD.test(m.name) || LOGGER.test(unwrap(m.receiver).getText());
  return LOG_FUNCTION.test(calleeName(call) ?? '');
}

/** Statements of a block, or the expression of an arrow body, as a list. */
export function bodyStatements(body: Node | undefined): Node[] {
  if (!body) return [];
  if (ts.isBlock(body)) return [...body.statements];
  return [body];
}

/** The flag an assignment writes: `x` in `x = true`, `this.lost` in `this.lost = true`. */
function assignedFlag(node: Node): ts.Identifier | undefined {
  const expr = unwrap(node);
  if (!isAssignment(expr)) return undefined;
  const left = unwrap(expr.left);
  if (ts.isIdentifier(left)) return left;
  return ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.name) ? left.name : undefined;
}

// The lean parse blanks top-level declarations and class members without these words (lock-text.ts),
// so a flag can only be judged unread where no blanked code could read it: a function's own local, or
// a flag whose name holds one of them (its readers do too, and are never blanked).
const LEAN_EVIDENCE = /lock|mutex|mtx|semaphore|leader|latch/i;

function judgeable(flag: ts.Identifier): boolean {
  if (LEAN_EVIDENCE.test(flag.text)) return true;
  // `this.flag`: a member, which code the lean parse skips may read.
  if (ts.isPropertyAccessExpression(flag.parent) && flag.parent.name === flag) return false;
  const decl = declarationOf(flag);
  return !!decl && !!ancestorWhere(decl, isFunctionLike);
}

/** `id` itself, or the `x.id` it names, when that is read there: not written to, not declared. */
function readAt(id: ts.Identifier): Node | undefined {
  let target: Node = id;
  if (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id) target = id.parent;
  const parent = target.parent;
  if (isAssignment(parent) && parent.left === target) return undefined;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isParameter(parent)) && parent.name === id) return undefined;
  return target;
}

/** Is the flag `name` read anywhere in the file (not only written)? */
function flagIsRead(sourceFile: ts.SourceFile, name: string): boolean {
  return identifiersNamed(sourceFile, name).some((id) => readAt(id) !== undefined);
}

const COLLECTION_WRITE = /^(?:add|set|push|unshift|delete|clear)$/;

/** The collection a call writes into: `lost` in `lost.add(key)`, `lostLocks` in `this.lostLocks.set(key, t)`. */
function writtenCollection(node: Node): ts.Identifier | undefined {
  if (!ts.isCallExpression(node)) return undefined;
  const m = methodOf(node);
  if (!m || !COLLECTION_WRITE.test(m.name)) return undefined;
  const receiver = unwrap(m.receiver);
  if (ts.isIdentifier(receiver)) return receiver;
  return ts.isPropertyAccessExpression(receiver) && ts.isIdentifier(receiver.name) ? receiver.name : undefined;
}

/** Is the collection `name` queried anywhere (`has`, `get`, `size`, iterated, handed on), not only written? */
function collectionIsRead(sourceFile: ts.SourceFile, name: string): boolean {
  return identifiersNamed(sourceFile, name).some((id) => {
    const target = readAt(id);
    if (!target) return false;
    const parent = target.parent;
    const written = ts.isPropertyAccessExpression(parent) && parent.expression === target && COLLECTION_WRITE.test(parent.name.text) &&
      ts.isCallExpression(parent.parent) && parent.parent.expression === parent;
    return !written;
  });
}

/**
 * A path that only observes the failure: logs it, clears its own timer (or calls a function named for
 * stopping the renewal: `stopLockRenewal(key)`), writes a flag or a collection
 * (`lostLocks.add(key)`) no code reads, or returns nothing. Anything else (a call, a throw, a read
 * flag, abort()) may stop the work.
 */
export function onlyObserves(statements: readonly Node[], sourceFile: ts.SourceFile): boolean {
  return statements.every((s) => {
    if (ts.isEmptyStatement(s)) return true;
    if (ts.isReturnStatement(s)) return !s.expression;
    // `if (timer) clearInterval(timer)`: a guard (that calls nothing) around observing observes too.
    if (ts.isIfStatement(s)) return descendantsWhere(s.expression, ts.isCallExpression).length === 0 && onlyObserves(bodyStatements(s.thenStatement), sourceFile) && (!s.elseStatement || onlyObserves(bodyStatements(s.elseStatement), sourceFile));
    if (ts.isBlock(s)) return onlyObserves(s.statements, sourceFile);
    const expr = ts.isExpressionStatement(s) ? unwrap(s.expression) : ts.isStatement(s) ? undefined : unwrap(s);
    if (!expr) return false;
    const inner = ts.isAwaitExpression(expr) || ts.isVoidExpression(expr) ? unwrap(expr.expression) : expr;
    // `.catch(() => undefined)`, `() => null`: a value that does nothing.
    if (isInertValue(inner)) return true;
    if (isLoggingCall(inner)) return true;
    if (ts.isCallExpression(inner) && (TIMER_CLEAR.test(calleeName(inner) ?? '') || RENEWAL_STOP.test(calleeName(inner) ?? ''))) return true;
    const collection = writtenCollection(inner);
    if (collection) return RENEWAL_BOOKKEEPING.test(collection.text) || (judgeable(collection) && !collectionIsRead(sourceFile, collection.text));
    const flag = assignedFlag(inner);
    return flag !== undefined && judgeable(flag) && !flagIsRead(sourceFile, flag.text);
  });
}

function isInertValue(node: Node): boolean {
  return (ts.isIdentifier(node) && node.text === 'undefined') || node.kind === ts.SyntaxKind.NullKeyword || ts.isLiteralExpression(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword;
}

/** A `throw` that leaves `scope` (not one inside a nested function). */
export function throwsIn(scope: Node): ts.ThrowStatement | undefined {
  return descendantsWhere<ts.ThrowStatement>(scope, (d) => ts.isThrowStatement(d) && ancestorWhere(d, isFunctionLike) === ancestorWhere(scope, isFunctionLike))[0];
}

// `clearSeatLock`, `clearLocks`: clearing a lock, not a timer or a cache.
const RELEASE_NAME = /release|unlock|rollback|undo|free|cleanup|clean_up|drop|del$|clear\w*(?:lock|lease|mutex|semaphore)/i;

/**
 * Does `scope` release something: a release in the model, a DEL/UNLINK/script, or a call named like one?
 * With `only`, a release or delete the model knows to be of another lock (another key, another handle)
 * does not count.
 */
export function releasesSomething(model: LockModel, scope: Node, only?: (key: KeyRef | undefined, handle?: string) => boolean): boolean {
  const inScope = model.releases.filter((r) => contains(scope, r.call));
  if (inScope.some((r) => !only || only(r.key, r.handle))) return true;
  const others = new Set<Node>(inScope.map((r) => r.call));
  const deletes = model.commands.filter((c) => (c.name === 'DEL' || c.name === 'UNLINK' || c.name === 'SCRIPT') && contains(scope, c.call) && !others.has(c.call));
  for (const c of deletes) others.add(c.call);
  if (deletes.some((c) => !only || only(c.keys[0] && model.keyOf(c.keys[0])))) return true;
  return callsNamed(scope, (n) => RELEASE_NAME.test(n)).some((call) => !others.has(call));
}

/** The try statements around `node` inside `fn`, innermost first, whose try block holds `node`. */
export function enclosingTries(node: Node, fn: Node): ts.TryStatement[] {
  const tries: ts.TryStatement[] = [];
  for (let a = node.parent; a && a !== fn; a = a.parent) {
    if (ts.isTryStatement(a) && contains(a.tryBlock, node)) tries.push(a);
  }
  return tries;
}

/** Is a release on every way out of `node` by exception: a catch or finally around it that releases? */
export function releasedOnThrow(model: LockModel, node: Node, fn: Node): boolean {
  return enclosingTries(node, fn).some((t) => (t.catchClause && releasesSomething(model, t.catchClause.block)) || (t.finallyBlock && releasesSomething(model, t.finallyBlock)));
}

/** Does `node` (itself, or any identifier in it) name one of `names`? identifiersNamed skips the node itself. */
export function mentions(node: Node, names: readonly string[]): boolean {
  const n = unwrap(node);
  if (ts.isIdentifier(n) && names.includes(n.text)) return true;
  return names.length > 0 && identifiersNamed(node, names).length > 0;
}
