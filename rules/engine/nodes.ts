// Small syntax helpers over the compiler's tree (the TypeScript that ts-morph ships), shared by the
// recognisers and the rules. The analyzer reads compiler nodes directly: ts-morph's wrapper objects
// cost more than the whole analysis of a 5,000-line file. Parent pointers are always set.
import { ts } from './typescript';
import { identifiersOfFile, indexedIdentifiers, indexedOfKind } from './file-index';
import { firstAtOrAfter } from './sorted';

export type Node = ts.Node;

// Read once: every member of TypeScript's namespace object is a getter, and these kinds are compared for
// nearly every node the engine reads (the getter showed in the profile of unwrap and isFunctionLike).
const SyntaxKind = ts.SyntaxKind;

/** Descendants that pass `keep`, in document order. For kinds and names, the file index answers faster. */
export function descendantsWhere<T extends ts.Node = ts.Node>(node: ts.Node, keep: (n: ts.Node) => boolean): T[] {
  const found: ts.Node[] = [];
  // Recursion is safe: it is shallower per nesting level than the parser that built this tree.
  const visit = (n: ts.Node): void => {
    if (keep(n)) found.push(n);
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return found as T[];
}

/** Calls whose callee name passes `accept`. */
export function callsNamed(node: ts.Node, accept: (name: string) => boolean): ts.CallExpression[] {
  return descendantsOfKind<ts.CallExpression>(node, SyntaxKind.CallExpression).filter((call) => {
    // `f()`, `a.b.m()`, and `a['m']()`.
    const name = calleeName(call) ?? methodOf(call)?.name;
    return name !== undefined && accept(name);
  });
}

/** Descendants of one syntax kind, in document order. */
export function descendantsOfKind<T extends ts.Node>(node: ts.Node, kind: ts.SyntaxKind): T[] {
  return indexedOfKind<T>(node, kind) ?? descendantsWhere<T>(node, (n) => n.kind === kind);
}

/** Identifiers spelled as one of `names`, in document order. */
export function identifiersNamed(node: ts.Node, names: string | Iterable<string>): ts.Identifier[] {
  if (typeof names === 'string') return indexedIdentifiers(node, names);
  // Each name's list is in document order already: merged, not concatenated and sorted (lock code asks
  // this of its two or three names at every branch it walks).
  let found: ts.Identifier[] = [];
  const seen: string[] = [];
  for (const name of names) {
    if (seen.includes(name)) continue;
    seen.push(name);
    const more = indexedIdentifiers(node, name);
    if (more.length > 0) found = found.length === 0 ? more : mergeByPos(found, more);
  }
  return found;
}

function mergeByPos(a: ts.Identifier[], b: ts.Identifier[]): ts.Identifier[] {
  const merged: ts.Identifier[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) merged.push(a[i].pos < b[j].pos ? a[i++] : b[j++]);
  while (i < a.length) merged.push(a[i++]);
  while (j < b.length) merged.push(b[j++]);
  return merged;
}

/** Every descendant, in document order. */
export function descendants(node: ts.Node): ts.Node[] {
  return descendantsWhere(node, () => true);
}

/** The nearest ancestor (not the node itself) that passes `test`. */
export function ancestorWhere<T extends ts.Node = ts.Node>(node: ts.Node, test: (n: ts.Node) => boolean): T | undefined {
  for (let a = node.parent; a; a = a.parent) if (test(a)) return a as T;
  return undefined;
}

export function isAncestor(ancestor: ts.Node, node: ts.Node): boolean {
  for (let a = node.parent; a; a = a.parent) if (a === ancestor) return true;
  return false;
}

export function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  switch (node.kind) {
    case SyntaxKind.FunctionDeclaration:
    case SyntaxKind.FunctionExpression:
    case SyntaxKind.ArrowFunction:
    case SyntaxKind.MethodDeclaration:
    case SyntaxKind.Constructor:
    case SyntaxKind.GetAccessor:
    case SyntaxKind.SetAccessor:
      return true;
    default:
      return false;
  }
}

