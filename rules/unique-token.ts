// The lock value must be unique per acquisition: it is what a guarded release or extend compares.
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import { enclosingFunction, propertyAssignment, spanOf, unwrap, type Node } from './engine/nodes';
import { isRedisAcquire } from './engine/queries';
import { initializerOf, tokenWeakness, type Weakness } from './engine/token-strength';
import { ensureNamedImport } from './fixes/text';
import type { Rule } from './rule';
import type { Fix, RelatedLocation } from './types';
import { helperRelated } from './engine/helper-related';

const WHY: Record<Weakness['kind'], string> = {
  constant: 'is a constant, the same for every process',
  pid: 'is a process id, and every container runs as pid 1',
  hostname: 'is a host name, shared by every worker on the host',
  timestamp: 'is a timestamp, which two processes can read alike',
  reused: 'is created once and reused by every acquisition',
};

/**
 * Where the token matters: a release or extend that compares it, or (for a value every process
 * shares) any release or extend, since the owner check that makes a bare DEL safe would compare it.
 */
function tokenMatters(model: LockModel, acquire: Acquire, weakness: Weakness): { call: Node; compares: boolean } | undefined {
  const key = acquire.key;
  if (!key) return undefined;
  const ops = [...model.releasesOn(key), ...model.extendsOn(key)].filter((op) => op.kind !== 'library');
  const checked = ops.find((op) => op.ownerChecked || ('getCompare' in op && op.getCompare));
  if (checked) return { call: checked.call, compares: true };
  const any = weakness.kind !== 'reused' ? ops[0] : undefined;
  return any ? { call: any.call, compares: false } : undefined;
}

function fix(model: LockModel, acquire: Acquire): Fix | undefined {
  const token = acquire.token;
  const init = token ? initializerOf(token, model.lookup) : undefined;
  if (!token || !init || enclosingFunction(init) !== acquire.fn) return undefined;
  const value = unwrap(init);
  const imports = ensureNamedImport(model.sourceFile, 'randomUUID', 'node:crypto');
  if (ts.isTemplateExpression(value)) {
    // Keep the readable holder, add 128 random bits.
    const end = value.end - 1;
    return { title: 'Append a random UUID to the token', isPreferred: true, edits: [...imports, { start: end, end, newText: ':${randomUUID()}' }] };
  }
  return { title: 'Use randomUUID() as the token', isPreferred: true, edits: [...imports, { ...spanOf(init), newText: 'randomUUID()' }] };
}

export const uniqueToken: Rule = {
  id: 'unique-token',
  defaultSeverity: 'error',
  summary: 'The lock value is not unique per acquisition, so one holder can release or extend another holder\'s lock.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (!acquire.token) continue;
      const viaHelper = acquire.kind === 'helper' && acquire.via && acquire.tokenSpec?.kind === 'param';
      if (!isRedisAcquire(acquire) && !viaHelper) continue;
      const weakness = tokenWeakness(acquire.token, acquire.fn, model.lookup, acquire.key?.node);
      if (!weakness) continue;
      const matters = viaHelper ? { call: acquire.call, compares: true } : tokenMatters(model, acquire, weakness);
      if (!matters) continue;
      const related: RelatedLocation[] = viaHelper
        ? helperRelated(acquire.via, `${acquire.via?.name} stores this value as the lock's owner token`)
        : [{ span: spanOf(matters.call), message: matters.compares ? 'the release/extend that compares the token' : 'the release/extend whose owner check would compare it' }];
      if (weakness.kind === 'reused') related.push({ span: spanOf(weakness.declaration), message: 'created once here' });
      const consequence = matters.compares
        ? 'The owner check compares this value, so another process (or a later acquisition) holding the same value passes it and can release or extend a lock it does not hold.'
        : 'This lock is released or extended without an owner check, and the check that makes that safe compares this value: with a value other processes share, it cannot tell this holder from another.';
      report({
        span: spanOf(acquire.token),
        message: `The lock token ${weakness.what} ${WHY[weakness.kind]}. ${consequence} Use 128+ random bits per acquisition, e.g. crypto.randomUUID().`,
        related,
        fix: () => fix(model, acquire),
      });
    }
    for (const object of model.libraryObjects) {
      const identifier = object.options && propertyAssignment(object.options, 'identifier');
      if (!identifier) continue;
      const weakness = tokenWeakness(identifier.initializer, enclosingFunction(object.node), model.lookup);
      if (!weakness || weakness.kind === 'reused') continue;
      report({
        span: spanOf(identifier),
        message: `The ${object.className} identifier ${weakness.what} ${WHY[weakness.kind]}. redis-semaphore compares it on release and refresh, so another process with the same identifier can release or refresh this lock. Leave identifier unset (a random UUID per lock).`,
      });
    }
  },
};
