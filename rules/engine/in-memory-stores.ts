// Objects that answer to get/set/del like a Redis client but are not one: an in-memory cache or
// collection the file constructs itself (`cache = new NodeCache()`, `new LRUCache()`, `new Map()`),
// often the fallback a lock module uses when no Redis is configured. A call on a variable or a class
// field that only ever holds such an object is no Redis command. Anything else (a parameter, a value
// from a call, a class from the project or from a Redis module) may be a client, and stays one.
import type { FileImports } from './imports';
import { ts } from './typescript';
import { ancestorWhere, declarationOf, descendantsOfKind, isConstList, methodOf, unwrap } from './nodes';
import { identifiersOfFile } from './file-index';

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap']);
/** Packages that are (or may be backed by) Redis clients: a class from one of them may be a client. */
const CLIENT_MODULE = /redis|valkey|glide|upstash|keydb|dragonfly|garnet|semaphore|lock|keyv|cache-manager/i;

/** Is `call` a method call on a variable that only ever holds an in-memory store? */
export function onInMemoryStore(call: ts.CallExpression, imports: FileImports): boolean {
  const method = methodOf(call);
  if (!method) return false;
  const receiver = unwrap(method.receiver);
  if (underMemoryFlag(call, receiver) || typedAsCollection(receiver)) return true;
  const values = valuesHeldBy(receiver);
  return !!values && values.length > 0 && values.every((v) => isInMemoryStore(v, imports));
}

/**
 * `const locks: Map<string, Holder> = globalThis.__LOCKS__ ?? new Map()`: a variable whose declared type
 * is a collection holds one, whatever expression fills it (a stash kept across hot reloads).
 */
function typedAsCollection(receiver: ts.Node): boolean {
  const decl = ts.isIdentifier(receiver) ? declarationOf(receiver) : undefined;
  const type = decl && ts.isVariableDeclaration(decl) ? decl.type : undefined;
  return !!type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && COLLECTIONS.has(type.typeName.text);
}

/** A variable named as holding in-process state: `inMemoryLocks`, `localLocks`, `memoryStore`. */
const IN_PROCESS_NAME = /[mM]emory|^local[A-Z_]|^inProcess|^process[A-Z_]/;

/** A flag of the client that says it is an in-process stand-in: `redis._isMemoryStore`, `client.isMock`. */
const MEMORY_FLAG = /^_*(?:is|use|uses)?_?(?:in_?)?(?:memory|mock|fake|stub)/i;

/**
 * `if (redis._isMemoryStore) { await redis.setnx(k, v) } else { ...SET NX PX... }`: the branch that runs
 * only when the client says it is an in-memory stand-in (a Map behind Redis' method names) sends no
 * command; the lock there lives and dies with the process.
 */
function underMemoryFlag(call: ts.CallExpression, receiver: ts.Node): boolean {
  const name = receiver.getText();
  for (let node: ts.Node = call; node.parent && !ts.isFunctionLike(node.parent); node = node.parent) {
    const test = node.parent;
    if (!ts.isIfStatement(test) || test.thenStatement !== node) continue;
    const flag = unwrap(test.expression);
    if (ts.isPropertyAccessExpression(flag) && unwrap(flag.expression).getText() === name && MEMORY_FLAG.test(flag.name.text)) return true;
  }
  return false;
}

/**
 * Every value written to the variable, or undefined when that cannot be told the same from every tree
 * the analyzer may build: a lean parse (engine/lock-text.ts) blanks top-level declarations, so the
 * writes to a module-level `let` may be out of sight; a `const`'s initializer, and the writes to a
 * variable declared inside a function (all in its scope, which is kept or blanked whole), never are.
 */
function valuesHeldBy(receiver: ts.Node): ts.Expression[] | undefined {
  if (ts.isPropertyAccessExpression(receiver) && receiver.expression.kind === ts.SyntaxKind.ThisKeyword) return fieldValues(receiver);
  if (!ts.isIdentifier(receiver)) return undefined;
  const decl = declarationOf(receiver);
  if (!decl || !ts.isVariableDeclaration(decl)) return undefined; // a parameter may hold anything
  if (isConstList(decl.parent)) return decl.initializer ? [decl.initializer] : undefined;
  // `let inMemoryLocks = new Map()`: a module-level variable named as in-process holds what it is named for.
  if (ts.isSourceFile(decl.parent.parent.parent)) return IN_PROCESS_NAME.test(receiver.text) && decl.initializer ? [decl.initializer] : undefined;
  const assigned = identifiersOfFile(receiver.getSourceFile(), receiver.text).flatMap((id) => {
    const write = assignmentOf(id);
    return write && declarationOf(id) === decl ? [write] : [];
  });
  return decl.initializer ? [decl.initializer, ...assigned] : assigned;
}

/**
 * Every value a class writes to `this.<field>`: its initializer and its assignments. A class is kept or
 * blanked whole by a lean parse, so its writes are all in sight together.
 */
function fieldValues(receiver: ts.PropertyAccessExpression): ts.Expression[] | undefined {
  const cls = ancestorWhere<ts.ClassLikeDeclaration>(receiver, (a) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
  if (!cls) return undefined;
  const name = receiver.name.text;
  const values: ts.Expression[] = [];
  for (const member of cls.members) {
    if (ts.isPropertyDeclaration(member) && ts.isIdentifier(member.name) && member.name.text === name && member.initializer) values.push(member.initializer);
  }
  for (const write of descendantsOfKind<ts.BinaryExpression>(cls, ts.SyntaxKind.BinaryExpression)) {
    const left = unwrap(write.left);
    if (write.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(left) && left.expression.kind === ts.SyntaxKind.ThisKeyword && left.name.text === name) values.push(write.right);
  }
  return values.length > 0 ? values : undefined;
}

/** The value `id = value` writes, when `id` is the target of a plain assignment. */
function assignmentOf(id: ts.Identifier): ts.Expression | undefined {
  const parent = id.parent;
  return ts.isBinaryExpression(parent) && parent.left === id && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken ? parent.right : undefined;
}

/** `new Map()`, or `new X()` of a class imported from a package that is no Redis client. */
function isInMemoryStore(value: ts.Expression, imports: FileImports): boolean {
  const v = unwrap(value);
  if (!ts.isNewExpression(v) || !ts.isIdentifier(v.expression)) return false;
  const name = v.expression.text;
  if (COLLECTIONS.has(name)) return true;
  const from = imports.names.get(name);
  return !!from && !from.startsWith('.') && !from.startsWith('/') && !CLIENT_MODULE.test(from);
}