/** The nearest enclosing function (or the source file for top-level code). */
export function enclosingFunction(node: ts.Node): ts.Node {
  return ancestorWhere(node, isFunctionLike) ?? node.getSourceFile();
}

/** The statement that contains `node` directly inside a block, a case clause or the file. */
export function enclosingStatement(node: ts.Node): ts.Node {
  let current = node;
  for (;;) {
    const parent = current.parent;
    if (!parent || ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent)) {
      return current;
    }
    if (ts.isArrowFunction(parent)) return current; // expression-bodied arrow
    current = parent;
  }
}

/**
 * `try { const r = await set(...); ok = r === 'OK' } catch { ... }` then `if (!ok) ...`: the try around
 * `statement` and the statement after that try, when the rest of the try block only reads what
 * `statement` answered (expression statements without calls). Undefined when not so.
 */
export function afterItsTry(statement: ts.Node): { attempt: ts.TryStatement; next: ts.Statement | undefined } | undefined {
  const block = statement.parent;
  const attempt = block?.parent;
  if (!block || !ts.isBlock(block) || !attempt || !ts.isTryStatement(attempt) || attempt.tryBlock !== block) return undefined;
  const rest = block.statements.slice(block.statements.indexOf(statement as ts.Statement) + 1);
  if (rest.some((s) => !ts.isExpressionStatement(s) || descendantsOfKind(s, SyntaxKind.CallExpression).length > 0)) return undefined;
  const outer = attempt.parent;
  const siblings = ts.isBlock(outer) || ts.isSourceFile(outer) ? outer.statements : undefined;
  return { attempt, next: siblings?.[siblings.indexOf(attempt) + 1] };
}

/** Strips parentheses, `as`, `!`, `satisfies` and `<T>` around an expression. */
export function unwrap(node: ts.Node): ts.Node {
  // By kind, not by five type guards: asked of nearly every node the engine reads.
  let current = node;
  for (;;) {
    switch (current.kind) {
      case SyntaxKind.ParenthesizedExpression:
      case SyntaxKind.AsExpression:
      case SyntaxKind.NonNullExpression:
      case SyntaxKind.SatisfiesExpression:
      case SyntaxKind.TypeAssertionExpression:
        current = (current as ts.ParenthesizedExpression).expression;
        break;
      default:
        return current;
    }
  }
}

/** Method name and receiver of `recv.name(...)`, `recv?.name(...)` or `recv['name'](...)`. */
export function methodOf(call: ts.CallExpression): { name: string; receiver: ts.Expression } | undefined {
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee)) return { name: callee.name.text, receiver: callee.expression };
  if (ts.isElementAccessExpression(callee)) {
    const name = literalString(callee.argumentExpression);
    if (name !== undefined) return { name, receiver: callee.expression };
  }
  return undefined;
}

/** Name of a plain function call `name(...)`, or of `ns.name(...)` (last segment). */
export function calleeName(call: ts.CallExpression): string | undefined {
  const callee = unwrap(call.expression);
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** `findOne(...)`, `getSaga(id)`, `repo.count()`: a read, named so. */
const READ_CALL = /^(?:find|get|load|fetch|read|count|select|lookup|exists)(?:[A-Z_$\d]|$)/;

export function isNamedRead(call: ts.CallExpression): boolean {
  return READ_CALL.test(methodOf(call)?.name ?? calleeName(call) ?? '');
}

/** The value of a string literal or a template without substitutions. */
export function literalString(node: ts.Node): string | undefined {
  const n = unwrap(node);
  return ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) ? n.text : undefined;
}

/** Whether a literal is truthy, falsy, or not a literal this can judge. */
export function literalTruth(node: ts.Node): boolean | undefined {
  const value = unwrap(node);
  if (value.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (value.kind === ts.SyntaxKind.FalseKeyword || value.kind === ts.SyntaxKind.NullKeyword || ts.isVoidExpression(value)) return false;
  if (ts.isIdentifier(value) && value.text === 'undefined') return false;
  if (ts.isNumericLiteral(value)) return Number(value.text) !== 0;
  if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) return value.text !== '';
  return undefined;
}

