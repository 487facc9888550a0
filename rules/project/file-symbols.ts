// The module shape of one file, read from its syntax without the type checker: what it imports (ES
// imports, require, destructured require), what it exports (declarations, `export { x } from`,
// `export *`, default exports, `module.exports = {...}`, `exports.x =`), its classes with the classes
// their fields hold, the objects a factory function returns and the members of a `namespace`, and the
// function-like declarations whose lock meaning summarize.ts computes.
import { ts } from '../engine/typescript';
import { declarationOf, descendantsOfKind, literalString, nameOf, ownReturns, unwrap, unwrapAwait, type Node } from '../engine/nodes';
import { moduleOf } from '../engine/imports';
import { emptySummary, nameTable, type ExportTarget, type FileSummary, type ImportRef } from './types';

// `acquireLock`, `tryLock`, `unlock`, and a semaphore's bare `acquire` / `release`.
const LOCK_OPERATION = /^(?:acquire|release|tryAcquire)$|lock|Lock|mutex|Mutex/;

/** Does a type declare a member named like a lock operation? */
function namesLockOperations(members: ts.NodeArray<ts.TypeElement | ts.ClassElement>): boolean {
  return members.some((m) => {
    const name = m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : undefined;
    return !!name && LOCK_OPERATION.test(name);
  });
}

/** A function-like declaration to summarise, and where its summary goes. */
export interface SummaryTarget {
  fn: ts.FunctionLikeDeclaration;
  name: string;
  /** The class or object literal it is a member of; undefined for a top-level function. */
  container?: { kind: 'class' | 'object'; name: string };
  /** The class standing for the object literal it returns (see returnedObject). */
  makes?: string;
  /** The class of the instance it returns (see returnedClass). */
  instanceOf?: string;
}

export interface FileSymbols {
  summary: FileSummary;
  targets: SummaryTarget[];
}

const isFunctionValue = (n: Node | undefined): n is ts.ArrowFunction | ts.FunctionExpression =>
  !!n && (ts.isArrowFunction(unwrap(n)) || ts.isFunctionExpression(unwrap(n)));

/**
 * The object of functions a factory hands back, when that is all it returns: `createLock(key)` giving
 * `{ acquire() {...}, release() {...} }`, or `{ acquire, release }` of functions it declares. Its
 * methods act on what the factory was called with, so it is summarised like a class whose constructor
 * is the factory. A call wrapping that object is read as the object: a tracing or logging decorator
 * (`traced({ namespace, fns: { acquire } })`, `Object.freeze({ acquire })`) keeps each function's name
 * and meaning.
 */
export function returnedObject(fn: ts.FunctionLikeDeclaration, value = soleReturnValue(fn)): ts.ObjectLiteralExpression | undefined {
  if (!value) return undefined;
  const hasFunctions = (o: Node): o is ts.ObjectLiteralExpression => ts.isObjectLiteralExpression(o) && o.properties.some((p) => !!memberFunction(p, fn));
  if (hasFunctions(value)) return value;
  if (!ts.isCallExpression(value)) return undefined;
  for (const arg of value.arguments.map(unwrap)) {
    if (hasFunctions(arg)) return arg;
    if (!ts.isObjectLiteralExpression(arg)) continue;
    const inner = arg.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && hasFunctions(unwrap(p.initializer)));
    if (inner) return unwrap(inner.initializer) as ts.ObjectLiteralExpression;
  }
  return undefined;
}

/** The function a member of a factory's returned object is: written inline, or one the factory declares and names. */
export function memberFunction(p: ts.ObjectLiteralElementLike, factory: ts.FunctionLikeDeclaration): ts.FunctionLikeDeclaration | undefined {
  if (ts.isMethodDeclaration(p)) return p.body ? p : undefined;
  const value = ts.isShorthandPropertyAssignment(p) ? p.name : ts.isPropertyAssignment(p) ? unwrap(p.initializer) : undefined;
  if (isFunctionValue(value)) return value;
  return value && ts.isIdentifier(value) && factory.body && ts.isBlock(factory.body) ? localFunction(factory.body, value.text) : undefined;
}

/** A function declared by name in a block's own statements: `function f() {}` or `const f = () => ...`. */
function localFunction(block: ts.Block, name: string): ts.FunctionLikeDeclaration | undefined {
  for (const statement of block.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name && statement.body) return statement;
    if (!ts.isVariableStatement(statement)) continue;
    const decl = statement.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === name);
    if (decl) return isFunctionValue(decl.initializer) ? (unwrap(decl.initializer) as ts.ArrowFunction) : undefined;
  }
  return undefined;
}

