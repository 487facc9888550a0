// The lock meaning of each function, method and arrow function of a file, in terms of its parameters,
// read from the file's lock model: which parameter is the key of what it acquires, releases or
// extends, where the token comes from, what it returns, which parameter is a routine run under a lock,
// or which command it merely forwards. Helpers that call helpers get their meaning through the model,
// which already holds the meaning of the calls it could resolve.
import { ts } from '../engine/typescript';
import { emptyOnlyUnconfigured } from '../engine/configured-client';
import type { RedisCommand } from '../engine/commands';
import type { Acquire, Extend, LockModel, Release } from '../engine/model';
import { isLockAcquire, isRedisAcquire } from '../engine/queries';
import { tokenWeakness } from '../engine/token-strength';
import { mentions } from '../engine/failure-paths';
import { testsFailure } from '../engine/paths';
import { ancestorWhere, calleeName, contains, declarationOf, descendantsOfKind, elementParameterIndex, enclosingFunction, enclosingStatement, functionNameOf, parameterIndex, identifiersNamed, isFunctionLike, methodOf, nameOf, ownReturns, unwrap, type Node } from '../engine/nodes';
import { checkBefore, writesBackReply, inLockAcquireFunction, namedAcquire, plainSet } from '../engine/check-then-set';
import { isLockFunction, namesLockedState } from '../engine/keys';
import { resultUse } from '../engine/result-use';
import { memberFunction, returnedObject, type FileSymbols, type SummaryTarget } from './file-symbols';
import { keyAroundParameter, thinWrapper } from '../engine/wrappers';
import { nameTable, type AcquireReturn, type FileSummary, type FunctionSummary, type KeySpec, type Place, type RoutineSummary, type TokenSpec } from './types';
import { unawaitedPromise } from '../engine/unsettled-work';
import type { KeyRef } from '../engine/keys';

function placeOf(node: Node, path: string): Place {
  const sourceFile = node.getSourceFile();
  const start = node.getStart(sourceFile);
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
  const last = sourceFile.getLineAndCharacterOfPosition(node.end);
  return { path, start, end: node.end, line, character, endLine: last.line, endCharacter: last.character };
}

/** Follows `const key = ...` aliases inside the function, stopping at a parameter. */
function followAliases(fn: ts.FunctionLikeDeclaration, node: Node, model: LockModel): Node {
  let n = unwrap(node);
  for (let depth = 0; depth < 4 && ts.isIdentifier(n) && parameterIndex(fn, n) === undefined; depth++) {
    const init = model.lookup(n);
    if (!init) break;
    n = unwrap(init);
  }
  return n;
}

/** The constructor parameter a `this.<field>` is set from (parameter property, `this.f = param`, or a key built around it: `this.f = 'lock:' + param`). */
function constructorSourceOf(cls: ts.ClassLikeDeclaration, field: string): { param: number; head: string; tail: string } | undefined {
  const ctor = cls.members.find(ts.isConstructorDeclaration);
  if (!ctor) return undefined;
  const property = ctor.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === field && (ts.getModifiers(p)?.length ?? 0) > 0);
  if (property >= 0) return { param: property, head: '', tail: '' };
  for (const assignment of descendantsOfKind<ts.BinaryExpression>(ctor, ts.SyntaxKind.BinaryExpression)) {
    if (assignment.operatorToken.kind !== ts.SyntaxKind.EqualsToken) continue;
    const left = assignment.left;
    if (!ts.isPropertyAccessExpression(left) || left.expression.kind !== ts.SyntaxKind.ThisKeyword || left.name.text !== field) continue;
    const source = keyAroundParameter(ctor, unwrap(assignment.right));
    if (source) return source;
  }
  return undefined;
}

function keySpecOf(fn: ts.FunctionLikeDeclaration, key: KeyRef | undefined, model: LockModel): KeySpec | undefined {
  const spec = keySpecFrom(fn, key, model);
  // `acquire(key = 'lock:default')`: a call without the argument still locks (call-site-ops.ts).
  if (spec?.param !== undefined && fn.parameters[spec.param]?.initializer) spec.defaulted = true;
  return spec;
}

