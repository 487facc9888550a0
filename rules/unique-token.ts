// The lock value must be unique per acquisition: it is what a guarded release or extend compares.
import { ts } from './engine/typescript';
import type { Acquire, Extend, LockModel, Release } from './engine/model';
import { descendants, descendantsOfKind, enclosingFunction, functionNameOf, identifiersNamed, isAncestor, isAssignment, isFunctionLike, literalString, methodOf, normalizeText, propertyAssignment, spanOf, unwrap, type Node } from './engine/nodes';
import { freshToken } from './fixes/token';
import { isRedisAcquire } from './engine/queries';
import type { RedisCommand } from './engine/commands';
import { initializerOf, tokenWeakness, type Weakness } from './engine/token-strength';
import { ensureNamedImport } from './fixes/text';
import type { Rule } from './rule';
import type { Fix, RelatedLocation, TextEdit } from './types';
import { helperRelated } from './engine/helper-related';
import { LOCK_NAME } from './engine/lock-name';
import { looksLikeLockKey } from './engine/keys';
import { fallsBackWhenBusy } from './engine/busy-path';

const WHY: Record<Weakness['kind'], string> = {
  constant: 'is a constant, the same for every process',
  pid: 'is a process id, and every container runs as pid 1',
  hostname: 'is a host name, shared by every worker on the host',
  timestamp: 'is a timestamp, which two processes can read alike',
  counter: 'is a counter kept in memory, which every process starts from the same value',
  reused: 'is created once and reused by every acquisition',
};

/**
 * Where the token matters: a release or extend that compares it, or (for a value every process
 * shares) any release or extend, since the owner check that makes a bare DEL safe would compare it.
 */
function tokenMatters(model: LockModel, acquire: Acquire, weakness: Weakness): { call: Node; compares: boolean } | undefined {
  const key = acquire.key;
  if (!key) return undefined;
  // A recursive retry (`return withLock(key, ttl, fn)`) releases through this very function: its own release counts.
  const client = clientOf(acquire);
  const byKey = [...model.releasesOn(key), ...model.extendsOn(key)].filter((op) => op.kind !== 'library' && !callsItself(op, acquire.fn) && sameClient(client, op));
  const ops = byKey.length > 0 ? byKey : [...releasesOfHandedKey(model, acquire), ...siblingOpsOnSameKey(model, acquire)];
  // A release through a project helper compares the token only if the helper's own DEL does.
  const checked = ops.filter((op) => (op.ownerChecked && op.via?.ownerChecked !== false) || ('getCompare' in op && op.getCompare) || op.via?.compares);
  // The compare in the acquire's own function first: that is the one a fix can reach.
  const compare = checked.find((op) => isAncestor(acquire.fn, op.call)) ?? checked[0];
  if (compare) return { call: compare.call, compares: true };
  const any = weakness.kind !== 'reused' ? (ops.find((op) => isAncestor(acquire.fn, op.call)) ?? ops[0]) : undefined;
  return any ? { call: any.call, compares: false } : undefined;
}

/** Helpers on two clients (`globalRedis.set(k, ...)` beside `localRedis.del(k)`) lock on two servers: not the same lock. */
function sameClient(client: string | undefined, op: { call: Node; command?: RedisCommand }): boolean {
  const other = clientOf(op);
  return !client || !other || other === client;
}

/** The client a command is sent on: `redis` for `redis.multi().del(k)` too (a batch's chain is the client's). */
function clientOf(op: { call: Node; command?: RedisCommand }): string | undefined {
  if (op.command?.wrapped || !ts.isCallExpression(op.call)) return undefined;
  let receiver = methodOf(op.call)?.receiver;
  while (receiver && ts.isCallExpression(unwrap(receiver))) receiver = methodOf(unwrap(receiver) as ts.CallExpression)?.receiver;
  return receiver?.getText();
}