export function literalNumber(node: ts.Node): number | undefined {
  const n = unwrap(node);
  if (ts.isNumericLiteral(n)) return Number(n.text);
  const s = literalString(n);
  return s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;
}

/** The name of a declaration or property as written, without quotes (`'NX'` -> NX). */
export function nameOf(node: { name?: ts.Node }): string | undefined {
  const name = node.name;
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** The value an element of an object literal holds (`name: x`, or `x` for shorthand); undefined for a spread or a method. */
export function elementValue(p: ts.ObjectLiteralElementLike): ts.Expression | undefined {
  if (ts.isPropertyAssignment(p)) return p.initializer;
  return ts.isShorthandPropertyAssignment(p) ? p.name : undefined;
}

/** The initializer of property `name` of an object literal (`name: x`, or `x` for shorthand `name`). */
export function propertyValue(obj: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  const p = obj.properties.find((e) => (ts.isPropertyAssignment(e) && nameOf(e) === name) || (ts.isShorthandPropertyAssignment(e) && e.name.text === name));
  return p && elementValue(p);
}

/** The return statements of `fn` itself (not of functions nested in it). */
export function ownReturns(fn: ts.FunctionLikeDeclaration): ts.ReturnStatement[] {
  return descendantsOfKind<ts.ReturnStatement>(fn, ts.SyntaxKind.ReturnStatement).filter((r) => ancestorWhere(r, isFunctionLike) === fn);
}

/** The `name: value` assignment of an object literal. */
export function propertyAssignment(obj: ts.ObjectLiteralExpression, name: string): ts.PropertyAssignment | undefined {
  return obj.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && nameOf(p) === name);
}

/** Any member named `name` (assignment, shorthand, method...). */
export function hasProperty(obj: ts.ObjectLiteralExpression, name: string): boolean {
  return obj.properties.some((p) => nameOf(p) === name);
}

export function isAssignment(node: ts.Node): node is ts.BinaryExpression {
  return ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.EqualsToken;
}

export function isPlus(node: ts.Node): node is ts.BinaryExpression {
  return ts.isBinaryExpression(node) && node.operatorToken.kind === SyntaxKind.PlusToken;
}

const SPACE_OR_OPTIONAL_CHAIN = /\s|\?\./;

/** Whitespace-free text with `?.` read as `.`, used to compare expressions. */
export function normalizeText(node: ts.Node): string {
  if (ts.isIdentifier(node)) return node.text;
  const text = node.getText();
  // Most keys have neither: skip the two replacements (keys are compared hundreds of times per file).
  return SPACE_OR_OPTIONAL_CHAIN.test(text) ? text.replace(/\s+/g, '').replace(/\?\./g, '.') : text;
}

/** The scope a variable or parameter declaration is visible in (let/const/var alike, by block). */
function scopeOfDeclaration(decl: ts.Node): ts.Node | undefined {
  if (ts.isParameter(decl)) return decl.parent;
  if (!ts.isVariableDeclaration(decl)) return undefined;
  const list = decl.parent;
  if (ts.isCatchClause(list)) return list;
  const holder = list.parent;
  return ts.isVariableStatement(holder) ? holder.parent : holder; // a block-like, or the for statement
}

const posOf = (n: ts.Node) => n.pos;

/**
 * Of the identifiers spelled one name, those that name a variable or parameter, kept per list: a helper
 * called a hundred times in a file was otherwise looked for behind each call among all the others.
 */
const declaredLists = new WeakMap<readonly ts.Identifier[], ts.Identifier[]>();
function declaredNames(identifiers: readonly ts.Identifier[]): readonly ts.Identifier[] {
  if (identifiers.length === 0) return identifiers;
  let declared = declaredLists.get(identifiers);
  if (!declared) {
    declared = identifiers.filter((name) => (ts.isVariableDeclaration(name.parent) || ts.isParameter(name.parent)) && name.parent.name === name);
    declaredLists.set(identifiers, declared);
  }
  return declared;
}