function keySpecFrom(fn: ts.FunctionLikeDeclaration, key: KeyRef | undefined, model: LockModel): KeySpec | undefined {
  if (!key) return undefined;
  const n = followAliases(fn, key.node, model);
  const glob = key.glob;
  // A key that names none of the parameters is the same key at every call.
  const usesParams = fn.parameters.some((p) => ts.isIdentifier(p.name) && identifiersNamed(n, p.name.text).length > 0);
  const fixed = usesParams ? undefined : { head: key.canonical, tail: '', glob };
  // The call of a helper whose key is fixed inside it stands for that key: its arguments are not the key.
  if ([...model.acquires, ...model.releases, ...model.extends].some((op) => op.call === n)) return fixed;
  // A key a helper or wrapper builds around the parameter (`dropCache(id)` deleting `CacheKeys.receipt(id)`)
  // keeps what it writes around it: another helper's `CacheKeys.receiptLock(id)` is another key.
  const around = keyAroundParameter(fn, n);
  if (around) return { ...around, head: (key.around?.head ?? '') + around.head, tail: around.tail + (key.around?.tail ?? ''), glob };
  // `for (const id of ids) ... `lock:${id}``: a multi-key helper, whose keys are its array parameter's elements.
  const each = keyAroundParameter(fn, n, elementParameterIndex);
  if (each) return { ...each, each: true, glob };
  // `lock.key` of each lock handed in: which key is the handle's (handleParamOf), not one the caller spells.
  if (namesElement(fn, n)) return undefined;
  // A method of the object a factory returns, keyed by the factory's parameter: the factory's call is its constructor.
  const factory = factoryOf(fn);
  const made = factory && keyAroundParameter(factory, followAliases(factory, n, model));
  if (factory && made) return { field: { name: factory.parameters[made.param].name.getText(), ctorParam: made.param }, head: made.head, tail: made.tail, glob };
  // `this.name`, or `this.take()` whose key is the object's field `name` (written `${this}.name`).
  const field = ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword ? n.name.text : n.kind === ts.SyntaxKind.ThisKeyword ? /^\$\{this\}\.([\w$]+)$/.exec(key.text)?.[1] : undefined;
  if (field) {
    const cls = ancestorWhere<ts.ClassLikeDeclaration>(n, (a) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
    // In a static method `this` is the class: `this.RUN_LOCK_KEY` is one key for every caller.
    const member = cls && ancestorWhere(n, (a) => a.parent === cls);
    if (member && ts.canHaveModifiers(member) && (ts.getModifiers(member) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) return fixed;
    const source = cls ? constructorSourceOf(cls, field) : undefined;
    return { field: { name: field, ctorParam: source?.param }, head: source?.head ?? '', tail: source?.tail ?? '', glob };
  }
  const members = optionsParamOf(fn, n);
  if (members !== undefined) {
    const member = wholeMember(fn, n);
    if (member) return { param: members, members: true, member, head: '', tail: '', glob };
    const parts = memberParts(fn, n, members, model);
    return parts ? { param: members, members: true, parts, head: '', tail: '', glob } : { param: members, members: true, head: '', tail: '', glob };
  }
  return fixed;
}

/** Does `node` read an element of an array parameter (`lock.key` in `for (const lock of locks)`)? */
function namesElement(fn: ts.FunctionLikeDeclaration, node: Node): boolean {
  return [node, ...descendantsOfKind<ts.Identifier>(node, ts.SyntaxKind.Identifier)].some((id) => ts.isIdentifier(id) && elementParameterIndex(fn, id) !== undefined);
}

/** The factory whose returned object (file-symbols.ts returnedObject) has `fn` as a member. */
function factoryOf(fn: ts.FunctionLikeDeclaration): ts.FunctionLikeDeclaration | undefined {
  const factory = ancestorWhere<ts.FunctionLikeDeclaration>(fn.parent, isFunctionLike);
  if (!factory) return undefined;
  return returnedObject(factory)?.properties.some((p) => memberFunction(p, factory) === fn) ? factory : undefined;
}

/** The options property that is the whole key: `({ lockKey }: Options)` or `opts.lockKey` used as is. */
function wholeMember(fn: ts.FunctionLikeDeclaration, key: Node): string | undefined {
  if (ts.isPropertyAccessExpression(key) && ts.isIdentifier(key.expression)) return key.name.text;
  if (!ts.isIdentifier(key)) return undefined;
  for (const p of fn.parameters) {
    if (!ts.isObjectBindingPattern(p.name)) continue;
    const el = p.name.elements.find((e) => ts.isIdentifier(e.name) && e.name.text === key.text);
    if (el) return el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : key.text;
  }
  return undefined;
}

/**
 * The parameters that are plain names, and the names bound from members of an object parameter:
 * destructured in the parameter list (`({ name }: Options)`) or from it in the body (`const { name } = opts`).
 */
function optionsBindings(fn: ts.FunctionLikeDeclaration): { objectParams: Map<string, number>; fromParam: Map<string, { param: number; member: string }> } {
  const objectParams = new Map<string, number>();
  const fromParam = new Map<string, { param: number; member: string }>();
  const bind = (pattern: ts.ObjectBindingPattern, param: number) => {
    for (const el of pattern.elements) {
      if (!ts.isIdentifier(el.name)) continue;
      fromParam.set(el.name.text, { param, member: el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : el.name.text });
    }
  };
  fn.parameters.forEach((p, index) => {
    if (ts.isIdentifier(p.name)) objectParams.set(p.name.text, index);
    else if (ts.isObjectBindingPattern(p.name)) bind(p.name, index);
  });
  for (const decl of fn.body ? descendantsOfKind<ts.VariableDeclaration>(fn.body, ts.SyntaxKind.VariableDeclaration) : []) {
    const source = decl.initializer && unwrap(decl.initializer);
    const index = source && ts.isIdentifier(source) ? objectParams.get(source.text) : undefined;
    if (index !== undefined && ts.isObjectBindingPattern(decl.name)) bind(decl.name, index);
  }
  return { objectParams, fromParam };
}

/**
 * The key built from members of options parameter `param` as text and member names: literals, template
 * spans and `+` of `opts.name`, names destructured from the options, and constants. Undefined when any
 * piece is something else (a call, another parameter).
 */
function memberParts(fn: ts.FunctionLikeDeclaration, key: Node, param: number, model: LockModel): KeySpec['parts'] {
  const options = fn.parameters[param];
  const optionsName = ts.isIdentifier(options.name) ? options.name.text : undefined;
  const { fromParam } = optionsBindings(fn);
  const parts: Array<string | { member: string }> = [];
  const read = (node: Node, depth: number): boolean => {
    const n = unwrap(node);
    if (depth > 8) return false;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return parts.push(n.text) > 0;
    if (ts.isTemplateExpression(n)) {
      parts.push(n.head.text);
      return n.templateSpans.every((span) => read(span.expression, depth + 1) && parts.push(span.literal.text) > 0);
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) return read(n.left, depth + 1) && read(n.right, depth + 1);
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === optionsName) return parts.push({ member: n.name.text }) > 0;
    if (!ts.isIdentifier(n)) return false;
    const bound = fromParam.get(n.text);
    if (bound?.param === param) return parts.push({ member: bound.member }) > 0;
    const value = model.lookup(n);
    return !!value && read(value, depth + 1);
  };
  return read(key, 0) ? parts.filter((p) => p !== '') : undefined;
}

/**
 * The one parameter a key is built from the members of: `opts.scope + ':' + opts.name`, names
 * destructured from it (`const { name } = opts`, or `({ name }: Options)`), with constants around them.
 */
function optionsParamOf(fn: ts.FunctionLikeDeclaration, key: Node): number | undefined {
  const { objectParams, fromParam } = optionsBindings(fn);
  const used = new Set<number>();
  let member = false;
  for (const id of [key, ...descendantsOfKind<ts.Identifier>(key, ts.SyntaxKind.Identifier)]) {
    if (!ts.isIdentifier(id) || (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id)) continue;
    const whole = objectParams.get(id.text);
    if (whole !== undefined) {
      used.add(whole);
      // `opts.name`: a member of the options; `opts` itself as the key is keyAroundParameter's.
      member ||= ts.isPropertyAccessExpression(id.parent) && id.parent.expression === id;
    }
    const destructured = fromParam.get(id.text);
    if (destructured !== undefined) {
      used.add(destructured.param);
      member = true;
    }
  }
  return used.size === 1 && member ? [...used][0] : undefined;
}

const STRONG = /random|uuid|nanoid|ulid|cuid|v4\(/i;

/**
 * `this.serialize(value)`, `JSON.stringify(value)`, `String(value)`: a call of one argument made on the
 * token before it is written. What is passed in is as unique (or as constant) as what comes out.
 */
function passedThrough(fn: ts.FunctionLikeDeclaration, node: Node, model: LockModel): Node {
  const n = unwrap(node);
  if (!ts.isCallExpression(n) || n.arguments.length !== 1) return n;
  const callee = unwrap(n.expression);
  const transform = ts.isPropertyAccessExpression(callee) ? callee.expression.kind === ts.SyntaxKind.ThisKeyword || callee.getText() === 'JSON.stringify' : ts.isIdentifier(callee) && callee.text === 'String';
  return transform ? followAliases(fn, n.arguments[0], model) : n;
}

function tokenSpecOf(fn: ts.FunctionLikeDeclaration, acquire: Acquire, model: LockModel): TokenSpec {
  if (acquire.via && !acquire.token) {
    const spec = acquire.tokenSpec ?? { kind: 'unknown' };
    // A token parameter of the inner helper this call leaves out: the inner helper's own value (its
    // fallback), never the parameter of this function at the same position.
    if (spec.kind !== 'param') return spec;
    return spec.fallback ? { kind: 'weak', ...spec.fallback } : { kind: 'unknown' };
  }
  const token = acquire.token;
  if (!token) return { kind: 'unknown' };
  const value = followAliases(fn, token, model);
  const index = parameterIndex(fn, passedThrough(fn, value, model));
  if (index !== undefined) return { kind: 'param', index };
  // `value ?? '1'`: the caller's argument, or the default when it leaves it out.
  const v = unwrap(value);
  if (ts.isBinaryExpression(v) && (v.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || v.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
    const param = parameterIndex(fn, passedThrough(fn, v.left, model));
    const fallback = param === undefined ? undefined : tokenWeakness(v.right, acquire.fn, model.lookup);
    if (param !== undefined) return fallback && fallback.kind !== 'reused' ? { kind: 'param', index: param, fallback: { weakness: fallback.kind, what: fallback.what } } : { kind: 'param', index: param };
  }
  const weakness = tokenWeakness(token, acquire.fn, model.lookup);
  if (weakness && weakness.kind !== 'reused') return { kind: 'weak', weakness: weakness.kind, what: weakness.what };
  return STRONG.test(followAliases(fn, token, model).getText()) ? { kind: 'strong' } : { kind: 'unknown' };
}

/**
 * Does `fn` keep the acquire's answer on its object (`this.holding = true` / `= ok`)? An elector that
 * records whether it leads is asked by its other methods (`isLeader()`); a caller that ignores the
 * answer it also returns does not act on a lock it lacks.
 */
function recordsAnswer(fn: ts.FunctionLikeDeclaration, names: ReadonlySet<string>): boolean {
  return descendantsOfKind<ts.BinaryExpression>(fn, ts.SyntaxKind.BinaryExpression).some((b) => {
    if (b.operatorToken.kind !== ts.SyntaxKind.EqualsToken || ancestorWhere(b, isFunctionLike) !== fn) return false;
    const left = unwrap(b.left);
    if (!ts.isPropertyAccessExpression(left) || left.expression.kind !== ts.SyntaxKind.ThisKeyword) return false;
    const right = unwrap(b.right);
    return right.kind === ts.SyntaxKind.TrueKeyword || mentions(right, [...names]);
  });
}

/** Does `fn`'s body end with a `throw` (the way out of a retry loop that found the lock busy until its deadline)? */
function endsInThrow(fn: ts.FunctionLikeDeclaration): boolean {
  const body = fn.body;
  return !!body && ts.isBlock(body) && body.statements.length > 0 && ts.isThrowStatement(body.statements[body.statements.length - 1]);
}

/** Does `fn` itself (not a function nested in it) throw? */
function ownThrows(fn: ts.FunctionLikeDeclaration): boolean {
  return descendantsOfKind<ts.ThrowStatement>(fn, ts.SyntaxKind.ThrowStatement).some((t) => ancestorWhere(t, isFunctionLike) === fn);
}

const RELEASE_MEMBER = /^(release|unlock|free|close|dispose)$/i;

/** `const ok = (await redis.set(...)) === 'OK'` (or `!!`, `Boolean(...)`): the variable holding the acquire's answer. */
function answerVariable(call: Node): string | undefined {
  let node: Node = call;
  for (;;) {
    const parent = node.parent;
    const comparesToLiteral = ts.isBinaryExpression(parent) && EQUALITY.has(parent.operatorToken.kind) && [parent.left, parent.right].some((side) => ts.isLiteralExpression(unwrap(side)));
    const negates = ts.isPrefixUnaryExpression(parent) && parent.operator === ts.SyntaxKind.ExclamationToken;
    const booleanCall = ts.isCallExpression(parent) && ts.isIdentifier(parent.expression) && parent.expression.text === 'Boolean';
    if (!(ts.isAwaitExpression(parent) || ts.isParenthesizedExpression(parent) || comparesToLiteral || negates || booleanCall)) break;
    node = parent;
  }
  const declaration = node.parent;
  return ts.isVariableDeclaration(declaration) && declaration.initializer === node && ts.isIdentifier(declaration.name) ? declaration.name.text : undefined;
}

const EQUALITY = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

/** The names that hold the acquire's answer in the helper: its result variable and the variable its test is stored in. */
function answerNames(acquire: Acquire): Set<string> {
  const names = new Set<string>();
  if (acquire.result.kind === 'assigned') names.add(acquire.result.name);
  const answer = answerVariable(acquire.call);
  if (answer) names.add(answer);
  // `const replies = await Promise.all(ids.map((id) => redis.set(...)))`: the answers of a multi-key acquire.
  const all = allAnswers(acquire);
  const answers = all && answerVariable(all);
  if (answers) names.add(answers);
  return names;
}

/** The `Promise.all(xs.map((x) => <the acquire>))` whose per-element callback answers with the acquire's reply. */
function allAnswers(acquire: Acquire): ts.CallExpression | undefined {
  const callback = acquire.fn;
  if (!(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) || !fanOutOwner(callback)) return undefined;
  const body = ts.isBlock(callback.body) ? ownReturns(callback)[0]?.expression : callback.body;
  if (!body || !(body.pos <= acquire.call.pos && acquire.call.end <= body.end)) return undefined;
  const all = callback.parent.parent;
  return ts.isCallExpression(all) ? all : undefined;
}

/** An `if` on the answer whose branch throws: the helper throws when the lock is busy. */
function throwsWhenBusy(fn: ts.FunctionLikeDeclaration, names: ReadonlySet<string>): boolean {
  return descendantsOfKind<ts.IfStatement>(fn, ts.SyntaxKind.IfStatement).some(
    (s) => identifiersNamed(s.expression, names).length > 0 && descendantsOfKind(s.thenStatement, ts.SyntaxKind.ThrowStatement).length + (ts.isThrowStatement(s.thenStatement) ? 1 : 0) > 0,
  );
}

/**
 * An `if` after the acquire, or on the acquire itself (`if ((await set(...)) !== 'OK') throw ...`), in the
 * helper itself, whose branch throws: a check the acquire must pass. `onTheAcquire`: only the latter.
 */
function throwsAfter(fn: ts.FunctionLikeDeclaration, call: Node, onTheAcquire = false): boolean {
  return descendantsOfKind<ts.IfStatement>(fn, ts.SyntaxKind.IfStatement).some(
    (s) => ((!onTheAcquire && s.pos >= call.end) || (s.expression.pos <= call.pos && call.end <= s.expression.end)) && ancestorWhere(s, isFunctionLike) === fn && (ts.isThrowStatement(s.thenStatement) || descendantsOfKind(s.thenStatement, ts.SyntaxKind.ThrowStatement).length > 0),
  );
}

/** `cb(null, reply === 'OK')`: does `fn` call one of its parameters (a node-style helper answering through it)? */
function callsParameter(fn: ts.FunctionLikeDeclaration): boolean {
  return descendantsOfKind<ts.CallExpression>(fn, ts.SyntaxKind.CallExpression).some((call) => parameterIndex(fn, call.expression) !== undefined);
}

/** Does `fn` push what `acquire` took (its token, its key, or its answer object) onto the array named `list`? */
function collectsAcquired(fn: ts.FunctionLikeDeclaration, list: string, acquire: Acquire, tokenName: string | undefined): boolean {
  const key = acquire.key && unwrap(acquire.key.node);
  const took = [tokenName, key && ts.isIdentifier(key) ? key.text : undefined].filter((n): n is string => !!n);
  return descendantsOfKind<ts.CallExpression>(fn, ts.SyntaxKind.CallExpression).some((call) => {
    const method = methodOf(call);
    if (method?.name !== 'push' || method.receiver.getText() !== list) return false;
    return call.arguments.some((a) => (a.pos <= acquire.call.pos && acquire.call.end <= a.end) || identifiersNamed(a, took).length > 0);
  });
}

/** What the helper hands back of this acquire (see AcquireReturn). */
/** `this.acquireLock(key, ttl)`, `acquire(key)`, or a promise chain ending in one: the function calling itself again. */
function callsItself(fn: ts.FunctionLikeDeclaration, expression: Node): boolean {
  const name = fn.name && ts.isIdentifier(fn.name) ? fn.name.text : undefined;
  let e = unwrap(expression);
  if (ts.isAwaitExpression(e)) e = unwrap(e.expression);
  if (!name || !ts.isCallExpression(e)) return false;
  const callee = unwrap(e.expression);
  if (ts.isIdentifier(callee) || (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword)) {
    return (ts.isIdentifier(callee) ? callee.text : (callee as ts.PropertyAccessExpression).name.text) === name;
  }
  // `wait().then(() => this.acquire(key))`: the last link hands back what the call of itself answers.
  const next = ts.isPropertyAccessExpression(callee) && callee.name.text === 'then' ? e.arguments[0] : undefined;
  return !!next && ts.isArrowFunction(next) && !ts.isBlock(next.body) && callsItself(fn, next.body);
}

/** A function written in place, or a name the helper itself declares for one (`const releaseLock = async () => ...`). */
function functionValue(e: Node, fn: Node): boolean {
  if (isFunctionLike(e)) return true;
  if (!ts.isIdentifier(e)) return false;
  const decl = declarationOf(e);
  return !!decl && ts.isVariableDeclaration(decl) && !!decl.initializer && isFunctionLike(unwrap(decl.initializer)) && enclosingFunction(decl) === fn;
}

/** `return taken ? releaseLock : null`: a release function when taken, nothing when busy. */
function releaseOrEmpty(e: Node, fn: Node): boolean {
  if (!ts.isConditionalExpression(e)) return false;
  const [yes, no] = [unwrap(e.whenTrue), unwrap(e.whenFalse)];
  return (functionValue(yes, fn) && EMPTY.has(no.kind)) || (functionValue(no, fn) && EMPTY.has(yes.kind));
}

function returnsOf(fn: ts.FunctionLikeDeclaration, acquire: Acquire): AcquireReturn {
  const names = answerNames(acquire);
  const tokenName = acquire.token && ts.isIdentifier(unwrap(acquire.token)) ? (unwrap(acquire.token) as ts.Identifier).text : undefined;
  // What the acquire itself hands back: redlock's a Lock object (it throws when busy), redis-semaphore's
  // acquire() nothing (it throws on timeout); a Redis reply or tryAcquire's boolean says acquired or not.
  // Through a helper, what that helper hands back (a lock object, a token, or nothing when it throws).
  const value: AcquireReturn = acquire.via?.returns ?? (acquire.kind === 'redlock' ? 'lock-object' : acquire.kind === 'semaphore' ? 'throws' : 'reply');
  const found = new Set<AcquireReturn>();
  const bodies: Node[] = ownReturns(fn).map((r) => r.expression).filter((e): e is ts.Expression => !!e);
  if (fn.body && !ts.isBlock(fn.body)) bodies.push(fn.body);
  // `return true` once acquired, `throw` when it gives up: never an answer to test, like redlock's acquire.
  if (bodies.length > 0 && bodies.every((e) => unwrap(e).kind === ts.SyntaxKind.TrueKeyword) && ownThrows(fn)) return 'throws';
  // `if (ok) return token; return released(key).then(() => this.acquireLock(key, ttl))`: it answers only
  // once it holds the lock, waiting and calling itself again when busy. Nothing to test, as for a throw.
  const own = (e: Node) => (tokenName !== undefined && ts.isIdentifier(unwrap(e)) && (unwrap(e) as ts.Identifier).text === tokenName) || callsItself(fn, e);
  if (bodies.length > 1 && bodies.some((e) => callsItself(fn, e)) && bodies.every(own)) return 'throws';
  // `if (reply !== 'OK') throw new Busy(); return token`, or a read-back check after the write that throws
  // (`if ((await get(key)) !== token) throw ...`): the token comes back only once acquired.
  // ... or a retry loop that hands the token back once acquired and throws when its time is up.
  if (bodies.length > 0 && bodies.every(own) && (throwsWhenBusy(fn, names) || throwsAfter(fn, acquire.call) || endsInThrow(fn))) return 'throws';
  for (const expression of bodies) {
    const e = unwrap(ts.isAwaitExpression(unwrap(expression)) ? (unwrap(expression) as ts.AwaitExpression).expression : expression);
    if (functionValue(e, fn) || releaseOrEmpty(e, fn)) found.add('release-fn');
    else if (e.kind === ts.SyntaxKind.ThisKeyword) found.add('lock-object');
    else if (ts.isObjectLiteralExpression(e) && e.properties.some((p) => RELEASE_MEMBER.test(nameOf(p) ?? ''))) found.add('lock-object');
    // `return { key, token }`: the lock as data, handed to the release helper.
    else if (ts.isObjectLiteralExpression(e) && tokenName && identifiersNamed(e, tokenName).some(isReference)) found.add('lock-object');
    else if (ts.isConditionalExpression(e) && tokenName && identifiersNamed(e.whenTrue, tokenName).length > 0) found.add('token');
    else if (ts.isIdentifier(e) && e.text === tokenName && !names.has(e.text)) found.add('token');
    // `held.push({ key, token }); ... return held`: the locks a multi-key helper took, to release later.
    else if (ts.isIdentifier(e) && collectsAcquired(fn, e.text, acquire, tokenName)) found.add('lock-object');
    // `const mutex = new Mutex(...); await mutex.acquire(); return mutex`: the library's lock object.
    else if (ts.isIdentifier(e) && e.text === acquire.owner && (acquire.kind === 'semaphore' || acquire.kind === 'semaphore-try')) found.add('lock-object');
    else if (e.pos <= acquire.call.pos && acquire.call.end <= e.end) found.add(value);
    else if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword) found.add('reply');
    else if ((ts.isIdentifier(e) && names.has(e.text)) || identifiersNamed(e, names).some(isReference)) found.add(value);
  }
  if (found.has('reply') && recordsAnswer(fn, names)) return 'recorded';
  for (const kind of ['release-fn', 'lock-object', 'token', 'reply', 'recorded', 'throws'] as const) if (found.has(kind)) return kind;
  // A helper that hands nothing back and throws when its own test of the acquire fails: `if ((await set(...)) !== 'OK') throw`.
  const throwsOnItsTest = bodies.length === 0 && throwsAfter(fn, acquire.call, true);
  return throwsWhenBusy(fn, names) || throwsOnItsTest || acquire.kind === 'redlock' || acquire.kind === 'semaphore' ? 'throws' : 'unknown';
}

const EMPTY = new Set([ts.SyntaxKind.NullKeyword, ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.VoidExpression]);

/**
 * How what the helper hands back says that the lock was busy: a release function or lock object that is
 * null then (`if (!ok) return null; return () => ...`), or a lock object with a field set from the acquire's
 * answer (`return { acquired: reply === 'OK', release }`). Its callers must test that, not only call it.
 */
function busySignal(fn: ts.FunctionLikeDeclaration, acquire: Acquire, returns: AcquireReturn): { emptyWhenBusy?: true; acquiredField?: string; objectWhenBusy?: true } {
  const returned = ownReturns(fn).map((r) => r.expression && unwrap(r.expression));
  const empty = returned.some((e) => !e || EMPTY.has(e.kind) || (ts.isIdentifier(e) && e.text === 'undefined') || releaseOrEmpty(e, fn));
  if (returns === 'release-fn') return empty ? { emptyWhenBusy: true } : {};
  // `return { key, value, unlock }` once taken, `return null` when busy: the object itself says it.
  if (returns === 'lock-object' && empty) return { emptyWhenBusy: true };
  if (returns !== 'lock-object' && returns !== 'reply' && returns !== 'unknown') return {};
  const names = answerNames(acquire);
  // A helper that throws when busy hands the object back only once the lock is taken: nothing to test.
  if (throwsWhenBusy(fn, names)) return {};
  // Every return an object literal: what comes back when busy is an object too, truthy whatever its field says.
  const signal = (field: string) => (returned.every((e) => !!e && ts.isObjectLiteralExpression(e)) ? { acquiredField: field, objectWhenBusy: true as const } : { acquiredField: field });
  const fromAnswer = (value: Node) => !isFunctionLike(value) && ((value.pos <= acquire.call.pos && acquire.call.end <= value.end) || identifiersNamed(value, names).some(isReference) || (ts.isIdentifier(value) && names.has(value.text)));
  // `{ acquired: true, lockId }` once taken and `{ acquired: false, reason }` otherwise: the field that is both.
  const literals = new Map<string, Set<ts.SyntaxKind>>();
  for (const e of returned) {
    if (!e || !ts.isObjectLiteralExpression(e)) continue;
    for (const p of e.properties) {
      const value = ts.isPropertyAssignment(p) ? unwrap(p.initializer) : ts.isShorthandPropertyAssignment(p) ? p.name : undefined;
      const field = nameOf(p);
      if (!value || !field) continue;
      if (fromAnswer(value)) return signal(field);
      if (value.kind === ts.SyntaxKind.TrueKeyword || value.kind === ts.SyntaxKind.FalseKeyword) literals.set(field, (literals.get(field) ?? new Set()).add(value.kind));
    }
  }
  const both = [...literals].find(([, kinds]) => kinds.size === 2);
  return both ? signal(both[0]) : {};
}

/** Not a property name (`{ acquired: true }`, `x.acquired`): that names no variable. */
function isReference(id: ts.Identifier): boolean {
  const parent = id.parent;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyAccessExpression(parent)) && parent.name === id) return false;
  return true;
}

