// Is a lock token unique per acquisition? Constants, process.pid, hostnames, timestamps and in-memory
// counters are not, and neither is one token created once (module level, or once per object) and
// reused. The id of the user or record a lock is for is asked apart (isRecordId): a holder that is a
// user is often meant.
import { ts } from './typescript';
import { returnedText } from './written-text';
import type { ConstLookup } from './keys';
import { ancestorWhere, declarationOf, descendantsOfKind, elementValue, isAssignment, isPlus, literalString, unwrap, type Node } from './nodes';

export type Weakness =
  | { kind: 'constant' | 'pid' | 'hostname' | 'timestamp' | 'counter'; what: string }
  | { kind: 'reused'; what: string; declaration: Node };

const HOST = /^(os\.)?hostname\(\)$/;
const TIME = /^(Date\.now\(\)|performance\.now\(\)|process\.hrtime(\.bigint)?\(\)|newDate\(\)(\.(getTime|valueOf|toISOString)\(\))?)$/;
const FALLBACK = new Set([ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken]);
const ARITHMETIC = new Set([ts.SyntaxKind.PlusToken, ts.SyntaxKind.MinusToken]);
/** `Date.now() / 1000`: a time in other units. */
const SCALING = new Set([ts.SyntaxKind.SlashToken, ts.SyntaxKind.AsteriskToken]);
const DURATION = /ms|ttl|timeout|expir|second|duration|delay|lease|interval/i;
const PID = /^(process\.pid|process\.ppid)(\.toString\(\))?$|^String\(process\.pid\)$/;
// `userId`, `body.userId`, `order.id`, `req.user.id`, `customer_id`: the id of what the lock is for,
// the same for every concurrent request on it. A closed list of record words: a `lockId`, `ownerId`
// or `requestId` may well be random.
const RECORD = 'user|customer|account|member|tenant|org|organization|order|product|item|cart|coupon|payment|ticket|seat|booking|reservation|job|task';
const RECORD_ID = new RegExp(`(?:^|[.])(?:[a-z]\\w*?)?(?:${RECORD})_?id$|(?:^|[.])(?:${RECORD})\\.id$`, 'i');

