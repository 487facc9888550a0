// Breaking a stale lock in several round trips: a GET of the holder, a decision in the client that it
// is stale (a clock, a comparison, a word like "expired", a function named for reclaiming dead locks,
// or, after a SET NX of the key failed, any function the holder is handed to), then a DEL or plain SET
// of the key. atomic-takeover reports it; exclusive-acquire leaves it.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import { mentions } from './failure-paths';
import { sameKey } from './keys';
import type { LockModel } from './model';
import { contains, descendantsOfKind, enclosingFunction, functionNameOf, identifiersNamed, type Node } from './nodes';
import { resultUse } from './result-use';

const CLOCK = /Date\.now\(\)|new Date\(|performance\.now\(\)|process\.hrtime/;
// Whole words or camelCase parts: `age`, `lockAge`, `isStale`; not `holder` or `message`.
const STALE_WORDS = /[sS]tale|[eE]xpire|[eE]lapsed|[dD]eadline|[tT]imeout|(?<![a-zA-Z])(?:age|old|ttl|since|dead)(?![a-z])|(?<=[a-z])(?:Age|Old|Ttl|TTL|Since|Dead)(?![a-z])/;
// A function named for breaking locks believed dead (`reclaimStaleLeases`, `stealLock`, `takeOverLock`):
// any test of the holder it reads is that belief, however it is computed (`isFromPreviousRun(holder)`).
const BREAKS_LOCKS = /[sS]tale|[zZ]ombie|[oO]rphan|[sS]teal|[rR]eclaim|[tT]ake_?[oO]ver/;
const RELATIONAL = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken]);

/** The GET's variable and the consts computed from it (`const age = Date.now() - Number(v)`). */
function valueNames(fn: Node, get: RedisCommand): string[] {
  const use = resultUse(get.call);
  if (use.kind !== 'assigned') return [];
  const names = [use.name];
  for (const decl of descendantsOfKind<ts.VariableDeclaration>(fn, ts.SyntaxKind.VariableDeclaration)) {
    if (decl.pos > get.call.end && decl.initializer && ts.isIdentifier(decl.name) && identifiersNamed(decl.initializer, use.name).length > 0) names.push(decl.name.text);
  }
  return names;
}

/** Does the condition judge staleness: a clock, a relational comparison, or a word like stale/expired? */
function judgesStaleness(condition: Node): boolean {
  const text = condition.getText();
  if (CLOCK.test(text) || STALE_WORDS.test(text)) return true;
  let relational = false;
  const visit = (n: Node): void => {
    if (ts.isBinaryExpression(n) && RELATIONAL.has(n.operatorToken.kind)) relational = true;
    ts.forEachChild(n, visit);
  };
  visit(condition);
  return relational;
}

/** Does the condition hand the holder (or a value computed from it) to a function: `isDeadInstance(holder)`? */
function judgesByCall(condition: Node, names: readonly string[]): boolean {
  return descendantsOfKind<ts.CallExpression>(condition, ts.SyntaxKind.CallExpression).some((call) => call.arguments.some((arg) => ts.isIdentifier(arg) && names.includes(arg.text)));
}

/** Did the function try SET NX (or SETNX) on the key before this GET? Then the key the GET reads is held by another. */
function failedAcquireBefore(model: LockModel, get: RedisCommand, fn: Node): boolean {
  const key = model.keyOf(get.keys[0]);
  return model.commands.some((c) => c.call.end < get.call.pos && enclosingFunction(c.call) === fn && (c.name === 'SETNX' || (c.name === 'SET' && !!c.set?.nx)) && !!c.keys[0] && sameKey(model.keyOf(c.keys[0]), key));
}

/** A DEL/UNLINK, or a SET without NX/IFEQ, of the key inside `scope`: the breaking write. */
function breakingWrite(model: LockModel, get: RedisCommand, scope: Node): RedisCommand | undefined {
  const key = model.keyOf(get.keys[0]);
  return model.commands.find((c) => {
    if (!contains(scope, c.call) || !c.keys[0] || !sameKey(model.keyOf(c.keys[0]), key)) return false;
    if (c.name === 'DEL' || c.name === 'UNLINK') return true;
    return c.name === 'SET' && !!c.set && !c.set.nx && !c.set.ifeq && !c.set.dynamic;
  });
}

function takeover(model: LockModel, get: RedisCommand): { write: RedisCommand; test: ts.IfStatement } | undefined {
  const fn = enclosingFunction(get.call);
  const names = valueNames(fn, get);
  const breaksLocks = BREAKS_LOCKS.test(functionNameOf(fn));
  // An acquire whose NX failed, then a test of the holder it reads by a function of its own: that test
  // decides the holder is gone (a restarted instance, a dead worker), however it is named.
  const judgedAfterAcquire = (condition: Node) => judgesByCall(condition, names) && failedAcquireBefore(model, get, fn);
  for (const test of descendantsOfKind<ts.IfStatement>(fn, ts.SyntaxKind.IfStatement)) {
    if (test.getStart() < get.call.end || enclosingFunction(test) !== fn) continue;
    const condition = test.expression;
    const refers = contains(condition, get.call) || mentions(condition, names);
    if (!refers || !(breaksLocks || judgesStaleness(condition) || judgedAfterAcquire(condition))) continue;
    // `if (now < expiry) return null; await redis.del(lockName);`: past a "still fresh, leave" test, what
    // follows it in its block is the stale path, and a DEL there breaks the lock. (A plain SET there is the
    // acquire itself, written over an absent key as over a stale one: exclusive-acquire's check-then-act;
    // unless a SETNX of the key failed first: then the key is held, and the SET overwrites a stale holder.)
    const leavesWhenFresh = !test.elseStatement && ts.isBlock(test.parent) && /^(?:return|throw)\b/.test((ts.isBlock(test.thenStatement) ? test.thenStatement.statements.at(-1) : test.thenStatement)?.getText() ?? '');
    const after = leavesWhenFresh ? (test.parent as ts.Block).statements.filter((s) => s.pos >= test.end) : [];
    const overwrites = after.length > 0 && failedAcquireBefore(model, get, fn);
    const deletes = after.map((scope) => breakingWrite(model, get, scope)).find((w) => w?.name === 'DEL' || w?.name === 'UNLINK' || (overwrites && w?.name === 'SET'));
    const write = breakingWrite(model, get, test.thenStatement) ?? deletes;
    if (write) return { write, test };
  }
  return undefined;
}

export interface Takeover {
  /** The GET of the holder. */
  get: RedisCommand;
  /** The DEL or plain SET that breaks the lock. */
  write: RedisCommand;
  /** The staleness decision made in the client. */
  test: ts.IfStatement;
}

// Three rules ask (atomic-takeover, and exclusive-acquire and owner-checked-release of each write): found once per model.
const found = new WeakMap<LockModel, Takeover[]>();

/** The file's takeovers: each GET of a lock key, judged stale in the client, then broken by a DEL or SET. */
export function takeovers(model: LockModel): Takeover[] {
  let list = found.get(model);
  if (!list) {
    list = model.commands.flatMap((get) => {
      const t = get.name === 'GET' && get.keys[0] && model.isLockKey(model.keyOf(get.keys[0])) ? takeover(model, get) : undefined;
      return t ? [{ get, ...t }] : [];
    });
    found.set(model, list);
  }
  return list;
}

/** Is this SET or DEL the breaking write of a takeover after a GET of a lock key? */
export function breaksStaleLock(model: LockModel, write: RedisCommand): boolean {
  return takeovers(model).some((t) => t.write === write);
}