/**
 * The declaration (variable or parameter) an identifier refers to: the nearest declaration of the name
 * before it whose scope encloses it. Declarations of enclosing scopes come before inner ones, so the
 * first such one found going backwards is the innermost.
 */
export function declarationOf(identifier: ts.Identifier): ts.VariableDeclaration | ts.ParameterDeclaration | undefined {
  const declared = declaredNames(identifiersOfFile(identifier.getSourceFile(), identifier.text));
  // From the identifier itself backwards (a declaration's own name resolves to that declaration).
  for (let i = firstAtOrAfter(declared, identifier.pos + 1, posOf) - 1; i >= 0; i--) {
    const decl = declared[i].parent as ts.VariableDeclaration | ts.ParameterDeclaration;
    const scope = scopeOfDeclaration(decl);
    if (scope && scope.pos <= identifier.pos && identifier.end <= scope.end) return decl;
  }
  return undefined;
}

/**
 * The object-pattern element that declares `id`'s name in a scope around it (`const { acquire } = locks`,
 * which declarationOf does not read): the nearest one before it.
 */
export function bindingElementOf(id: ts.Identifier): ts.BindingElement | undefined {
  let found: ts.BindingElement | undefined;
  for (const named of identifiersOfFile(id.getSourceFile(), id.text)) {
    if (named.pos >= id.pos) break;
    const element = named.parent;
    if (!ts.isBindingElement(element) || element.name !== named || !ts.isObjectBindingPattern(element.parent)) continue;
    const scope = ancestorWhere(element, (n) => ts.isBlock(n) || ts.isSourceFile(n) || isFunctionLike(n));
    if (scope && scope.pos <= id.pos && id.end <= scope.end) found = element;
  }
  return found;
}

export function isConstList(list: ts.Node): list is ts.VariableDeclarationList {
  return ts.isVariableDeclarationList(list) && (list.flags & ts.NodeFlags.BlockScoped) === ts.NodeFlags.Const;
}

/**
 * The initializer of the `const` an identifier refers to, or of a `let` in a function that nothing
 * writes again (`let lockName = prefix(name)` is a const in all but keyword). Undefined for parameters,
 * `var`, and a module-level `let`, whose writes a lean parse may have blanked.
 */
export function resolveConst(identifier: ts.Node): ts.Expression | undefined {
  if (!ts.isIdentifier(identifier)) return undefined;
  const decl = declarationOf(identifier);
  if (!decl || !ts.isVariableDeclaration(decl)) return undefined;
  if (isConstList(decl.parent)) return decl.initializer;
  return isUnwrittenLocalLet(decl, identifier) ? decl.initializer : undefined;
}

// Each `let` is judged once per tree, however many of its uses are resolved (per tree: an incremental
// reparse may reuse the declaration's node while an edit elsewhere writes to it).
const unwrittenLets = new WeakMap<ts.SourceFile, Map<ts.VariableDeclaration, boolean>>();

function isUnwrittenLocalLet(decl: ts.VariableDeclaration, identifier: ts.Identifier): boolean {
  const file = identifier.getSourceFile();
  let judged = unwrittenLets.get(file);
  if (!judged) unwrittenLets.set(file, (judged = new Map()));
  const known = judged.get(decl);
  if (known !== undefined) return known;
  const list = decl.parent;
  const localLet = !!decl.initializer && ts.isIdentifier(decl.name) && ts.isVariableDeclarationList(list) &&
    (list.flags & ts.NodeFlags.BlockScoped) === ts.NodeFlags.Let && ts.isVariableStatement(list.parent) && !ts.isSourceFile(list.parent.parent);
  const unwritten = localLet && identifiersOfFile(file, identifier.text).every((id) => id === decl.name || !isWritten(id) || declarationOf(id) !== decl);
  judged.set(decl, unwritten);
  return unwritten;
}