function handleParamOf(fn: ts.FunctionLikeDeclaration, release: Release | Extend): number | undefined {
  const call = release.call;
  // release(lock) -> lock.release(); releaseLock(key, token) -> the token argument.
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee)) {
    const own = parameterIndex(fn, callee.expression) ?? elementParameterIndex(fn, callee.expression);
    if (own !== undefined) return own;
  }
  for (const arg of call.arguments) {
    const index = parameterIndex(fn, arg);
    if (index !== undefined && fn.parameters[index] && !(release.key && unwrap(release.key.node) === unwrap(arg))) return index;
  }
  // `release(lock.key, lock.token)`, `eval(script, [lock.key], [lock.token])`: the lock object handed in
  // is the handle; in `for (const lock of locks)`, the array of them.
  for (const arg of call.arguments) {
    const n = unwrap(arg);
    for (const value of ts.isArrayLiteralExpression(n) ? n.elements.map(unwrap) : [n]) {
      const index = ts.isPropertyAccessExpression(value) ? (parameterIndex(fn, value.expression) ?? elementParameterIndex(fn, value.expression)) : undefined;
      if (index !== undefined) return index;
    }
  }
  return undefined;
}

/** The model's operations of each function, in model order: asked per function, a scan of the whole model each was quadratic. */
interface FunctionOps {
  acquires: Acquire[];
  releases: Release[];
  extends: Extend[];
  /** Plain SETs of a key written in the function itself (takenWithoutNx). */
  plainSets: RedisCommand[];
  /** DEL/UNLINK commands written in the function itself (deletesCallersKey). */
  deletes: RedisCommand[];
}

