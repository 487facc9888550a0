// A lock taken without NX: a SET decided by a separate GET or EXISTS of its key (check-then-act in two
// round trips), or a plain SET in a function named as the acquire. exclusive-acquire reports them; a
// project helper that takes its lock so is still an acquire to its callers (project/summarize.ts).
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import { mentions } from './failure-paths';
import { sameKey } from './keys';
import { LOCK_NAME } from './lock-name';
import type { LockModel } from './model';
import { calleeName, callsNamed, contains, declarationOf, descendantsOfKind, enclosingFunction, literalString, unwrap, type Node } from './nodes';
import { resultUse } from './result-use';

export const ACQUIRE_FN = /acquire|lock|take|grab|claim|obtain|reserve/i;

export function functionName(fn: Node): string {
  if (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) return fn.name?.getText() ?? '';
  return fn.parent && ts.isVariableDeclaration(fn.parent) ? fn.parent.name.getText() : '';
}

/** A method without a lock word of its own reads with its class's: `acquire` in `class MutexService` is `acquire Mutex`. */
function acquireName(fn: Node): string {
  const name = functionName(fn);
  if (LOCK_NAME.test(name) || !ts.isMethodDeclaration(fn) || !ts.isClassLike(fn.parent)) return name;
  const lockWord = LOCK_NAME.exec(fn.parent.name?.text ?? '');
  return lockWord ? `${name} ${lockWord[0]}` : name;
}

/** In `acquireLock(key, ...)` (or `LockService.acquire`) any key it SETs is the lock, whatever it is called. */
export function inLockAcquireFunction(command: RedisCommand): boolean {
  const name = acquireName(enclosingFunction(command.call));
  return LOCK_NAME.test(name) && ACQUIRE_FN.test(name.replace(LOCK_NAME, ''));
}

/** Words that name another lock operation, or a state, beside the lock word: `unlock`, `forceLock`, `getLockStatus`. */
const NOT_AN_ACQUIRE = /un-?lock|release|free|clear|remove|delete|force|steal|takeover|override|renew|extend|refresh|heartbeat|status|state|info|^(?:get|read|check|is|has)/i;
/** What may stand beside the lock word in an acquire's name: `lock`, `setLock`, `createLock`, `tryLock`. */
const ACQUIRE_PREFIX = /^(?:set|create|add|put|make|do|try|_)?$/i;

/**
 * Is the function named as taking a lock (`acquireLock`, `lock`, `setLock`, `takeMutex`, `acquire` in a
 * `LockService`)? Narrower than
 * inLockAcquireFunction: its plain SET is reported with nothing else to go on.
 */
export function namedAcquire(command: RedisCommand): boolean {
  const name = acquireName(enclosingFunction(command.call));
  if (!LOCK_NAME.test(name) || NOT_AN_ACQUIRE.test(name)) return false;
  const rest = name.replace(LOCK_NAME, '');
  return ACQUIRE_FN.test(rest) || ACQUIRE_PREFIX.test(rest);
}

/**
 * A SET that writes whatever is there and tells nothing: no NX, XX or IFEQ condition, no GET of the value
 * it replaces, options it can read, not queued in a batch.
 */
export function plainSet(command: RedisCommand): boolean {
  const set = command.set;
  return command.name === 'SET' && !!set && !set.nx && !set.xx && !set.ifeq && !set.get && !set.dynamic && !command.batch;
}

const THRESHOLD = new Set([ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken, ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken]);

/**
 * `const attempts = await redis.incr(attemptsKey); if (attempts >= 5) await redis.set(lockKey, '1', ...)`:
 * a SET written once a counter reaches a limit, the lockout after repeated failures, not an acquire.
 */
export function countGated(set: RedisCommand): boolean {
  const fn = enclosingFunction(set.call);
  for (let n: Node | undefined = set.call.parent; n && n !== fn; n = n.parent) {
    if (!ts.isIfStatement(n) || !contains(n.thenStatement, set.call)) continue;
    const test = unwrap(n.expression);
    if (!ts.isBinaryExpression(test) || !THRESHOLD.has(test.operatorToken.kind)) continue;
    const [left, right] = [unwrap(test.left), unwrap(test.right)];
    const counter = isLimit(right) ? left : isLimit(left) ? right : undefined;
    if (counter && ts.isIdentifier(counter) && counted(counter)) return true;
  }
  return false;
}

