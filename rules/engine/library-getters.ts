// A lock library object reached through a class getter: `static get lock(): Redlock { ... return
// this.redlock }` then `this.lock.acquire(...)`, or through a method that makes one: `private client() {
// return new Redlock([this.redis]) }` then `this.client().using(...)`. The call's receiver is named after
// the getter or method, not after the object, so the object is found through its returns or declared type.
import { ts } from './typescript';
import { REDLOCK_MODULES, SEMAPHORE_MODULE, type FileImports } from './imports';
import { ancestorWhere, nameOf, ownReturns, unwrap, type Node } from './nodes';

export type LibraryName = 'redlock' | 'redis-semaphore';

export interface GetterTarget {
  library: LibraryName;
  /** The stored object's name when a return names it, else the getter's. */
  name: string;
}

const SEMAPHORE_TYPES = /^(?:Redlock)?(?:Mutex|Semaphore|MultiSemaphore)$/;

/** The library of a declared type: `Redlock`, `Mutex` imported from the lock packages. */
function typeLibrary(type: ts.TypeNode | undefined, imports: FileImports): LibraryName | undefined {
  if (!type || !ts.isTypeReferenceNode(type)) return undefined;
  const name = type.typeName.getText();
  const from = imports.names.get(name.split('.')[0]);
  if (from !== undefined && REDLOCK_MODULES.has(from) && /Redlock|default/.test(name)) return 'redlock';
  if (from === SEMAPHORE_MODULE && SEMAPHORE_TYPES.test(name.split('.').pop() ?? '')) return 'redis-semaphore';
  return undefined;
}

/**
 * The library object `this.x` or `Class.x` stands for when `x` is a getter of the enclosing class that
 * returns a stored library object (by name) or is declared to return a library class.
 */
export function libraryGetterTarget(
  receiver: Node,
  stored: ReadonlyMap<string, LibraryName>,
  imports: FileImports,
): GetterTarget | undefined {
  // `this.client().using(...)`: a method of the class that makes or hands back the object, called.
  const called = unwrap(receiver);
  const access = ts.isCallExpression(called) && called.arguments.length === 0 ? unwrap(called.expression) : called;
  if (!ts.isPropertyAccessExpression(access)) return undefined;
  const owner = unwrap(access.expression);
  if (owner.kind !== ts.SyntaxKind.ThisKeyword && !ts.isIdentifier(owner)) return undefined;
  const cls = ancestorWhere<ts.ClassLikeDeclaration>(access, (a) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
  if (!cls || (ts.isIdentifier(owner) && owner.text !== cls.name?.text)) return undefined;
  const wanted = (m: ts.ClassElement): m is ts.GetAccessorDeclaration | ts.MethodDeclaration =>
    (called === access ? ts.isGetAccessorDeclaration(m) : ts.isMethodDeclaration(m)) && nameOf(m) === access.name.text;
  const getter = cls.members.find(wanted);
  if (!getter?.body) return undefined;
  for (const r of ownReturns(getter)) {
    const value = r.expression && unwrap(r.expression);
    const made = value && ts.isNewExpression(value) ? classLibrary(value.expression, imports) : undefined;
    if (made) return { library: made, name: access.name.text };
    const name = value && (ts.isIdentifier(value) ? value.text : ts.isPropertyAccessExpression(value) ? value.name.text : undefined);
    const library = name !== undefined ? stored.get(name) : undefined;
    if (library && name !== undefined) return { library, name };
  }
  const declared = typeLibrary(getter.type, imports);
  return declared ? { library: declared, name: access.name.text } : undefined;
}

/** The library of a constructed class: `new Redlock(...)`, `new Mutex(...)` of the lock packages. */
function classLibrary(expression: Node, imports: FileImports): LibraryName | undefined {
  const name = unwrap(expression).getText();
  const from = imports.names.get(name.split('.')[0]);
  if (from !== undefined && REDLOCK_MODULES.has(from)) return 'redlock';
  if (from === SEMAPHORE_MODULE && SEMAPHORE_TYPES.test(name.split('.').pop() ?? '')) return 'redis-semaphore';
  return undefined;
}