/**
 * `await Promise.all(this.clients.map((c) => this.lockOn(c, key)))`: a callback that runs once per
 * element while its function waits for them all is that function's own work (a quorum acquire, a
 * release on every instance), so its operations are summarised as the function's.
 */
function fanOutOwner(fn: Node): Node | undefined {
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return undefined;
  const map = fn.parent;
  if (!ts.isCallExpression(map) || map.arguments[0] !== fn || methodOf(map)?.name !== 'map') return undefined;
  const owner = ancestorWhere(map, isFunctionLike);
  if (!owner) return undefined;
  const holder = map.parent;
  const name = ts.isVariableDeclaration(holder) && holder.initializer === map && ts.isIdentifier(holder.name) ? holder.name.text : undefined;
  const awaitsAll = (call: ts.CallExpression) => /^Promise\.(?:all|allSettled)$/.test(call.expression.getText()) && !!call.arguments[0] &&
    (unwrap(call.arguments[0]) === map || (!!name && unwrap(call.arguments[0]).getText() === name));
  if (ts.isCallExpression(holder) && awaitsAll(holder)) return owner;
  return name && descendantsOfKind<ts.CallExpression>(owner, ts.SyntaxKind.CallExpression).some(awaitsAll) ? owner : undefined;
}

const RETRY_WRAPPER = /retry|backoff/i;