/** A helper operation that is a call of `fn` inside `fn` itself. */
function callsItself(op: { kind: string; call: Node; via?: { name: string } }, fn: Node): boolean {
  if (op.kind !== 'helper' || !op.via || !isAncestor(fn, op.call)) return false;
  const name = functionNameOf(fn);
  return !!name && op.via.name.replace(/^this\./, '') === name;
}

const RELEASE_NAME = /release|unlock/i;
/** A callee named as taking a lock (`acquire`, `locks.claim`): not a store's command (`setNX`, `setIfAbsent`). */
const ACQUIRE_WORD = /acquire|claim|obtain|take|grab/i;

/** A helper call that is lock code by its name, its key or its pairing with a delete in a finally, not a generic SET NX of a store wrapper. */
function lockHelperCall(acquire: Acquire): boolean {
  const name = acquire.via?.name ?? '';
  return LOCK_NAME.test(name) || ACQUIRE_WORD.test(name) || (!!acquire.key && looksLikeLockKey(acquire.key)) || !!acquire.via?.pairedClaim;
}

/**
 * `acquireLock() { ...; return lockKey }` beside `releaseLock(lockKey) { del(lockKey) }`: an acquire that
 * hands its key back as the handle is released by the release function of the same class (or file) that
 * takes that key as its parameter.
 */
function releasesOfHandedKey(model: LockModel, acquire: Acquire): Release[] {
  const key = acquire.key;
  const fn = acquire.fn;
  if (!key || !isFunctionLike(fn)) return [];
  const isKey = (e: ts.Expression): boolean => {
    const value = unwrap(e);
    // `return ok ? lockKey : null`
    if (ts.isConditionalExpression(value)) return isKey(value.whenTrue) || isKey(value.whenFalse);
    return normalizeText(value) === key.text;
  };
  const handsKeyBack = descendantsOfKind<ts.ReturnStatement>(fn, ts.SyntaxKind.ReturnStatement)
    .some((r) => !!r.expression && enclosingFunction(r) === fn && isKey(r.expression));
  if (!handsKeyBack) return [];
  const home = homeOf(fn);
  return model.releases.filter((r) => {
    const releaseFn = r.fn;
    if (!isFunctionLike(releaseFn) || homeOf(releaseFn) !== home || !RELEASE_NAME.test(functionNameOf(releaseFn))) return false;
    const param = r.key && ts.isIdentifier(unwrap(r.key.node)) ? (unwrap(r.key.node) as ts.Identifier).text : undefined;
    return !!param && releaseFn.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === param);
  });
}

const SIBLING_OP_NAME = /release|unlock|renew|extend/i;

/**
 * `canStart(id)` taking `worker:${id}` beside `releaseLock(id)` deleting `worker:${id}`: the release or
 * renewal of the same file or class, named as one, on the key spelled alike over its own parameter.
 */
function siblingOpsOnSameKey(model: LockModel, acquire: Acquire): Array<Release | Extend> {
  const key = acquire.key;
  const fn = acquire.fn;
  if (!key || !isFunctionLike(fn)) return [];
  const client = clientOf(acquire);
  return [...model.releases, ...model.extends].filter((op) =>
    op.key?.canonical === key.canonical && op.fn !== fn && isFunctionLike(op.fn) && homeOf(op.fn) === homeOf(fn) && SIBLING_OP_NAME.test(functionNameOf(op.fn)) && sameClient(client, op));
}

/** Where a function is declared: its class or object, or the block or file of its statement (`const acquire = async () => ...`). */
function homeOf(fn: Node): Node {
  const parent = fn.parent;
  // VariableDeclaration -> VariableDeclarationList -> VariableStatement -> block or file
  return ts.isVariableDeclaration(parent) ? parent.parent.parent.parent : parent;
}

