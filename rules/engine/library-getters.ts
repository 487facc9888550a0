// A lock library object reached through a class getter: `static get lock(): Redlock { ... return
// this.redlock }` then `this.lock.acquire(...)`. The call's receiver is named after the getter, not after
// the stored object, so the object is found through the getter's returns or its declared type.
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
  const access = unwrap(receiver);
  if (!ts.isPropertyAccessExpression(access)) return undefined;
  const owner = unwrap(access.expression);
  if (owner.kind !== ts.SyntaxKind.ThisKeyword && !ts.isIdentifier(owner)) return undefined;
  const cls = ancestorWhere<ts.ClassLikeDeclaration>(access, (a) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
  if (!cls || (ts.isIdentifier(owner) && owner.text !== cls.name?.text)) return undefined;
  const getter = cls.members.find((m): m is ts.GetAccessorDeclaration => ts.isGetAccessorDeclaration(m) && nameOf(m) === access.name.text);
  if (!getter?.body) return undefined;
  for (const r of ownReturns(getter)) {
    const value = r.expression && unwrap(r.expression);
    const name = value && (ts.isIdentifier(value) ? value.text : ts.isPropertyAccessExpression(value) ? value.name.text : undefined);
    const library = name !== undefined ? stored.get(name) : undefined;
    if (library && name !== undefined) return { library, name };
  }
  const declared = typeLibrary(getter.type, imports);
  return declared ? { library: declared, name: access.name.text } : undefined;
}