/**
 * `return retryWithBackoff(() => this.redlock.using([key], ttl, fn), { attempts })`: the attempt a retry
 * wrapper runs is the function's own work, so its operations are summarised as the function's.
 */
function retryOwner(fn: Node): Node | undefined {
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return undefined;
  const call = fn.parent;
  if (!ts.isCallExpression(call) || call.arguments[0] !== fn || !RETRY_WRAPPER.test(calleeName(call) ?? methodOf(call)?.name ?? '')) return undefined;
  return ancestorWhere(call, isFunctionLike);
}

const TIMER = /^(?:setTimeout|setInterval|setImmediate)$/;
/** A function named as a release (`releaseLeaderLock`, `unlock`, `freeSlot`). */
const RELEASE_FUNCTION = /^(?:release|unlock|free)/i;

/**
 * `const run = async () => { lock; task(); release }; interval ? setInterval(run, interval) : setTimeout(run, 0)`:
 * a runner the function schedules on a timer is the function's own work, so its operations are summarised
 * as the function's (a helper running its callback under a lock, later or periodically).
 */
function scheduledOwner(fn: Node): Node | undefined {
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return undefined;
  const owner = ancestorWhere(fn.parent, isFunctionLike);
  if (!owner) return undefined;
  const holder = fn.parent;
  const name = ts.isVariableDeclaration(holder) && holder.initializer === fn && ts.isIdentifier(holder.name) ? holder.name.text : undefined;
  const schedules = (call: ts.CallExpression) => {
    const first = call.arguments[0] && unwrap(call.arguments[0]);
    return TIMER.test(calleeName(call) ?? '') && !!first && (first === fn || (!!name && ts.isIdentifier(first) && first.text === name));
  };
  if (ts.isCallExpression(holder) && schedules(holder)) return owner;
  return name && descendantsOfKind<ts.CallExpression>(owner, ts.SyntaxKind.CallExpression).some(schedules) ? owner : undefined;
}