function partWeakness(node: Node, lookup: ConstLookup, depth: number): Weakness['kind'] | 'strong' | 'unknown' {
  const n = unwrap(node);
  // `String(x)`, `x.toString()` and `` `${x}` `` are as unique as x.
  // `+new Date()` and `Number(x)` are as unique as x too.
  // `(new Date()).toISOString()` is `new Date().toISOString()`.
  const text = n.getText().replace(/\s+/g, '').replace(/^\(newDate\(\)\)/, 'newDate()').replace(/^(?:String|Number)\((.*)\)$/, '$1').replace(/^\+/, '').replace(/\.toString\(\d*\)$/, '');
  if (literalString(n) !== undefined || ts.isNumericLiteral(n) || n.kind === ts.SyntaxKind.TrueKeyword) return 'constant';
  if (PID.test(text)) return 'pid';
  if (HOST.test(text) || /hostname\(\)$/.test(text)) return 'hostname';
  if (TIME.test(text)) return 'timestamp';
  if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && /^(?:String|Number)$/.test(n.expression.text) && n.arguments.length === 1) {
    return partWeakness(n.arguments[0], lookup, depth + 1);
  }
  // `Math.round(Date.now() / 1000)`: a time in whole seconds is a time, and more holders share it.
  if (ts.isCallExpression(n) && /^Math\.(?:round|floor|ceil|trunc)$/.test(n.expression.getText()) && n.arguments.length === 1 && partWeakness(n.arguments[0], lookup, depth + 1) === 'timestamp') {
    return 'timestamp';
  }
  if (ts.isBinaryExpression(n) && SCALING.has(n.operatorToken.kind) && ts.isNumericLiteral(unwrap(n.right)) && partWeakness(n.left, lookup, depth + 1) === 'timestamp') return 'timestamp';
  // `nextFencingToken()` of `function nextFencingToken() { return ++seq; }`: what the file's function returns.
  const returned = ts.isCallExpression(n) && n.arguments.length === 0 ? returnedWeakness(n) : undefined;
  if (returned) return returned;
  // `++seq`, `this.counter++`: a count kept in memory is unique in one process only; every process counts from the same start.
  if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && n.operator === ts.SyntaxKind.PlusPlusToken) return 'counter';
  // Five steps: `timeout` of `now + ttl + 1`, `now` of `Math.round(Date.now() / 1000)`.
  if (ts.isIdentifier(n) && depth < 5) {
    const init = lookup(n);
    if (init) return partWeakness(init, lookup, depth + 1);
  }
  // `a ?? '*'`, `a || 'worker'`, `c ? a : 'x'`, `(owner = 'global') =>`: every operand is a value the lock can get.
  const alternatives = fallbacks(n);
  if (alternatives) {
    const kinds = alternatives.map((p) => partWeakness(p, lookup, depth + 1));
    return kinds.find((k) => k !== 'strong' && k !== 'unknown') ?? (kinds.every((k) => k === 'strong') ? 'strong' : 'unknown');
  }
  // `Date.now() + ttlMs` is a time as much as Date.now().
  if (ts.isBinaryExpression(n) && ARITHMETIC.has(n.operatorToken.kind)) {
    const [left, right] = [partWeakness(n.left, lookup, depth + 1), partWeakness(n.right, lookup, depth + 1)];
    const offset = (side: Node, kind: string) => kind === 'constant' ? ts.isNumericLiteral(unwrap(side)) : DURATION.test(unwrap(side).getText());
    if ((left === 'timestamp' && offset(n.right, right)) || (right === 'timestamp' && offset(n.left, left))) return 'timestamp';
  }
  // `JSON.stringify({ host, since: Date.now() })`: holder details are as unique as their values together.
  if (ts.isCallExpression(n) && n.expression.getText() === 'JSON.stringify' && n.arguments[0] && depth < 6) return partWeakness(n.arguments[0], lookup, depth + 1);
  const object = ts.isObjectLiteralExpression(n) ? n : undefined;
  if (ts.isTemplateExpression(n) || isPlus(n) || object) {
    const parts = object ? object.properties.map(elementValue) : ts.isTemplateExpression(n) ? n.templateSpans.map((s) => s.expression) : [(n as ts.BinaryExpression).left, (n as ts.BinaryExpression).right];
    if (parts.some((p) => !p)) return 'unknown';
    const kinds = parts.map((p) => partWeakness(p!, lookup, depth + 1));
    if (kinds.some((k) => k === 'strong' || k === 'unknown')) return kinds.includes('strong') ? 'strong' : 'unknown';
    // `${process.pid}-${Date.now()}`: what sets it apart from another holder's value is the time.
    if (kinds.includes('timestamp')) return 'timestamp';
    return kinds.find((k) => k !== 'constant') ?? 'constant';
  }
  if (/random|uuid|nanoid|ulid|cuid|v4\(/i.test(text)) return 'strong';
  return 'unknown';
}

/**
 * The weakness of the one value a function of this file, called by name, returns: `function next() {
 * return ++seq; }`, `const next = () => seq++`. Read from the text as written (a lean tree blanks the
 * function), so only what its text alone shows: a counter, a pid, a hostname or a time.
 */
function returnedWeakness(call: ts.CallExpression): Weakness['kind'] | undefined {
  const callee = unwrap(call.expression);
  // `randomUUID()`, `nanoid()`: said strong by name below, without a search of the file.
  if (!ts.isIdentifier(callee) || RANDOM_NAME.test(callee.text)) return undefined;
  const value = returnedText(call.getSourceFile(), callee.text)?.replace(/\s+/g, '');
  if (!value) return undefined;
  if (COUNTER.test(value)) return 'counter';
  if (PID.test(value)) return 'pid';
  if (HOST.test(value)) return 'hostname';
  return TIME.test(value) ? 'timestamp' : undefined;
}

const RANDOM_NAME = /random|uuid|nanoid|ulid|cuid/i;
/** `++seq`, `this.issued++`, written out. */
const COUNTER = /^(?:\+\+[\w$.]+|[\w$.]+\+\+)$/;