/** `5`, `config.maxAttempts`, `MAX_FAILURES`: the limit a counter is compared with. */
const LIMIT_NAME = /max|limit|threshold|attempts|allowed/i;
const isLimit = (node: Node) => ts.isNumericLiteral(node) || ((ts.isIdentifier(node) || ts.isPropertyAccessExpression(node)) && LIMIT_NAME.test(node.getText()));

/**
 * Is the variable a count: the answer of an INCR (`const n = await redis.incr(k)`, through a wrapper's
 * `incr` too), or a stored count read and stepped (`((await cache.get(k)) || 0) + 1`)?
 */
function counted(name: ts.Identifier): boolean {
  const decl = declarationOf(name);
  let init = decl && ts.isVariableDeclaration(decl) && decl.initializer ? unwrap(decl.initializer) : undefined;
  while (init && ts.isAwaitExpression(init)) init = unwrap(init.expression);
  if (init && ts.isBinaryExpression(init) && init.operatorToken.kind === ts.SyntaxKind.PlusToken && unwrap(init.right).getText() === '1') {
    return callsNamed(init.left, (n) => n === 'get').length > 0;
  }
  return !!init && ts.isCallExpression(init) && /^incr(?:by)?$/i.test(calleeName(init) ?? '');
}

/** A GET/EXISTS on the key, before the SET in the same function, whose answer decides whether to SET. */
export function checkBefore(model: LockModel, set: RedisCommand): RedisCommand | undefined {
  if (countGated(set)) return undefined;
  const key = model.keyOf(set.keys[0]);
  const fn = enclosingFunction(set.call);
  return model.commands.find((c) => {
    if ((c.name !== 'GET' && c.name !== 'EXISTS') || !c.keys[0] || !sameKey(model.keyOf(c.keys[0]), key)) return false;
    // Callback style (node_redis v3): the SET written in the GET's own callback, on its reply.
    const callback = replyCallback(c);
    const inCallback = !!callback && callback === fn;
    if (!inCallback && (c.call.end > set.call.getStart() || enclosingFunction(c.call) !== fn)) return false;
    const names = inCallback ? replyNames(callback) : namesOf(c);
    return !handedBack(fn, names) && !countedBack(model, c, names) && decidesSet(fn, c, names, set);
  });
}

/** The node-style callback a command is given last: `client.get(key, (err, value) => ...)`. */
function replyCallback(command: RedisCommand): ts.ArrowFunction | ts.FunctionExpression | undefined {
  const last = command.call.arguments[command.call.arguments.length - 1];
  const callback = last && unwrap(last);
  return callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) ? callback : undefined;
}

/** The reply parameter of a node-style callback (`(err, value)`: `value`). */
function replyNames(callback: ts.ArrowFunction | ts.FunctionExpression): string[] {
  const reply = callback.parameters[1]?.name;
  return reply && ts.isIdentifier(reply) ? [reply.text] : [];
}

/**
 * Does a SET of the same key write the read value plus or minus a number (`count + 1`)? The key is a
 * counter (failures, attempts) kept beside the lock: its first write after a miss is no acquire. A
 * timestamp lock writes the time, not its old value moved by a step.
 */
function countedBack(model: LockModel, check: RedisCommand, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  const fn = enclosingFunction(check.call);
  const key = model.keyOf(check.keys[0]);
  return model.commands.some((c) => c.name === 'SET' && !!c.args[0] && !!c.keys[0] && enclosingFunction(c.call) === fn &&
    sameKey(model.keyOf(c.keys[0]), key) && [c.args[0], ...descendantsOfKind(c.args[0], ts.SyntaxKind.BinaryExpression)].some((n) => stepped(n, names)));
}