function opsByFunction(model: LockModel): Map<Node, FunctionOps> {
  const byFn = new Map<Node, FunctionOps>();
  const at = (fn: Node) => {
    let ops = byFn.get(fn);
    if (!ops) byFn.set(fn, (ops = { acquires: [], releases: [], extends: [], plainSets: [], deletes: [] }));
    return ops;
  };
  // A runner on a timer is its function's work only when the function takes no lock itself: beside an
  // acquire of the function, a timer's renewals are that lock's watchdog, not lock work for its callers.
  const acquiring = new Set(model.acquires.map((a) => a.fn));
  const scheduled = (callback: Node) => {
    const owner = scheduledOwner(callback);
    return owner && !acquiring.has(owner) ? owner : undefined;
  };
  const of = (callback: Node) => at(fanOutOwner(callback) ?? retryOwner(callback) ?? scheduled(callback) ?? callback);
  for (const a of model.acquires) of(a.fn).acquires.push(a);
  for (const r of model.releases) of(r.fn).releases.push(r);
  for (const e of model.extends) of(e.fn).extends.push(e);
  for (const c of model.commands) {
    if (plainSet(c) && c.keys[0]) at(enclosingFunction(c.call)).plainSets.push(c);
    else if ((c.name === 'DEL' || c.name === 'UNLINK') && c.keys.length === 1) at(enclosingFunction(c.call)).deletes.push(c);
  }
  return byFn;
}

const NO_OPS: FunctionOps = { acquires: [], releases: [], extends: [], plainSets: [], deletes: [] };

/**
 * `cb(err)`, `cb(null, reply === 'OK')` in the acquire's own reply callback: the answer handed back
 * node-style, whether or not the lock was taken, not a routine run under the lock.
 */
function answersNodeStyle(call: ts.CallExpression, locked: Acquire): boolean {
  const replies = replyNames(locked, call);
  return !!replies && call.arguments.length > 0 && call.arguments.every((a) => unwrap(a).kind === ts.SyntaxKind.NullKeyword || mentions(a, replies));
}

/** The parameters of the acquire's own reply callback, when `node` is inside it. */
function replyNames(locked: Acquire, node: Node): string[] | undefined {
  const last = locked.call.arguments[locked.call.arguments.length - 1];
  const callback = last && unwrap(last);
  if (!callback || !isFunctionLike(callback) || !(callback.pos <= node.pos && node.end <= callback.end)) return undefined;
  return callback.parameters.map((p) => p.name.getText());
}

/** Does a parameter of `fn` receive, node-style, an answer that is true when the lock is busy (`cb(null, reply !== 'OK')`)? */
function answersBusy(fn: ts.FunctionLikeDeclaration, acquire: Acquire): boolean {
  return fn.parameters.some((p) => ts.isIdentifier(p.name) && identifiersNamed(fn, p.name.text).some((id) => {
    const call = id.parent;
    if (!ts.isCallExpression(call) || call.expression !== id || call.arguments.length < 2 || !answersNodeStyle(call, acquire)) return false;
    const answer = call.arguments[1];
    return mentions(answer, replyNames(acquire, call) ?? []) && testsFailure(answer);
  }));
}

/** A parameter of `fn`, or a member of an options parameter it destructures (`({ resource, task }) =>`). */
function parameterOrMember(fn: ts.FunctionLikeDeclaration, node: Node): { param: number; member?: string } | undefined {
  const param = parameterIndex(fn, node);
  if (param !== undefined) return { param };
  const n = unwrap(node);
  return ts.isIdentifier(n) ? optionsBindings(fn).fromParam.get(n.text) : undefined;
}

/**
 * `async (signal) => task(signal)`, `(s) => { return run(s); }`: a routine that only calls another, with
 * where it hands on the signal it is given (undefined: it hands on none).
 */
function forwardedCall(routine: Node): { callee: Node; signalArg?: number } | undefined {
  const r = unwrap(routine);
  if (!ts.isArrowFunction(r) && !ts.isFunctionExpression(r)) return undefined;
  let body: Node = r.body;
  if (ts.isBlock(body)) {
    const only = body.statements.length === 1 ? body.statements[0] : undefined;
    if (!only || !ts.isReturnStatement(only) || !only.expression) return undefined;
    body = only.expression;
  }
  let value = unwrap(body);
  if (ts.isAwaitExpression(value)) value = unwrap(value.expression);
  if (!ts.isCallExpression(value)) return undefined;
  const signal = r.parameters[0]?.name;
  const signalArg = signal && ts.isIdentifier(signal) ? value.arguments.findIndex((a) => { const v = unwrap(a); return ts.isIdentifier(v) && v.text === signal.text; }) : -1;
  return { callee: value.expression, signalArg: signalArg >= 0 ? signalArg : undefined };
}