/**
 * The values a token falls back to: both sides of `a ?? b` and `a || b`, both branches of `c ? a : b`,
 * and for a parameter with a default (`owner = 'global'`) that default, which every caller that
 * leaves the parameter out shares.
 */
function fallbacks(n: Node): Node[] | undefined {
  if (ts.isConditionalExpression(n)) return [n.whenTrue, n.whenFalse];
  if (ts.isBinaryExpression(n) && FALLBACK.has(n.operatorToken.kind)) return [n.left, n.right];
  const decl = ts.isIdentifier(n) ? declarationOf(n) : undefined;
  // The parameter itself is what a caller passes: unknown here, so only its default is read.
  return decl && ts.isParameter(decl) && decl.initializer ? [decl.initializer] : undefined;
}

/**
 * Does the key vary with the call: built from a parameter of a function (through `const` aliases)?
 * A key fixed per process or per object (a literal, a module constant, `this.lockKey`) is one lock,
 * and an id made once for it is that process's or object's own identity: the shape of leader election.
 */
function keyVariesPerCall(key: Node, depth = 0): boolean {
  const n = unwrap(key);
  if (ts.isIdentifier(n)) {
    const decl = declarationOf(n);
    if (!decl) return false;
    if (ts.isParameter(decl)) return true;
    return !!decl.initializer && !ts.isSourceFile(decl.parent.parent.parent) && depth < 4 && keyVariesPerCall(decl.initializer, depth + 1);
  }
  if (ts.isPropertyAccessExpression(n)) return n.expression.kind !== ts.SyntaxKind.ThisKeyword && keyVariesPerCall(n.expression, depth + 1);
  let varies = false;
  n.forEachChild((child) => {
    varies ||= keyVariesPerCall(child, depth + 1);
  });
  return varies;
}

/**
 * Does the function record what it acquired in a collection of its object (`this.ownedGames.add(id)`,
 * `this.leases.set(id, ...)`)? Then the object owns many leases at once, by design: its id, made once,
 * names the owning instance (every owner check is that instance's), not one acquisition.
 */
function recordsOwnership(fn: Node): boolean {
  const cls = ancestorWhere<ts.ClassDeclaration>(fn, ts.isClassDeclaration);
  if (!cls) return false;
  return descendantsOfKind<ts.CallExpression>(fn, ts.SyntaxKind.CallExpression).some((call) => {
    const callee = unwrap(call.expression);
    if (!ts.isPropertyAccessExpression(callee) || !/^(?:add|set)$/.test(callee.name.text)) return false;
    const holder = unwrap(callee.expression);
    return ts.isPropertyAccessExpression(holder) && holder.expression.kind === ts.SyntaxKind.ThisKeyword && isCollectionField(cls, holder.name.text);
  });
}

const COLLECTION = /^new\s+(?:Map|Set)\b|^(?:Readonly)?(?:Map|Set)\s*</;

/** A field that holds a Map or Set (`owned = new Set<string>()`, `leases: Map<string, Lease>`), not a Redis client. */
function isCollectionField(cls: ts.ClassDeclaration, name: string): boolean {
  const prop = cls.members.find((m): m is ts.PropertyDeclaration => ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === name);
  if (prop && COLLECTION.test((prop.initializer ?? prop.type)?.getText() ?? '')) return true;
  return descendantsOfKind<ts.BinaryExpression>(cls, ts.SyntaxKind.BinaryExpression).some((b) => isAssignment(b) && b.left.getText() === `this.${name}` && COLLECTION.test(b.right.getText()));
}