/** Is `id` assigned to: `x = `, `x += `, `x++`, `[x] = `, `({ x } = `, `for (x of ...)`? */
function isWritten(id: ts.Identifier): boolean {
  let target: ts.Node = id;
  while (
    ts.isParenthesizedExpression(target.parent) ||
    ts.isArrayLiteralExpression(target.parent) ||
    ts.isObjectLiteralExpression(target.parent) ||
    ts.isShorthandPropertyAssignment(target.parent) ||
    (ts.isPropertyAssignment(target.parent) && target.parent.initializer === target) ||
    ts.isSpreadElement(target.parent) ||
    ts.isSpreadAssignment(target.parent)
  ) {
    target = target.parent;
  }
  const parent = target.parent;
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    return parent.left === target && op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment;
  }
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) {
    return parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken;
  }
  return (ts.isForOfStatement(parent) || ts.isForInStatement(parent)) && parent.initializer === target;
}

/** `await work()`, `(work())`: the expression without its wrappers and one `await`. */
export function unwrapAwait(node: ts.Node): ts.Node {
  const inner = unwrap(node);
  return ts.isAwaitExpression(inner) ? unwrap(inner.expression) : inner;
}

export function isAwaited(node: ts.Node): boolean {
  let parent = node.parent;
  while (parent && (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isNonNullExpression(parent))) parent = parent.parent;
  return !!parent && ts.isAwaitExpression(parent);
}

/** The expression that carries a call's value outward: the call itself or its `await`. */
export function valueCarrier(node: ts.Node): ts.Node {
  let current = node;
  while (
    current.parent &&
    (ts.isAwaitExpression(current.parent) || ts.isParenthesizedExpression(current.parent) || ts.isAsExpression(current.parent) || ts.isNonNullExpression(current.parent))
  ) {
    current = current.parent;
  }
  return current;
}

export function spanOf(node: ts.Node): { start: number; end: number } {
  return { start: node.getStart(), end: node.end };
}

/**
 * Is `inner` inside `outer` (or the same node)? By token starts, answered from full spans where those
 * decide it (getStart scans the leading trivia, and rules ask this of every pair of a file's acquires
 * and releases). A node of the same tree whose full start is at or after `outer`'s begins at a token
 * boundary inside `outer`, never in its leading trivia; one that ends before `outer`'s full start
 * starts before it. A missing node (zero width, in a file with syntax errors) starts at its full start.
 */
export function contains(outer: ts.Node, inner: ts.Node): boolean {
  if (inner.end > outer.end || inner.end < outer.pos) return false;
  return (inner.pos >= outer.pos && inner.end > inner.pos) || inner.getStart() >= outer.getStart();
}

export function isLoop(node: ts.Node): node is ts.WhileStatement | ts.DoStatement | ts.ForStatement {
  return ts.isWhileStatement(node) || ts.isDoStatement(node) || ts.isForStatement(node);
}

export function isFunctionOrArrow(node: ts.Node | undefined): node is ts.ArrowFunction | ts.FunctionExpression {
  return !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

/** A node_redis v3 callback argument: a function written in the call, or one bound there (`function (err, res) {...}.bind(this)`). */
export function isCallback(node: ts.Node): boolean {
  if (isFunctionOrArrow(node)) return true;
  const method = ts.isCallExpression(node) ? methodOf(node) : undefined;
  return method?.name === 'bind' && isFunctionOrArrow(unwrap(method.receiver));
}

/** A function's name: its own, or the variable, property or class member it is assigned to ('' when none). */
export function functionNameOf(fn: ts.Node): string {
  const named = nameOf(fn as { name?: ts.Node });
  if (named) return named;
  const parent = fn.parent;
  if (parent && isAssignment(parent) && parent.right === fn && ts.isPropertyAccessExpression(parent.left)) return parent.left.name.text; // `Lock.prototype.unlock = function`
  return parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) ? (nameOf(parent) ?? '') : '';
}