/** A parameter that is called (or handed to a lock routine) in `fn`: the routine it runs under a lock. */
function routineOf(fn: ts.FunctionLikeDeclaration, acquires: readonly Acquire[], model: LockModel, path: string): FunctionSummary['routine'] {
  for (const acquire of acquires) {
    if (!acquire.routine) continue;
    const signalled = acquire.kind === 'with-lock' || acquire.kind === 'redlock-using';
    // The routine is our parameter (or an options member), handed to redlock.using / withLock / a routine helper.
    const direct = parameterOrMember(fn, acquire.routine);
    if (direct) {
      return { ...direct, key: keySpecOf(fn, acquire.key, model), signalArg: signalled ? (acquire.signalArg ?? 0) : undefined, at: placeOf(acquire.call, path) };
    }
    // Or an arrow that calls it, handing on the signal or not.
    const forward = forwardedCall(acquire.routine);
    const target = forward && parameterOrMember(fn, forward.callee);
    if (target) {
      const signalArg = signalled && (acquire.signalArg ?? 0) === 0 ? forward.signalArg : undefined;
      return { ...target, key: keySpecOf(fn, acquire.key, model), signalArg, at: placeOf(acquire.call, path) };
    }
  }
  const locked = acquires.find((a) => !a.routine);
  if (!locked) return undefined;
  for (const [index, p] of fn.parameters.entries()) {
    if (!ts.isIdentifier(p.name)) continue;
    const calls = identifiersNamed(fn, p.name.text).filter((id) => id.pos > locked.call.pos && ts.isCallExpression(id.parent) && id.parent.expression === id);
    const call = calls[0]?.parent as ts.CallExpression | undefined;
    if (!call || calls.some((id) => answersNodeStyle(id.parent as ts.CallExpression, locked))) continue;
    const signalArg = call.arguments.findIndex((a) => /signal/i.test(a.getText()));
    const routine: RoutineSummary = { param: index, key: keySpecOf(fn, locked.key, model), signalArg: signalArg >= 0 ? signalArg : undefined, at: placeOf(locked.call, path) };
    if (dropsRoutine(call, model)) routine.dropped = placeOf(call, path);
    return routine;
  }
  return undefined;
}

/**
 * `try { task(); } finally { await release(); }`: the routine called as a statement, before a release in
 * the same function, and not typed as async work (then the helper's own await-locked-work finding says it).
 */
function dropsRoutine(call: ts.CallExpression, model: LockModel): boolean {
  const runner = enclosingFunction(call);
  return ts.isExpressionStatement(call.parent) && !unawaitedPromise(call) && model.releases.some((r) => r.fn === runner && r.call.pos > call.end);
}

// `setnx(key, ttl)`, `setIfAbsent(key, ttl)`: a method named as the command, for its callers' locks.
const SETNX_NAME = /^set_?(?:nx|if_?(?:not_?exists?|absent))$/i;

/**
 * `setnx(key, ttl) { return (await client.set(key, '1', 'EX', ttl, 'NX')) === 'OK' }`: named as SETNX, but
 * it writes its own value and a TTL, so it is no thin wrapper. Its callers take locks with it: read as
 * an acquire (with that TTL), not by its name as a raw SETNX without one.
 */
function setNxWithTtl(fn: ts.FunctionLikeDeclaration, acquire: Acquire): boolean {
  return acquire.hasTtl && !acquire.marker && SETNX_NAME.test(functionNameOf(fn));
}

/**
 * `setIfAbsentOrGet(key, value, ttl)`: a store's conditional write of the caller's key and value with a
 * TTL, whatever its name. A caller takes a lock with it only where its key names one (storePrimitive).
 */
function conditionalPut(fn: ts.FunctionLikeDeclaration, acquire: Acquire, model: LockModel): boolean {
  return acquire.hasTtl && !acquire.marker && !!acquire.token && parameterIndex(fn, passedThrough(fn, acquire.token, model)) !== undefined && keySpecOf(fn, acquire.key, model)?.param !== undefined;
}

/**
 * `removeCached(key)`: a store's delete of the caller's key, not named as lock code and doing no other
 * lock work. Its callers release a lock with it only where they take that key as one (storePrimitive):
 * an in-flight claim through `setIfAbsent(key, ...)` deleted again in a finally.
 */
function deletesCallersKey(fn: ts.FunctionLikeDeclaration, ops: FunctionOps, model: LockModel): { del: RedisCommand; key: KeySpec } | undefined {
  if (ops.deletes.length !== 1 || ops.acquires.length > 0 || ops.extends.length > 0 || isLockFunction(fn)) return undefined;
  const del = ops.deletes[0];
  const key = keySpecOf(fn, model.keyOf(del.keys[0]), model);
  // The caller's key itself: a key built around it (`${key}:lock`) is the function's own lock, not the store's delete.
  return key?.param !== undefined && !key.members && !key.head && !key.tail ? { del, key } : undefined;
}

/**
 * A lock the function takes without NX, which exclusive-acquire reports here: a plain SET of a lock key
 * decided by a separate GET or EXISTS of it, or in a function named as the acquire. To its callers it is
 * an acquire all the same (they test its answer, release it on every path): the SET stands for it.
 */
function takenWithoutNx(fn: ts.FunctionLikeDeclaration, model: LockModel, plainSets: readonly RedisCommand[]): Acquire | undefined {
  for (const set of plainSets) {
    if (model.extends.some((e) => e.command === set)) continue;
    const key = model.keyOf(set.keys[0]);
    if (namesLockedState(key) || !(model.isLockKey(key) || inLockAcquireFunction(set))) continue;
    const check = checkBefore(model, set);
    if ((!check && !namedAcquire(set)) || (check && writesBackReply(check, set))) continue;
    return { kind: 'set-nx', call: set.call, command: set, key, token: set.args[0], hasTtl: !!set.set?.ttl, fn, statement: enclosingStatement(set.call), result: resultUse(set.call) };
  }
  return undefined;
}

/**
 * The lock library whose object every return of `fn` hands back, made in `fn`: `return new Mutex(redis,
 * key)`, or `const mutex = new Mutex(...); return mutex`. Its callers' `acquire()`/`release()` on what they
 * got are that library's.
 */
function madeLibrary(fn: ts.FunctionLikeDeclaration, model: LockModel): 'redlock' | 'redis-semaphore' | undefined {
  const own = model.libraryObjects.filter((o) => o.node.pos >= fn.pos && o.node.end <= fn.end);
  if (own.length === 0 || !fn.body) return undefined;
  const values = ts.isBlock(fn.body) ? ownReturns(fn).map((r) => r.expression) : [fn.body];
  const objects = values.map((v) => {
    const e = v && unwrap(v);
    return e && own.find((o) => o.node === e || (ts.isIdentifier(e) && o.name === e.text));
  });
  const first = objects[0];
  return first && objects.every((o) => o?.library === first.library) ? first.library : undefined;
}