function fix(model: LockModel, acquire: Acquire, compared: Node): Fix | string {
  const token = acquire.token;
  if (!token) return 'No automatic fix: the acquire has no token Lockwise can see.';
  const init = initializerOf(token, model.lookup);
  if (init && enclosingFunction(init) === acquire.fn) {
    const value = unwrap(init);
    const imports = ensureNamedImport(model.sourceFile, 'randomUUID', 'node:crypto');
    if (ts.isTemplateExpression(value)) {
      // Keep the readable holder, add 128 random bits.
      const end = value.end - 1;
      return { title: 'Append a random UUID to the token', isPreferred: true, edits: [...imports, { start: end, end, newText: ':${randomUUID()}' }] };
    }
    return { title: 'Use randomUUID() as the token', isPreferred: true, edits: [...imports, { ...spanOf(init), newText: 'randomUUID()' }] };
  }
  // A constant, pid or host name shared by every acquisition: a fresh token per acquisition here,
  // compared wherever this function compared the old value.
  if (!isAncestor(acquire.fn, compared) || ts.isSourceFile(acquire.fn)) {
    return 'No automatic fix: the token is compared in another function; create one token per acquisition and pass it to the release.';
  }
  const value = unwrap(token);
  // By kind first: the text of every node of the function was the fix's main cost.
  const valueText = value.getText();
  const sameValue = (n: Node) => n.kind === value.kind && (ts.isIdentifier(value) ? (n as ts.Identifier).text === value.text : n.getText() === valueText);
  if (!ts.isIdentifier(value) && literalString(value) === undefined && !ts.isPropertyAccessExpression(value)) {
    return 'No automatic fix: the token is computed in the acquire; store a randomUUID() in a variable and use it at the acquire and the release.';
  }
  const fresh = freshToken(model, acquire, literalString(value) === undefined ? value.getText() : undefined);
  if (!fresh) return 'No automatic fix: the acquire is not a statement of its own, so there is nowhere to create a token before it.';
  const uses = sameValueNodes(acquire.fn, value).filter((n) => sameValue(n) && n.getStart() >= acquire.call.end && !ts.isPropertyAccessExpression(n.parent));
  if (ts.isPropertyAccessExpression(value) && uses.some((n) => isAssignment(n.parent) && (n.parent as ts.BinaryExpression).left === n)) {
    return 'No automatic fix: the token property is written later in this function.';
  }
  return {
    title: 'Use a fresh randomUUID() token for this acquisition',
    isPreferred: true,
    unattended: false,
    edits: [...fresh.edits, ...uses.map((n) => ({ ...spanOf(n), newText: fresh.name }))],
  };
}

/**
 * The nodes of `fn` that may spell `value` again: an identifier's or a property access's through the file
 * index (by the name they end in); a literal's by a walk. Walking the function for every token finding
 * was a tenth of the rules' time on a tree of lock services.
 */
function sameValueNodes(fn: Node, value: Node): Node[] {
  if (ts.isIdentifier(value)) return identifiersNamed(fn, value.text);
  if (ts.isPropertyAccessExpression(value)) {
    return identifiersNamed(fn, value.name.text).flatMap((name) => (ts.isPropertyAccessExpression(name.parent) && name.parent.name === name ? [name.parent] : []));
  }
  return descendants(fn);
}

/** Removes a property with its separating comma. */
function removeProperty(object: ts.ObjectLiteralExpression, property: ts.ObjectLiteralElementLike): TextEdit {
  const list = object.properties;
  const at = list.indexOf(property);
  if (at + 1 < list.length) return { start: property.getStart(), end: list[at + 1].getStart(), newText: '' };
  if (at > 0) return { start: list[at - 1].end, end: property.end, newText: '' };
  return { start: property.getStart(), end: property.end, newText: '' };
}

/**
 * An acquire helper (another file's, or this file's) that stores a value of its own every process shares,
 * released or extended here, in the caller, by a command of its own: the helper's file may release
 * nothing, so only here is it seen that the value is what an owner check would compare.
 */