function stepped(node: Node, names: readonly string[]): boolean {
  const value = unwrap(node);
  if (!ts.isBinaryExpression(value) || (value.operatorToken.kind !== ts.SyntaxKind.PlusToken && value.operatorToken.kind !== ts.SyntaxKind.MinusToken)) return false;
  const [left, right] = [unwrap(value.left), unwrap(value.right)];
  return (ts.isNumericLiteral(right) && mentions(left, names)) || (ts.isNumericLiteral(left) && mentions(right, names));
}

/**
 * Is the read value returned (`return cached`, `return JSON.parse(cached)`)? A lock's check only asks
 * whether the key is free; a read-through cache answers with what it found, so its key holds data
 * (a cached "lock status" of something else), and filling it after a miss is no acquire.
 */
function handedBack(fn: Node, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  return descendantsOfKind<ts.ReturnStatement>(fn, ts.SyntaxKind.ReturnStatement).some((ret) => {
    let value = ret.expression && unwrap(ret.expression);
    while (value && (ts.isAwaitExpression(value) || ts.isAsExpression(value))) value = unwrap(value.expression);
    if (value && ts.isCallExpression(value) && value.arguments.length === 1) value = unwrap(value.arguments[0]);
    return !!value && ts.isIdentifier(value) && names.includes(value.text);
  });
}

/** `const raw = await get(k); if (!raw) return false; await set(k, raw, 'EX', ttl)`: the value read written back with a new TTL, a refresh, not an acquire. */
export function writesBackReply(check: RedisCommand, set: RedisCommand): boolean {
  const value = set.args[0] && unwrap(set.args[0]);
  return !!value && ts.isIdentifier(value) && namesOf(check).includes(value.text);
}

/** A key of one holder's own record (`lock:${lockToken}`), not shared state other holders write to. */
export function holderRecordKey(set: RedisCommand): boolean {
  return descendantsOfKind<ts.Identifier>(set.keys[0], ts.SyntaxKind.Identifier).some((id) => /token/i.test(id.text));
}

export function namesOf(check: RedisCommand): string[] {
  const use = resultUse(check.call);
  return use.kind === 'assigned' ? [use.name] : [];
}

/** An `if` on the check's answer that holds the SET or leaves before it; not an owner comparison. */
function decidesSet(fn: Node, check: RedisCommand, names: string[], set: RedisCommand): boolean {
  const ifs: ts.IfStatement[] = [];
  const visit = (n: Node): void => {
    const afterReply = n.getStart() > check.call.end || contains(check.call, n);
    if (ts.isIfStatement(n) && (contains(n.expression, check.call) || afterReply) && n.getStart() < set.call.getStart()) ifs.push(n);
    if (n === fn || !ts.isFunctionLike(n)) ts.forEachChild(n, visit);
  };
  visit(fn);
  return ifs.some((s) => {
    const condition = s.expression;
    const refers = contains(condition, check.call) || mentions(condition, names);
    if (!refers || comparesWithValue(condition, set.args[0])) return false;
    const holds = contains(s.thenStatement, set.call) || (!!s.elseStatement && contains(s.elseStatement, set.call));
    const leaves = !contains(s, set.call) && /\b(?:return|throw)\b/.test(s.thenStatement.getText());
    return holds || leaves;
  });
}

/**
 * `holder === token` compares with a value: that is an owner check, not a "free?" test. A comparison
 * with the very literal the SET writes (`if (state === 'LOCKED') return; set(key, 'LOCKED')`) is not:
 * every writer stores that value, so it only asks whether the key is taken.
 */
function comparesWithValue(condition: Node, written: Node | undefined): boolean {
  const marker = written ? literalString(unwrap(written)) : undefined;
  let found = false;
  const visit = (n: Node): void => {
    if (ts.isBinaryExpression(n) && /^[!=]==?$/.test(n.operatorToken.getText())) {
      const sides = [unwrap(n.left), unwrap(n.right)];
      const emptyish = sides.some((x) => /^(?:null|undefined|0|1|false|true|''|""|'OK'|"OK")$/.test(x.getText()) || (marker !== undefined && literalString(x) === marker));
      if (!emptyish) found = true;
    }
    ts.forEachChild(n, visit);
  };
  visit(condition);
  return found;
}