function summarizeFunction(target: SummaryTarget, model: LockModel, ops: FunctionOps, path: string): FunctionSummary {
  const fn = target.fn;
  const summary: FunctionSummary = { name: target.name, params: fn.parameters.map((p) => p.name.getText()) };
  if (target.makes) summary.makes = target.makes;
  if (target.instanceOf) summary.instanceOf = target.instanceOf;
  const wraps = thinWrapper(fn);
  if (wraps) {
    summary.wraps = wraps;
    return summary;
  }
  const library = madeLibrary(fn, model);
  if (library) summary.makesLibrary = library;
  if (emptyOnlyUnconfigured(fn)) summary.unconfiguredNull = true;
  const routine = routineOf(fn, ops.acquires, model, path);
  if (routine) summary.routine = routine;
  const lockAcquire = ops.acquires.find((a) => !a.routine && (!isRedisAcquire(a) || isLockAcquire(model, a) || setNxWithTtl(fn, a)));
  const primitive = lockAcquire ? undefined : ops.acquires.find((a) => !a.routine && conditionalPut(fn, a, model));
  const acquire = lockAcquire ?? primitive ?? (routine ? undefined : takenWithoutNx(fn, model, ops.plainSets));
  // `releaseLeaderLock() { if (!(await this.tryForLeader())) return false; await del(key); }`: a release
  // that makes sure it still holds the lock first. Its callers release with it; they take nothing.
  const checksBeforeRelease = !!acquire && RELEASE_FUNCTION.test(functionNameOf(fn)) && ops.releases.some((r) => r.call.pos > acquire.call.end);
  if (acquire && !checksBeforeRelease) {
    const returns = returnsOf(fn, acquire);
    // A function that takes a lock, releases that lock itself and hands nothing of it back does its own
    // work under it: to its callers it neither acquires nor releases (what is wrong inside is its own).
    // A release in the catch of the try that took the lock (the SET threw, maybe after it landed) cleans up
    // a failed acquire: the lock it answers for is still the caller's to release.
    if (!routine && !HANDED_BACK.has(returns) && ops.releases.some((r) => releasesAcquired(model, acquire, r) && !cleansFailedAcquire(r, acquire))) return summary;
    // `createAndQueueMessage(user)` keeping its per-user claim for the TTL: not named as lock code and handing
    // back nothing at all, its lock is its own business (its callers neither test nor release it).
    if (!routine && returns === 'unknown' && ownReturns(fn).every((r) => !r.expression) && !callsParameter(fn) && !isLockFunction(fn)) return summary;
    const key = keySpecOf(fn, acquire.key, model);
    if (key) {
      summary.acquire = {
        key,
        token: tokenSpecOf(fn, acquire, model),
        hasTtl: acquire.hasTtl || !!acquire.laterExpire,
        returns,
        at: acquire.via?.at ?? placeOf(acquire.call, path),
      };
      if (acquire === primitive) summary.acquire.storePrimitive = true;
      const handedChecked = handedReleaseChecked(fn, acquire, returns, model);
      if (handedChecked !== undefined) summary.acquire.handedReleaseChecked = handedChecked;
      if (answersBusy(fn, acquire)) summary.acquire.answersBusy = true;
      Object.assign(summary.acquire, busySignal(fn, acquire, returns));
    }
  }
  // An acquire helper that hands its lock back releases after the acquire only to undo a failed or
  // partial acquire (a multi-key helper dropping the keys it took): to its callers it is no release.
  const handsBack = !!acquire && !!summary.acquire && HANDED_BACK.has(summary.acquire.returns);
  const release = ops.releases.find((r) => !(handsBack && acquire && r.call.pos > acquire.call.end));
  if (release) {
    summary.release = {
      key: keySpecOf(fn, release.key, model),
      handleParam: handleParamOf(fn, release),
      // Through a helper of its own, what that helper's release does (a call site counts as checked).
      ownerChecked: release.ownerChecked && release.via?.ownerChecked !== false,
      at: release.via?.at ?? placeOf(release.call, path),
    };
    if (comparesToken(release)) summary.release.compares = true;
  }
  const dropped = !summary.release && !acquire && !routine ? deletesCallersKey(fn, ops, model) : undefined;
  if (dropped) summary.release = { key: dropped.key, ownerChecked: false, storePrimitive: true, at: placeOf(dropped.del.call, path) };
  const extend = ops.extends[0];
  if (extend) {
    summary.extend = { key: keySpecOf(fn, extend.key, model), ownerChecked: extend.ownerChecked && extend.via?.ownerChecked !== false, at: extend.via?.at ?? placeOf(extend.call, path) };
    if (comparesToken(extend)) summary.extend.compares = true;
  }
  return summary;
}

/** A GET-compare before the write, in the helper or in one it calls. */
function comparesToken(op: Release | Extend): boolean {
  return ('getCompare' in op && !!op.getCompare) || !!op.via?.compares;
}

/**
 * `return { unlock: () => redis.del(key) }` / `return () => release(key, token)`: whether the releases
 * written in the functions the helper hands back compare the token; undefined when it hands back none.
 */
function handedReleaseChecked(fn: ts.FunctionLikeDeclaration, acquire: Acquire, returns: AcquireReturn, model: LockModel): boolean | undefined {
  if (returns !== 'release-fn' && returns !== 'lock-object') return acquire.via?.handedReleaseChecked;
  const nested = model.releases.filter((r) => r.fn !== fn && r.call.pos >= fn.pos && r.call.end <= fn.end && r.call.pos > acquire.call.end);
  if (nested.length === 0) return acquire.via?.handedReleaseChecked;
  return nested.every((r) => r.ownerChecked && r.via?.ownerChecked !== false);
}

/** What an acquire helper hands its caller to release or renew the lock with. */
const HANDED_BACK = new Set<AcquireReturn>(['token', 'release-fn', 'lock-object']);

/** Is the release in a catch clause of a try whose block holds the acquire? */
function cleansFailedAcquire(release: Release, acquire: Acquire): boolean {
  const clause = ancestorWhere(release.call, (a) => ts.isCatchClause(a) || isFunctionLike(a));
  return !!clause && ts.isCatchClause(clause) && contains(clause.parent.tryBlock, acquire.call);
}

/** Does `release` release the lock `acquire` took: the same key, or the same lock object? */
function releasesAcquired(model: LockModel, acquire: Acquire, release: Release): boolean {
  if (acquire.owner && release.handle === acquire.owner) return true;
  return !!acquire.key && !!release.key && model.releasesOn(acquire.key).includes(release);
}

/**
 * The file's summary: its module shape (`symbols`, read once per tree by the caller, which also builds
 * the model's project context on it) and the lock meaning of each of its functions. `symbols.summary`
 * is left as it is: answers about it may be cached by the summary object (call-meanings.ts).
 */
export function summarizeFile(model: LockModel, symbols: FileSymbols): FileSummary {
  const { summary: shape, targets } = symbols;
  const path = shape.path;
  const summary: FileSummary = {
    ...shape,
    functions: nameTable(),
    classes: nameTable(),
    objects: nameTable(),
  };
  for (const [name, cls] of Object.entries(shape.classes)) summary.classes[name] = { ...cls, methods: nameTable() };
  for (const name of Object.keys(shape.objects)) summary.objects[name] = nameTable();
  const byFn = opsByFunction(model);
  for (const target of targets) {
    const fn = summarizeFunction(target, model, byFn.get(target.fn) ?? NO_OPS, path);
    const container = target.container;
    if (!container) summary.functions[target.name] = fn;
    else if (container.kind === 'class') summary.classes[container.name].methods[target.name] = fn;
    else summary.objects[container.name][target.name] = fn;
  }
  return summary;
}