/** The module-level or once-per-object declaration of a token used inside a function, if any. */
function reusedDeclaration(token: Node, fn: Node, key?: Node): Node | undefined {
  if ((key && !keyVariesPerCall(key)) || recordsOwnership(fn)) return undefined;
  const n = unwrap(token);
  if (ts.isIdentifier(n)) {
    const decl = declarationOf(n);
    // VariableDeclaration -> VariableDeclarationList -> VariableStatement -> SourceFile
    const moduleLevel = !!decl && ts.isVariableDeclaration(decl) && ts.isSourceFile(decl.parent.parent.parent);
    return moduleLevel && !ts.isSourceFile(fn) ? decl : undefined;
  }
  if (ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = ancestorWhere<ts.ClassDeclaration>(token, ts.isClassDeclaration);
    if (!cls) return undefined;
    const declaration = setAtConstruction(cls, n.name.text, false);
    // One object per lock (its key is set at construction too): a token made per object is made per lock.
    const perLock = !!key && isThisField(key) && !!setAtConstruction(cls, (unwrap(key) as ts.PropertyAccessExpression).name.text, true);
    return declaration && !perLock ? declaration : undefined;
  }
  return undefined;
}

function isThisField(node: Node): boolean {
  const n = unwrap(node);
  return ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword;
}

/** The declaration of a field written only when the object is made (initializer, constructor, parameter property). */
function setAtConstruction(cls: ts.ClassDeclaration, name: string, orPassedIn: boolean): Node | undefined {
  const writes = descendantsOfKind<ts.BinaryExpression>(cls, ts.SyntaxKind.BinaryExpression).filter((b) => isAssignment(b) && b.left.getText() === `this.${name}`);
  const prop = cls.members.find((m): m is ts.PropertyDeclaration => ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === name);
  const ctor = cls.members.find(ts.isConstructorDeclaration);
  const parameterProperty = ctor?.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name && (ts.getModifiers(p)?.length ?? 0) > 0);
  const onlyAtConstruction = writes.every((w) => ancestorWhere(w, ts.isConstructorDeclaration));
  if (!onlyAtConstruction) return undefined;
  return prop?.initializer || writes.length > 0 ? (prop ?? writes[0]) : orPassedIn ? parameterProperty : undefined;
}

/** `, which can be '*',` for a token that only falls back to a weak value. */
function fallbackText(token: Node, lookup: ConstLookup, kind: string): string {
  let n = unwrap(token);
  if (ts.isIdentifier(n)) n = unwrap(lookup(n) ?? n);
  const alternatives = fallbacks(n) ?? [];
  const weak = alternatives.find((a) => partWeakness(a, lookup, 1) === kind);
  return weak ? ` (which can be ${unwrap(weak).getText()})` : '';
}

/** ` (`${order.id}:${Date.now()}`)` for a token held in a variable: the message names the value. */
function valueText(token: Node, lookup: ConstLookup): string {
  const n = unwrap(token);
  const init = ts.isIdentifier(n) ? lookup(n) : undefined;
  const text = init?.getText().replace(/\s+/g, ' ');
  return text && text.length <= 60 ? ` (${text})` : '';
}

/** How the lock value `token` of an acquire (of `key`, when known) in `fn` fails to be unique, if it does. */
export function tokenWeakness(token: Node, fn: Node, lookup: ConstLookup, key?: Node): Weakness | undefined {
  const kind = partWeakness(token, lookup, 0);
  const what = unwrap(token).getText() + (fallbackText(token, lookup, kind) || valueText(token, lookup));
  if (kind === 'constant' || kind === 'pid' || kind === 'hostname' || kind === 'timestamp' || kind === 'counter') return { kind, what };
  const declaration = reusedDeclaration(token, fn, key);
  return declaration ? { kind: 'reused', what, declaration } : undefined;
}

/**
 * Is the token the id of the user or record the lock is for (`dto.userId`, `order.id`), alone or after
 * `const` aliases? Every concurrent request on that record holds the same value, so an owner check
 * cannot tell them apart.
 */
export function isRecordId(token: Node, lookup: ConstLookup, depth = 0): boolean {
  const n = unwrap(token);
  if (ts.isIdentifier(n) && depth < 3) {
    const init = lookup(n);
    if (init) return isRecordId(init, lookup, depth + 1);
  }
  return (ts.isIdentifier(n) || ts.isPropertyAccessExpression(n)) && RECORD_ID.test(n.getText().replace(/\s+/g, ''));
}

export function initializerOf(token: Node, lookup: ConstLookup): ts.Expression | undefined {
  const n = unwrap(token);
  return ts.isIdentifier(n) ? lookup(n) : undefined;
}
