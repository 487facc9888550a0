// redis-semaphore refreshes locks by default and, when a refresh fails, its default onLockLost throws
// a LostLockError from a timer: an uncaught exception that kills the process.
import { ts } from './engine/typescript';
import type { LibraryObject } from './engine/libraries';
import { declarationOf, descendantsOfKind, hasProperty, isFunctionLike, literalNumber, nameOf, propertyAssignment, spanOf, unwrap, type Node } from './engine/nodes';
import type { Rule } from './rule';
import type { Fix } from './types';

const HANDLER = "onLockLost: (err) => { console.error('lock lost: stop the work it protects', err); }";

function refreshDisabled(options: ts.ObjectLiteralExpression | undefined): boolean {
  const prop = options && propertyAssignment(options, 'refreshInterval');
  return !!prop && literalNumber(prop.initializer) === 0;
}

/** Options that cannot lose a lock silently: they pass onLockLost or turn refresh off. */
function handled(options: ts.ObjectLiteralExpression): boolean {
  return hasProperty(options, 'onLockLost') || refreshDisabled(options);
}

/** An options literal as written, or through a const of the file; undefined when it cannot be seen. */
function literalOf(node: Node): ts.ObjectLiteralExpression | undefined {
  let n = unwrap(node);
  if (ts.isIdentifier(n)) {
    const decl = declarationOf(n);
    n = decl && ts.isVariableDeclaration(decl) && decl.initializer ? unwrap(decl.initializer) : n;
  }
  return ts.isObjectLiteralExpression(n) ? n : undefined;
}

/** Every literal a spread-built options object is made of (`{ ...base, acquiredExternally: true }`); undefined if one cannot be seen. */
function partsOf(options: ts.ObjectLiteralExpression, depth = 0): ts.ObjectLiteralExpression[] | undefined {
  const parts = [options];
  for (const p of options.properties) {
    if (!ts.isSpreadAssignment(p)) continue;
    const spread = depth < 3 ? literalOf(p.expression) : undefined;
    const inner = spread && partsOf(spread, depth + 1);
    if (!inner) return undefined;
    parts.push(...inner);
  }
  return parts;
}

/**
 * `mutexFor(key, options) { return new Mutex(redis, key, options) }`: the options the file's own calls of
 * that factory pass (`this.mutexFor('job', { lockTimeout })`), each as the literals it is made of. Undefined
 * when the options are not such a parameter, or one call passes options that cannot be seen.
 */
function passedOptions(optionsArg: Node): ts.ObjectLiteralExpression[][] | undefined {
  const param = ts.isIdentifier(unwrap(optionsArg)) ? declarationOf(unwrap(optionsArg) as ts.Identifier) : undefined;
  const factory = param && ts.isParameter(param) && isFunctionLike(param.parent) ? param.parent : undefined;
  const name = factory && (nameOf(factory) ?? (ts.isVariableDeclaration(factory.parent) ? nameOf(factory.parent) : undefined));
  if (!factory || !name) return undefined;
  const index = factory.parameters.indexOf(param as ts.ParameterDeclaration);
  const calls = descendantsOfKind<ts.CallExpression>(factory.getSourceFile(), ts.SyntaxKind.CallExpression).filter((call) => {
    const callee = unwrap(call.expression);
    return (ts.isIdentifier(callee) && callee.text === name) || (ts.isPropertyAccessExpression(callee) && callee.name.text === name);
  });
  const passed: ts.ObjectLiteralExpression[][] = [];
  for (const call of calls) {
    const literal = call.arguments[index] && literalOf(call.arguments[index]);
    const parts = literal && partsOf(literal);
    if (!parts) return undefined;
    passed.push(parts);
  }
  return passed.length > 0 ? passed : undefined;
}

function fix(object: LibraryObject): Fix | undefined {
  const args = object.node.arguments ?? [];
  const title = 'Add an onLockLost handler (then stop the protected work in it)';
  if (object.options) {
    const open = object.options.getStart() + 1;
    const hasProps = object.options.properties.length > 0;
    return { title, edits: [{ start: open, end: open, newText: ` ${HANDLER}${hasProps ? ',' : ' '}` }] };
  }
  if (args.length !== object.optionsIndex) return undefined;
  const last = args[args.length - 1];
  return { title, edits: [{ start: last.end, end: last.end, newText: `, { ${HANDLER} }` }] };
}

export const handleLockLost: Rule = {
  id: 'handle-lock-lost',
  defaultSeverity: 'warning',
  summary: 'A redis-semaphore lock with refresh on and no onLockLost: the default throws from a timer and kills the process.',
  check({ model, report }) {
    for (const object of model.libraryObjects) {
      if (object.library !== 'redis-semaphore' || refreshDisabled(object.options)) continue;
      const args = object.node.arguments ?? [];
      const optionsArg = args[object.optionsIndex];
      if (optionsArg && !object.options) {
        // A factory's options parameter: what its calls in the file pass. Options we cannot see: silent.
        const passed = passedOptions(optionsArg);
        const unhandled = passed?.find((parts) => !parts.some(handled));
        if (unhandled) {
          report({
            span: spanOf(object.node),
            message: `This ${object.className} refreshes its lock but the options its callers pass have no onLockLost. When a refresh finds the lock gone or taken (it expired during a pause, or was deleted), the default handler throws LostLockError from a timer: an uncaught exception that crashes the process, or, if caught globally, work that goes on without the lock. Pass onLockLost and stop the protected work there.`,
            related: [{ span: spanOf(unhandled[0]), message: 'options passed without onLockLost' }],
          });
        }
        continue;
      }
      if (object.options?.properties.some((p) => ts.isSpreadAssignment(p))) continue;
      if (object.options && hasProperty(object.options, 'onLockLost')) continue;
      report({
        span: spanOf(object.node),
        message: `This ${object.className} refreshes its lock but has no onLockLost. When a refresh finds the lock gone or taken (it expired during a pause, or was deleted), the default handler throws LostLockError from a timer: an uncaught exception that crashes the process, or, if caught globally, work that goes on without the lock. Pass onLockLost and stop the protected work there.`,
        fix: () => fix(object),
      });
    }
  },
};