/** What a function's one `return` (or its expression body) gives, awaited and unwrapped; undefined with several. */
function soleReturnValue(fn: ts.FunctionLikeDeclaration): Node | undefined {
  if (!fn.body) return undefined;
  const values = ts.isBlock(fn.body) ? ownReturns(fn).map((r) => r.expression) : [fn.body];
  if (values.length !== 1 || !values[0]) return undefined;
  return unwrapAwait(values[0]);
}

/** `T` of a `Promise<T>` annotation, the annotation itself otherwise. */
function awaitedType(type: ts.TypeNode | undefined): ts.TypeNode | undefined {
  if (type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === 'Promise') return type.typeArguments?.[0];
  return type;
}

/**
 * The class of the instance a function hands back: its return type annotation, or what its one
 * return gives: `new X()`, a module-level `const x = new X()`, or a field the function itself fills
 * with `new X()` (`if (!X.instance) X.instance = new X(); return X.instance;`).
 */
function returnedClass(fn: ts.FunctionLikeDeclaration, value: Node | undefined): string | undefined {
  const annotated = typeClassName(awaitedType(fn.type));
  if (annotated || !value) return annotated;
  const made = newClassName(value);
  if (made) return made;
  if (ts.isIdentifier(value)) {
    const decl = declarationOf(value);
    return decl && ts.isVariableDeclaration(decl) && ts.isSourceFile(decl.parent.parent.parent) ? newClassName(decl.initializer) : undefined;
  }
  if (!ts.isPropertyAccessExpression(value)) return undefined;
  const held = value.getText();
  for (const assignment of descendantsOfKind<ts.BinaryExpression>(fn, ts.SyntaxKind.BinaryExpression)) {
    if (assignment.operatorToken.kind === ts.SyntaxKind.EqualsToken && assignment.left.getText() === held) return newClassName(assignment.right);
  }
  return undefined;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return !!ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === kind);
}

/** `require('x')`, `require('x').y`: the specifier and the member taken. */
function requireOf(node: Node | undefined): { from: string; member?: string } | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  let member: string | undefined;
  if (ts.isPropertyAccessExpression(n)) {
    member = n.name.text;
    n = unwrap(n.expression);
  }
  if (!ts.isCallExpression(n) || !ts.isIdentifier(n.expression) || n.expression.text !== 'require') return undefined;
  const from = n.arguments[0] ? literalString(n.arguments[0]) : undefined;
  return from === undefined ? undefined : { from, member };
}

/** The class a value is an instance of: `new X(...)`, `new ns.X(...)`. */
export function newClassName(node: Node | undefined): string | undefined {
  const n = node ? unwrap(node) : undefined;
  if (!n || !ts.isNewExpression(n)) return undefined;
  const e = unwrap(n.expression);
  return ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined;
}

/** The class a type annotation names: `X`, `ns.X`, `X<T>`, `X | null`. */
export function typeClassName(type: ts.TypeNode | undefined): string | undefined {
  if (!type) return undefined;
  if (ts.isTypeReferenceNode(type)) return ts.isIdentifier(type.typeName) ? type.typeName.text : type.typeName.right.text;
  if (ts.isUnionTypeNode(type)) {
    const named = type.types.map(typeClassName).filter((n): n is string => !!n);
    return named.length === 1 ? named[0] : undefined;
  }
  return undefined;
}

function classFieldTypes(cls: ts.ClassLikeDeclaration): Record<string, string> {
  const fields = nameTable<string>();
  for (const member of cls.members) {
    if (ts.isConstructorDeclaration(member)) {
      for (const p of member.parameters) {
        // Parameter properties: `constructor(private readonly locks: RedisLockService)`.
        const isProperty = ts.canHaveModifiers(p) && (ts.getModifiers(p)?.length ?? 0) > 0;
        const type = typeClassName(p.type);
        if (isProperty && type && ts.isIdentifier(p.name)) fields[p.name.text] = type;
      }
      member.body?.forEachChild(function visit(n): void {
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
          const left = n.left;
          const made = newClassName(n.right);
          if (made && ts.isPropertyAccessExpression(left) && left.expression.kind === ts.SyntaxKind.ThisKeyword) fields[left.name.text] = made;
        }
        if (!ts.isFunctionLike(n)) n.forEachChild(visit);
      });
    } else if (ts.isPropertyDeclaration(member)) {
      const name = nameOf(member);
      const type = newClassName(member.initializer) ?? typeClassName(member.type);
      if (name && type) fields[name] = type;
    }
  }
  return fields;
}