function reportHelperValue(model: LockModel, acquire: Acquire, spec: { weakness: Weakness['kind']; what: string }, report: Parameters<Rule['check']>[0]['report']): void {
  if (!acquire.key) return;
  // A helper of this file has its own acquire reported here already, against any release in the file:
  // the caller adds a mistake only with a release of its own.
  const sameFile = acquire.via?.file === model.sourceFile.fileName;
  const ops = [...model.releasesOn(acquire.key), ...model.extendsOn(acquire.key)]
    .filter((op) => op.kind !== 'helper' && op.kind !== 'library' && (!sameFile || isAncestor(acquire.fn, op.call)));
  const op = ops.find((o) => o.ownerChecked) ?? ops[0];
  if (!op) return;
  const consequence = op.ownerChecked
    ? 'The owner check here compares it, so another process holding the same value passes it and can release or extend a lock it does not hold.'
    : 'This lock is released or extended here without an owner check, and the check that makes that safe would compare this value: with a value other processes share, it cannot tell this holder from another.';
  report({
    span: spanOf(acquire.call),
    message: `${acquire.via?.name}(...) stores the lock token ${spec.what}, which ${WHY[spec.weakness]}. ${consequence} Store 128+ random bits per acquisition in the helper (e.g. crypto.randomUUID()) and hand it back.`,
    related: [
      ...helperRelated(acquire.via, 'the acquire that stores this value'),
      { span: spanOf(op.call), message: op.ownerChecked ? 'the release/extend that compares the token' : 'the release/extend whose owner check would compare it' },
    ],
  });
}

export const uniqueToken: Rule = {
  id: 'unique-token',
  defaultSeverity: 'error',
  summary: 'The lock value is not unique per acquisition, so one holder can release or extend another holder\'s lock.',
  check({ model, report }) {
    // Per function, the token values already reported: a retry tries its value again in the same function.
    const reported = new Map<Node, Set<Node>>();
    for (const acquire of model.acquires) {
      if (acquire.kind === 'helper' && acquire.tokenSpec?.kind === 'weak' && !acquire.token) {
        reportHelperValue(model, acquire, acquire.tokenSpec, report);
        continue;
      }
      if (!acquire.token) continue;
      const viaHelper = (acquire.kind === 'helper' || acquire.kind === 'routine' || acquire.kind === 'with-lock') && acquire.via && acquire.tokenSpec?.kind === 'param';
      if (!isRedisAcquire(acquire) && !viaHelper) continue;
      const weakness = tokenWeakness(acquire.token, acquire.fn, model.lookup, acquire.key?.node);
      // A stampede damper tells no holders apart: whoever it refuses runs the same work anyway.
      if (!weakness || fallsBackWhenBusy(model, acquire)) continue;
      // One value tried again by a retry is one mistake: reported at its first acquire in the function.
      // The same constant in two functions is two locks with the same flaw, each reported.
      const origin = initializerOf(acquire.token, model.lookup);
      const seen = reported.get(acquire.fn) ?? new Set<Node>();
      if (origin && seen.has(origin)) continue;
      // Through a lock helper that takes the token, the helper is trusted to compare it unless a release here
      // says otherwise; a store's `setNX(key, '1', ttl)` is a command's, and matters only where released.
      const trusted = viaHelper && lockHelperCall(acquire);
      const matters = trusted ? (tokenMatters(model, acquire, weakness) ?? { call: acquire.call, compares: true }) : tokenMatters(model, acquire, weakness);
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
        fix: () => fix(model, acquire, matters.call),
      });
      if (origin) reported.set(acquire.fn, seen.add(origin));
    }
    for (const object of model.libraryObjects) {
      const identifier = object.options && propertyAssignment(object.options, 'identifier');
      if (!identifier) continue;
      const weakness = tokenWeakness(identifier.initializer, enclosingFunction(object.node), model.lookup);
      if (!weakness || weakness.kind === 'reused') continue;
      report({
        span: spanOf(identifier),
        message: `The ${object.className} identifier ${weakness.what} ${WHY[weakness.kind]}. redis-semaphore compares it on release and refresh, so another process with the same identifier can release or refresh this lock. Leave identifier unset (a random UUID per lock).`,
        fix: () => ({ title: 'Remove identifier (redis-semaphore then uses a random UUID per lock)', isPreferred: true, edits: [removeProperty(object.options!, identifier)] }),
      });
    }
  },
};
