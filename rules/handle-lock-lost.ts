// redis-semaphore refreshes locks by default and, when a refresh fails, its default onLockLost throws
// a LostLockError from a timer: an uncaught exception that kills the process.
import { ts } from './engine/typescript';
import type { LibraryObject } from './engine/libraries';
import { hasProperty, literalNumber, propertyAssignment, spanOf } from './engine/nodes';
import type { Rule } from './rule';
import type { Fix } from './types';

const HANDLER = "onLockLost: (err) => { console.error('lock lost: stop the work it protects', err); }";

function refreshDisabled(object: LibraryObject): boolean {
  const prop = object.options && propertyAssignment(object.options, 'refreshInterval');
  return !!prop && literalNumber(prop.initializer) === 0;
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
      if (object.library !== 'redis-semaphore' || refreshDisabled(object)) continue;
      const args = object.node.arguments ?? [];
      const optionsArg = args[object.optionsIndex];
      // Options we cannot see (a variable from elsewhere, a spread): stay silent.
      if (optionsArg && !object.options) continue;
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