function heritageNames(cls: ts.ClassLikeDeclaration, token: ts.SyntaxKind.ExtendsKeyword | ts.SyntaxKind.ImplementsKeyword): string[] {
  const clause = cls.heritageClauses?.find((h) => h.token === token);
  const names: string[] = [];
  for (const type of clause?.types ?? []) {
    const expr = type.expression;
    if (ts.isIdentifier(expr)) names.push(expr.text);
    else if (ts.isPropertyAccessExpression(expr)) names.push(expr.name.text);
  }
  return names;
}

export function readFileSymbols(sourceFile: ts.SourceFile, path: string): FileSymbols {
  const summary = emptySummary(path);
  const targets: SummaryTarget[] = [];
  const imports = summary.imports;
  const exportsOf = summary.exports;
  const deps = new Set<string>();
  const addExport = (name: string, target: ExportTarget): void => {
    exportsOf[name] = target;
  };
  /** A function to summarise; a factory's returned object becomes the class `made:<name>`. */
  const addFunction = (fn: ts.FunctionLikeDeclaration, name: string, container?: SummaryTarget['container']): void => {
    const target: SummaryTarget = container ? { fn, name, container } : { fn, name };
    // Both read the one value the function hands back: walked for its returns once.
    const value = soleReturnValue(fn);
    const instanceOf = returnedClass(fn, value);
    if (instanceOf) target.instanceOf = instanceOf;
    targets.push(target);
    const object = returnedObject(fn, value);
    if (!object) return;
    const made = `made:${container ? `${container.name}.` : ''}${name}`;
    target.makes = made;
    summary.classes[made] = { name: made, methods: nameTable(), implements: [], fieldTypes: nameTable() };
    for (const p of object.properties) {
      const member = nameOf(p);
      const method = member && memberFunction(p, fn);
      if (method) addFunction(method, member, { kind: 'class', name: made });
    }
  };

  const addClass = (cls: ts.ClassLikeDeclaration, name: string) => {
    const base = heritageNames(cls, ts.SyntaxKind.ExtendsKeyword)[0];
    summary.classes[name] = { name, methods: nameTable(), base, implements: heritageNames(cls, ts.SyntaxKind.ImplementsKeyword), fieldTypes: classFieldTypes(cls) };
    if (hasModifier(cls, ts.SyntaxKind.AbstractKeyword)) summary.classes[name].abstract = true;
    for (const member of cls.members) {
      const method = nameOf(member);
      if (method && (ts.isMethodDeclaration(member) || ts.isGetAccessor(member)) && member.body) {
        addFunction(member, method, { kind: 'class', name });
      } else if (method && ts.isPropertyDeclaration(member) && isFunctionValue(member.initializer)) {
        addFunction(unwrap(member.initializer) as ts.ArrowFunction, method, { kind: 'class', name });
      }
    }
  };
  const addObject = (obj: ts.ObjectLiteralExpression, name: string) => {
    summary.objects[name] ??= nameTable();
    for (const p of obj.properties) {
      const member = nameOf(p);
      if (!member) continue;
      if (ts.isMethodDeclaration(p) && p.body) addFunction(p, member, { kind: 'object', name });
      else if (ts.isPropertyAssignment(p) && isFunctionValue(p.initializer)) addFunction(unwrap(p.initializer) as ts.ArrowFunction, member, { kind: 'object', name });
      else {
        // `{ acquire, lock: acquireLock }`: a member holding a function declared (or imported) elsewhere.
        const held = ts.isShorthandPropertyAssignment(p) ? p.name : ts.isPropertyAssignment(p) ? unwrap(p.initializer) : undefined;
        if (held && ts.isIdentifier(held)) (summary.objectRefs[name] ??= nameTable())[member] = held.text;
      }
    }
  };
  /** `module.exports = <value>` / `export default <value>`: exported under `name`. */
  const exportValue = (value: ts.Expression, name: string): void => {
    const v = unwrap(value);
    if (ts.isIdentifier(v)) return addExport(name, { local: v.text });
    if (isFunctionValue(v)) {
      addFunction(v as ts.ArrowFunction, `export:${name}`);
      return addExport(name, { local: `export:${name}` });
    }
    if (ts.isClassExpression(v)) {
      // `module.exports = class Locker {...}`: its methods' `this` is the class of that name (call-meanings.ts).
      const local = v.name?.text ?? `export:${name}`;
      addClass(v, local);
      return addExport(name, { local });
    }
    const made = newClassName(v);
    if (made) {
      summary.instances[`export:${name}`] = made;
      return addExport(name, { local: `export:${name}` });
    }
    const required = requireOf(v);
    if (required) {
      deps.add(required.from);
      return addExport(name, { from: required.from, name: required.member ?? 'default' });
    }
    if (ts.isObjectLiteralExpression(v) && name === 'default') {
      // module.exports = { acquireLock, releaseLock, other: require('./x') }: each member is an export.
      for (const p of v.properties) {
        // `module.exports = { ...require('./impl') }`: everything the module exports, as `export *` gives.
        const spread = ts.isSpreadAssignment(p) ? requireOf(p.expression) : undefined;
        if (spread && !spread.member) {
          deps.add(spread.from);
          summary.stars.push(spread.from);
        }
        const member = nameOf(p);
        if (!member) continue;
        if (ts.isShorthandPropertyAssignment(p)) addExport(member, { local: p.name.text });
        else if (ts.isPropertyAssignment(p)) exportValue(p.initializer, member);
        else if (ts.isMethodDeclaration(p) && p.body) {
          addFunction(p, `export:${member}`);
          addExport(member, { local: `export:${member}` });
        }
      }
    }
  };

  for (const statement of sourceFile.statements) {
    const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
    const isDefault = hasModifier(statement, ts.SyntaxKind.DefaultKeyword);
    if (ts.isImportDeclaration(statement)) {
      const from = moduleOf(statement);
      if (from === undefined) continue;
      deps.add(from);
      const clause = statement.importClause;
      if (clause?.name) imports[clause.name.text] = { from, name: 'default' };
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) imports[bindings.name.text] = { from, name: '*' };
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) imports[el.name.text] = { from, name: (el.propertyName ?? el.name).text };
      }
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const from = literalString(statement.moduleReference.expression);
      if (from !== undefined) {
        deps.add(from);
        imports[statement.name.text] = { from, name: '*' };
      }
    } else if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier ? literalString(statement.moduleSpecifier) : undefined;
      if (from !== undefined) deps.add(from);
      const clause = statement.exportClause;
      if (!clause) {
        if (from !== undefined) summary.stars.push(from);
      } else if (ts.isNamedExports(clause)) {
        for (const el of clause.elements) {
          const local = (el.propertyName ?? el.name).text;
          addExport(el.name.text, from !== undefined ? { from, name: local } : { local });
        }
      } else if (from !== undefined) {
        addExport(clause.name.text, { from, name: '*' });
      }
    } else if (ts.isExportAssignment(statement)) {
      exportValue(statement.expression, 'default');
    } else if (ts.isFunctionDeclaration(statement) && statement.body) {
      const name = nameOf(statement) ?? 'export:default';
      addFunction(statement, name);
      if (exported) addExport(isDefault ? 'default' : name, { local: name });
    } else if (ts.isClassDeclaration(statement)) {
      const name = nameOf(statement) ?? 'export:default';
      addClass(statement, name);
      if (exported) addExport(isDefault ? 'default' : name, { local: name });
      if (hasModifier(statement, ts.SyntaxKind.AbstractKeyword) && namesLockOperations(statement.members)) summary.lockTypes.push(name);
    } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      const members = ts.isInterfaceDeclaration(statement) ? statement.members : ts.isTypeLiteralNode(statement.type) ? statement.type.members : undefined;
      if (members && namesLockOperations(members)) summary.lockTypes.push(statement.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const decl of statement.declarationList.declarations) readVariable(decl, exported);
    } else if (ts.isExpressionStatement(statement)) {
      readAssignment(statement.expression);
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name) && statement.body && ts.isModuleBlock(statement.body)) {
      readNamespace(statement.name.text, statement.body, exported);
    }
  }

  /** `namespace locks { export function acquire() {...} }`: an object whose members are its exported functions. */
  function readNamespace(name: string, body: ts.ModuleBlock, exported: boolean): void {
    summary.objects[name] ??= nameTable();
    if (exported) addExport(name, { local: name });
    for (const statement of body.statements) {
      if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
      if (ts.isFunctionDeclaration(statement) && statement.body && statement.name) addFunction(statement, statement.name.text, { kind: 'object', name });
      if (!ts.isVariableStatement(statement)) continue;
      for (const decl of statement.declarationList.declarations) {
        const member = nameOf(decl);
        if (member && isFunctionValue(decl.initializer)) addFunction(unwrap(decl.initializer!) as ts.ArrowFunction, member, { kind: 'object', name });
      }
    }
  }

  function readVariable(decl: ts.VariableDeclaration, exported: boolean): void {
    const init = decl.initializer;
    if (ts.isObjectBindingPattern(decl.name)) {
      // const { acquireLock, release: releaseLock } = require('./lock')
      const required = requireOf(init);
      if (!required) return;
      deps.add(required.from);
      for (const el of decl.name.elements) {
        if (!ts.isIdentifier(el.name)) continue;
        const imported = el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : el.name.text;
        imports[el.name.text] = { from: required.from, name: imported };
      }
      return;
    }
    const name = nameOf(decl);
    if (!name || !init) return;
    if (exported) addExport(name, { local: name });
    const required = requireOf(init);
    const value = unwrap(init);
    if (required) {
      deps.add(required.from);
      imports[name] = { from: required.from, name: required.member ?? '*' };
    } else if (isFunctionValue(value)) addFunction(value as ts.ArrowFunction, name);
    else if (ts.isClassExpression(value)) addClass(value, name);
    else if (ts.isObjectLiteralExpression(value)) addObject(value, name);
    else {
      const made = newClassName(value);
      if (made) summary.instances[name] = made;
    }
  }

  function readAssignment(expr: ts.Expression): void {
    const e = unwrap(expr);
    if (!ts.isBinaryExpression(e) || e.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return;
    const target = e.left.getText().replace(/\s+/g, '');
    // `module.exports = LockManager = { ... }`: the inner assignment, then the export of its variable.
    const inner = unwrap(e.right);
    const chained = ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.EqualsToken;
    if (chained) readAssignment(inner);
    const right = chained ? inner.left : e.right;
    // `Gate.prototype.enter = function () {...}`: a method of the class the constructor function stands for.
    const method = /^([\w$]+)\.prototype\.([\w$]+)$/.exec(target);
    if (method && isFunctionValue(right)) {
      summary.classes[method[1]] ??= { name: method[1], methods: nameTable(), implements: [], fieldTypes: nameTable() };
      return addFunction(unwrap(right) as ts.FunctionExpression, method[2], { kind: 'class', name: method[1] });
    }
    if (target === 'module.exports') return exportValue(right, 'default');
    const member = /^(?:module\.)?exports\.([\w$]+)$/.exec(target);
    if (member) return exportValue(right, member[1]);
    const value = unwrap(right);
    // `let LockManager; LockManager = { ... }`: the object (or function) the variable holds.
    if (/^[\w$]+$/.test(target)) {
      if (ts.isObjectLiteralExpression(value)) addObject(value, target);
      else if (isFunctionValue(value)) addFunction(value as ts.ArrowFunction, target);
      return;
    }
    // `const mocks = {}; mocks.tryLock = (key, cb) => {...}`: a member added to an object of the file.
    const added = /^([\w$]+)\.([\w$]+)$/.exec(target);
    if (added && summary.objects[added[1]] && isFunctionValue(value)) addFunction(value as ts.ArrowFunction, added[2], { kind: 'object', name: added[1] });
  }

  // `const { acquireLock } = await import('../utils/lock')` inside a function: an import all the same.
  if (sourceFile.text.includes('import(')) {
    for (const call of descendantsOfKind<ts.CallExpression>(sourceFile, ts.SyntaxKind.CallExpression)) {
      const from = call.expression.kind === ts.SyntaxKind.ImportKeyword && call.arguments[0] ? literalString(call.arguments[0]) : undefined;
      const holder = ts.isAwaitExpression(call.parent) ? call.parent.parent : call.parent;
      if (from === undefined || !ts.isVariableDeclaration(holder)) continue;
      deps.add(from);
      if (ts.isIdentifier(holder.name)) imports[holder.name.text] ??= { from, name: '*' };
      else if (ts.isObjectBindingPattern(holder.name)) {
        for (const el of holder.name.elements) {
          if (ts.isIdentifier(el.name)) imports[el.name.text] ??= { from, name: el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : el.name.text };
        }
      }
    }
  }
  summary.dependencies = [...deps];
  return { summary, targets };
}

/** What a local name of the file is imported as, if it is imported. */
export function importOf(summary: FileSummary, name: string): ImportRef | undefined {
  return Object.prototype.hasOwnProperty.call(summary.imports, name) ? summary.imports[name] : undefined;
}
