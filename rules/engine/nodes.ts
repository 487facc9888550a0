// Small syntax helpers over ts-morph nodes, shared by the recognisers and the rules.
import { Node, ts, VariableDeclarationKind, type CallExpression, type Expression, type KindToNodeMappings, type SyntaxKind } from 'ts-morph';

// ts-morph's getDescendantsOfKind() builds token lists for every node it walks (ts getChildren),
// which made a 5,000-line file take seconds. These walk the compiler's own tree with forEachChild,
// iteratively (deep nesting must not overflow the stack), and wrap only the nodes they return.
interface WrapsCompilerNodes {
  _getNodeFromCompilerNode(node: ts.Node): Node;
}

function compilerDescendants(node: Node, keep: (n: ts.Node) => boolean): Node[] {
  const found: ts.Node[] = [];
  const stack: ts.Node[] = [];
  const pushChildren = (n: ts.Node) => {
    const children: ts.Node[] = [];
    ts.forEachChild(n, (c) => {
      children.push(c);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  };
  pushChildren(node.compilerNode);
  while (stack.length > 0) {
    const n = stack.pop() as ts.Node;
    if (keep(n)) found.push(n);
    pushChildren(n);
  }
  const wrapper = node as unknown as WrapsCompilerNodes;
  return found.map((n) => wrapper._getNodeFromCompilerNode(n));
}

/** The name a call is made by: `f` in `f()`, `m` in `a.b.m()` and `a?.['m']()`. */
export function compilerCalleeName(call: ts.CallExpression): string | undefined {
  let callee: ts.Expression = call.expression;
  while (ts.isParenthesizedExpression(callee) || ts.isNonNullExpression(callee) || ts.isAsExpression(callee)) callee = callee.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (ts.isElementAccessExpression(callee) && ts.isStringLiteralLike(callee.argumentExpression)) return callee.argumentExpression.text;
  return undefined;
}

/** Calls whose callee name passes `accept`; only those are wrapped (most calls of a file are not lock code). */
export function callsNamed(node: Node, accept: (name: string) => boolean): CallExpression[] {
  return compilerDescendants(node, (n) => {
    if (!ts.isCallExpression(n)) return false;
    const name = compilerCalleeName(n);
    return name !== undefined && accept(name);
  }) as CallExpression[];
}

export function descendantsOfKind<K extends SyntaxKind>(node: Node, kind: K): KindToNodeMappings[K][] {
  return compilerDescendants(node, (n) => n.kind === kind) as KindToNodeMappings[K][];
}

/** Identifiers spelled as one of `names`, compared on the compiler tree before anything is wrapped. */
export function identifiersNamed(node: Node, names: string | Iterable<string>): Node[] {
  const wanted = new Set(typeof names === 'string' ? [names] : names);
  return compilerDescendants(node, (n) => ts.isIdentifier(n) && wanted.has(n.text));
}

/** Every descendant, in document order. */
export function descendants(node: Node): Node[] {
  return compilerDescendants(node, () => true);
}

/** The nearest enclosing function (or the source file for top-level code). */
export function enclosingFunction(node: Node): Node {
  const fn = node.getParentWhile((parent) => !isFunctionLike(parent));
  const candidate = fn?.getParent();
  return candidate && isFunctionLike(candidate) ? candidate : node.getSourceFile();
}

export function isFunctionLike(node: Node): boolean {
  return (
    Node.isFunctionDeclaration(node) ||
    Node.isFunctionExpression(node) ||
    Node.isArrowFunction(node) ||
    Node.isMethodDeclaration(node) ||
    Node.isConstructorDeclaration(node) ||
    Node.isGetAccessorDeclaration(node) ||
    Node.isSetAccessorDeclaration(node)
  );
}

/** The statement that contains `node` directly inside a block, a case clause or the file. */
export function enclosingStatement(node: Node): Node {
  let current: Node = node;
  for (;;) {
    const parent = current.getParent();
    if (!parent || Node.isBlock(parent) || Node.isSourceFile(parent) || Node.isCaseClause(parent) || Node.isDefaultClause(parent)) {
      return current;
    }
    if (isFunctionLike(parent) && Node.isArrowFunction(parent)) return current; // expression-bodied arrow
    current = parent;
  }
}

/** Strips parentheses, `await`, `as`, `!` and `satisfies` around an expression. */
export function unwrap(node: Node): Node {
  let current = node;
  for (;;) {
    if (
      Node.isParenthesizedExpression(current) ||
      Node.isAsExpression(current) ||
      Node.isNonNullExpression(current) ||
      Node.isSatisfiesExpression(current) ||
      Node.isTypeAssertion(current)
    ) {
      current = current.getExpression();
    } else return current;
  }
}

/** Method name and receiver of `recv.name(...)`, `recv?.name(...)` or `recv['name'](...)`. */
export function methodOf(call: CallExpression): { name: string; receiver: Expression } | undefined {
  const callee = unwrap(call.getExpression());
  if (Node.isPropertyAccessExpression(callee)) {
    return { name: callee.getName(), receiver: callee.getExpression() };
  }
  if (Node.isElementAccessExpression(callee)) {
    const arg = callee.getArgumentExpression();
    const name = arg ? literalString(arg) : undefined;
    if (name !== undefined) return { name, receiver: callee.getExpression() };
  }
  return undefined;
}

/** Name of a plain function call `name(...)`, or of `ns.name(...)` (last segment). */
export function calleeName(call: CallExpression): string | undefined {
  const callee = unwrap(call.getExpression());
  if (Node.isIdentifier(callee)) return callee.getText();
  if (Node.isPropertyAccessExpression(callee)) return callee.getName();
  return undefined;
}

/** The value of a string literal or a template without substitutions. */
export function literalString(node: Node): string | undefined {
  const n = unwrap(node);
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) return n.getLiteralValue();
  return undefined;
}

export function literalNumber(node: Node): number | undefined {
  const n = unwrap(node);
  if (Node.isNumericLiteral(n)) return n.getLiteralValue();
  const s = literalString(n);
  return s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;
}

/** Whitespace-free text with `?.` read as `.`, used to compare expressions. */
export function normalizeText(node: Node): string {
  return node.getText().replace(/\s+/g, '').replace(/\?\./g, '.').replace(/^this\./, 'this.');
}

// What each scope declares, built once per scope: a module-level lookup would otherwise scan every
// top-level statement for every identifier it resolves.
const scopeDeclarations = new WeakMap<ts.Node, Map<string, ts.Node>>();

function declarationsOf(c: ts.Node): Map<string, ts.Node> {
  let names = scopeDeclarations.get(c);
  if (names) return names;
  names = new Map();
  const add = (d: ts.Node & { name: ts.BindingName }) => {
    if (ts.isIdentifier(d.name) && !names?.has(d.name.text)) names?.set(d.name.text, d);
  };
  if (ts.isFunctionLike(c)) c.parameters.forEach(add);
  if (ts.isBlock(c) || ts.isSourceFile(c) || ts.isCaseClause(c) || ts.isDefaultClause(c) || ts.isModuleBlock(c)) {
    for (const statement of c.statements) if (ts.isVariableStatement(statement)) statement.declarationList.declarations.forEach(add);
  }
  if ((ts.isForStatement(c) || ts.isForOfStatement(c) || ts.isForInStatement(c)) && c.initializer && ts.isVariableDeclarationList(c.initializer)) {
    c.initializer.declarations.forEach(add);
  }
  if (ts.isCatchClause(c) && c.variableDeclaration) add(c.variableDeclaration);
  scopeDeclarations.set(c, names);
  return names;
}

function isScope(c: ts.Node): boolean {
  return ts.isFunctionLike(c) || ts.isBlock(c) || ts.isSourceFile(c) || ts.isCaseClause(c) || ts.isDefaultClause(c) ||
    ts.isModuleBlock(c) || ts.isForStatement(c) || ts.isForOfStatement(c) || ts.isForInStatement(c) || ts.isCatchClause(c);
}

/** The declaration (variable or parameter) an identifier refers to, by walking its scopes outward. */
export function declarationOf(identifier: Node): Node | undefined {
  const name = identifier.getText();
  for (let c = identifier.compilerNode.parent; c; c = c.parent) {
    const found = isScope(c) ? declarationsOf(c).get(name) : undefined;
    if (found) return (identifier as unknown as WrapsCompilerNodes)._getNodeFromCompilerNode(found);
  }
  return undefined;
}

/** The initializer of the `const` an identifier refers to (undefined for let/var/parameters). */
export function resolveConst(identifier: Node): Expression | undefined {
  const decl = declarationOf(identifier);
  if (!decl || !Node.isVariableDeclaration(decl)) return undefined;
  const list = decl.getParent();
  if (!Node.isVariableDeclarationList(list) || list.getDeclarationKind() !== VariableDeclarationKind.Const) return undefined;
  return decl.getInitializer();
}

export function isAwaited(node: Node): boolean {
  let current = node;
  let parent = current.getParent();
  while (parent && (Node.isParenthesizedExpression(parent) || Node.isAsExpression(parent) || Node.isNonNullExpression(parent))) {
    current = parent;
    parent = current.getParent();
  }
  return !!parent && Node.isAwaitExpression(parent);
}

/** The expression that carries a call's value outward: the call itself or its `await`. */
export function valueCarrier(node: Node): Node {
  let current = node;
  for (;;) {
    const parent = current.getParent();
    if (
      parent &&
      (Node.isAwaitExpression(parent) ||
        Node.isParenthesizedExpression(parent) ||
        Node.isAsExpression(parent) ||
        Node.isNonNullExpression(parent))
    ) {
      current = parent;
    } else return current;
  }
}

export function spanOf(node: Node): { start: number; end: number } {
  return { start: node.getStart(), end: node.getEnd() };
}

/** Is `inner` inside `outer` (or the same node)? */
export function contains(outer: Node, inner: Node): boolean {
  return inner.getStart() >= outer.getStart() && inner.getEnd() <= outer.getEnd();
}