/**
 * The function whose name a callback goes by: an anonymous function handed to a call (`client.del(k,
 * (err) => ...)`, `new Promise((resolve) => ...)`) is part of the function it is written in.
 */
export function namedFunctionOf(fn: ts.Node): ts.Node {
  let current = fn;
  while (isFunctionOrArrow(current) && !functionNameOf(current) && current.parent && (ts.isCallExpression(current.parent) || ts.isNewExpression(current.parent))) {
    const outer = enclosingFunction(current.parent);
    if (ts.isSourceFile(outer)) break;
    current = outer;
  }
  return current;
}

/** The position of the parameter of `fn` that `node` (an identifier) refers to, if it is one. */
export function parameterIndex(fn: ts.FunctionLikeDeclaration, node: ts.Node): number | undefined {
  const n = unwrap(node);
  if (!ts.isIdentifier(n)) return undefined;
  const decl = declarationOf(n);
  return decl && ts.isParameter(decl) && decl.parent === fn ? fn.parameters.indexOf(decl) : undefined;
}

/** Array methods that hand back the same elements: a loop over `[...ids].sort()` visits the elements of `ids`. */
const SAME_ELEMENTS = new Set(['sort', 'toSorted', 'slice', 'reverse', 'toReversed', 'filter', 'concat', 'from']);
/** Array methods whose callback's first parameter is each element. */
const PER_ELEMENT = new Set(['map', 'forEach', 'flatMap', 'filter', 'every', 'some']);

/** The parameter of `fn` that `node` is a copy or a reordering of (`ids`, `[...ids]`, `[...ids].sort()`, `Array.from(ids)`). */
function arrayParameterIndex(fn: ts.FunctionLikeDeclaration, node: ts.Node, depth = 0): number | undefined {
  const n = unwrap(node);
  if (depth > 4) return undefined;
  if (ts.isArrayLiteralExpression(n) && n.elements.length === 1 && ts.isSpreadElement(n.elements[0])) return arrayParameterIndex(fn, n.elements[0].expression, depth + 1);
  if (ts.isCallExpression(n)) {
    const callee = unwrap(n.expression);
    if (!ts.isPropertyAccessExpression(callee) || !SAME_ELEMENTS.has(callee.name.text)) return undefined;
    return callee.name.text === 'from' ? (callee.expression.getText() === 'Array' && n.arguments[0] ? arrayParameterIndex(fn, n.arguments[0], depth + 1) : undefined) : arrayParameterIndex(fn, callee.expression, depth + 1);
  }
  return parameterIndex(fn, n);
}

/**
 * The parameter of `fn` whose elements `node` names one of: the variable of a `for (const id of ids)` loop
 * (or of a sorted copy), or the parameter of a callback run per element (`ids.map((id) => ...)`). A
 * multi-key helper builds each key from it: to a caller the keys are that parameter's.
 */
export function elementParameterIndex(fn: ts.FunctionLikeDeclaration, node: ts.Node): number | undefined {
  const n = unwrap(node);
  if (!ts.isIdentifier(n)) return undefined;
  const decl = declarationOf(n);
  if (!decl || !ts.isIdentifier(decl.name)) return undefined;
  if (ts.isVariableDeclaration(decl)) {
    const loop = decl.parent.parent;
    return ts.isForOfStatement(loop) && loop.initializer === decl.parent ? arrayParameterIndex(fn, loop.expression) : undefined;
  }
  const callback = decl.parent;
  const call = callback.parent;
  if (!isFunctionLike(callback) || callback.parameters[0] !== decl || !ts.isCallExpression(call) || call.arguments[0] !== callback) return undefined;
  const callee = unwrap(call.expression);
  return ts.isPropertyAccessExpression(callee) && PER_ELEMENT.has(callee.name.text) ? arrayParameterIndex(fn, callee.expression) : undefined;
}
