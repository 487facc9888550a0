// A call to a project helper, turned into the lock model's own vocabulary at the call site: an
// acquire, release or extend on the key the caller passes (with the helper's key prefix), a routine
// run under a lock, or the Redis command a thin wrapper forwards to. Rules then read these like any
// other operation; what is wrong inside the helper itself is reported there, once.
import { ts } from '../engine/typescript';
import { commandFromArgs, type RecogniserContext, type RedisCommand } from '../engine/commands';
import { readTokenOptions } from '../engine/set-options';
import { composedKey, looksLikeLockKey, piecedKey, sameKey, type KeyRef } from '../engine/keys';
import { lastSegment, storedName, thenParameter } from '../engine/libraries';
import type { Acquire, Extend, HelperVia, Release } from '../engine/model';
import { calleeName, contains, declarationOf, descendantsOfKind, enclosingFunction, enclosingStatement, methodOf, unwrap, type Node } from '../engine/nodes';
import { resultUse } from '../engine/result-use';
import type { CallMeaning } from './call-meanings';
import type { KeySpec, TokenSpec } from './types';

type Helper = Extract<CallMeaning, { kind: 'helper' }>;
type KeyOf = (node: Node) => KeyRef;

/** The command a thin wrapper sends, read from the caller's arguments. */
export function wrapperCommand(call: ts.CallExpression, meaning: Extract<CallMeaning, { kind: 'wrapper' }>, ctx: RecogniserContext, keyOf: KeyOf, seedKey: (node: Node, key: KeyRef) => void): RedisCommand | undefined {
  const args: Array<Node | string> = [];
  for (const forwarded of meaning.wrapper.args) {
    if ('word' in forwarded) {
      args.push(forwarded.word);
      continue;
    }
    if ('rest' in forwarded) {
      args.push(...call.arguments.slice(forwarded.rest));
      continue;
    }
    const arg = call.arguments[forwarded.param];
    if (!arg) break;
    // The key the wrapper builds around its parameter (`cache:${key}`) is the key the command gets.
    if (forwarded.head || forwarded.tail) seedKey(arg, composedKey(arg, keyOf(arg), forwarded.head, forwarded.tail));
    args.push(arg);
  }
  const command = commandOfArgs(call, meaning, args, ctx);
  if (command) command.wrapped = true;
  return command;
}

function commandOfArgs(call: ts.CallExpression, meaning: Extract<CallMeaning, { kind: 'wrapper' }>, args: Array<Node | string>, ctx: RecogniserContext): RedisCommand | undefined {
  if (args.every((a): a is Node => typeof a !== 'string')) return commandFromArgs(call, meaning.wrapper.method, args, ctx);
  // Option words the wrapper writes (only after key and value, only for SET): the caller's key and
  // value make the command, and the words with the caller's other arguments its options.
  const [key, value, ...options] = args;
  if (meaning.wrapper.method.toLowerCase() !== 'set' || typeof key === 'string' || typeof value === 'string') return undefined;
  const command = commandFromArgs(call, meaning.wrapper.method, [key, value], ctx);
  if (!command) return undefined;
  command.args = [value, ...options.filter((o): o is Node => typeof o !== 'string')];
  command.set = readTokenOptions(options);
  return command;
}

/** `{ lockKey }` or `{ lockKey: key }` written at the call: the node that gives that property its value. */
function propertyValue(arg: Node, name: string): Node | undefined {
  const object = unwrap(arg);
  if (!ts.isObjectLiteralExpression(object)) return undefined;
  for (const p of object.properties) {
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name) return p.initializer;
  }
  return undefined;
}

/** The key a helper builds from the members of `{ key: id, namespace: 'billing' }`, when the literal gives every one. */
function spelledKey(arg: Node, parts: NonNullable<KeySpec['parts']>, keyOf: KeyOf): KeyRef | undefined {
  const pieces: Array<string | KeyRef> = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      pieces.push(part);
      continue;
    }
    const value = propertyValue(arg, part.member);
    if (!value) return undefined;
    pieces.push(keyOf(value));
  }
  return piecedKey(arg, pieces);
}

function keyAt(spec: KeySpec | undefined, call: ts.CallExpression, meaning: Helper, keyOf: KeyOf): KeyRef | undefined {
  if (!spec) return undefined;
  if (spec.param !== undefined) {
    const arg = call.arguments[spec.param];
    if (!arg) return undefined;
    // Built from the options' members: the options as written are the key, shown as the helper builds it.
    const property = spec.member ? propertyValue(arg, spec.member) : undefined;
    if (property) return keyOf(property);
    const spelled = spec.parts && spelledKey(arg, spec.parts, keyOf);
    if (spelled) return spelled;
    if (spec.members) return composedKey(arg, keyOf(arg), '', '', spec.glob);
    return spec.head || spec.tail ? composedKey(arg, keyOf(arg), spec.head, spec.tail) : keyOf(arg);
  }
  if (spec.field) {
    const fromNew = spec.field.ctorParam !== undefined ? meaning.receiverNew?.arguments?.[spec.field.ctorParam] : undefined;
    // The constructor may build the key around its parameter (`this.key = 'lock:' + name`).
    if (fromNew) return spec.head || spec.tail ? composedKey(fromNew, keyOf(fromNew), spec.head, spec.tail) : keyOf(fromNew);
    // The object's own key: the same receiver is the same lock.
    const receiver = meaning.receiver;
    return receiver ? composedKey(receiver, keyOf(receiver), '', `.${spec.field.name}`, spec.glob) : undefined;
  }
  // A key fixed inside the helper: the same in every call, and only the same as itself.
  return composedKey(call, undefined, `${meaning.file}#${spec.head}`, '', spec.glob);
}

function via(meaning: Helper, at: HelperVia['at'], returns?: HelperVia['returns'], ownerChecked?: boolean, compares?: boolean): HelperVia {
  const base: HelperVia = { name: meaning.name, file: meaning.file, at, returns };
  if (ownerChecked !== undefined) base.ownerChecked = ownerChecked;
  if (compares) base.compares = true;
  return base;
}

/** A routine helper's via, with where it drops the routine's promise. */
function routineVia(meaning: Helper, routine: NonNullable<Helper['summary']['routine']>): HelperVia {
  const v = via(meaning, routine.at);
  if (routine.dropped) v.routineDropped = routine.dropped;
  return v;
}

/** An acquire's via, with whether the release it hands back compares the token. */
function acquireVia(meaning: Helper, a: NonNullable<Helper['summary']['acquire']>): HelperVia {
  const v = via(meaning, a.at, a.returns);
  if (a.handedReleaseChecked !== undefined) v.handedReleaseChecked = a.handedReleaseChecked;
  if (a.answersBusy) v.answersBusy = true;
  if (a.emptyWhenBusy) v.emptyWhenBusy = true;
  if (a.acquiredField) v.acquiredField = a.acquiredField;
  if (a.objectWhenBusy) v.objectWhenBusy = true;
  return v;
}

export interface HelperOps {
  acquires: Acquire[];
  releases: Release[];
  extends: Extend[];
  /**
   * A store primitive's conditional write or delete of a key not named as a lock (storePrimitive): a lock
   * operation only where the caller pairs it with the other (pairedStoreOps, called by engine/model.ts).
   */
  unpaired?: { acquires: Acquire[]; releases: Release[] };
}

/**
 * The lock operations of one call to a project helper. The objects are written out, not spread from a
 * shared base: on a tree of helper callers the spreads were most of this function's time.
 */
/**
 * A call that leaves out the parameter the helper builds its key from (`executeWorkflow(id, opts)` of a
 * helper that claims `idem:${idempotencyKey}` only when given one) takes no lock there.
 */
function keyLeftOut(spec: KeySpec | undefined, call: ts.CallExpression): boolean {
  return !!spec && spec.param !== undefined && !spec.defaulted && call.arguments.length <= spec.param && !call.arguments.some(ts.isSpreadElement);
}

export function helperOps(call: ts.CallExpression, meaning: Helper, keyOf: KeyOf): HelperOps {
  const ops: HelperOps = { acquires: [], releases: [], extends: [] };
  if (forwardsRest(call)) return ops;
  const summary = meaning.summary;
  const fn = enclosingFunction(call);
  const receiverName = meaning.receiver ? lastSegment(meaning.receiver) : undefined;
  const routine = summary.routine;
  if (routine) {
    const passed = call.arguments[routine.param];
    const routineArg = routine.member && passed ? propertyValue(passed, routine.member) : passed;
    if (routineArg) {
      // `withLock(key, token, fn)`: the token the caller hands in is the one the helper stores.
      const tokenSpec = summary.acquire?.token.kind === 'param' ? summary.acquire.token : undefined;
      ops.acquires.push({
        call, fn, statement: enclosingStatement(call), result: resultUse(call),
        kind: routine.signalArg !== undefined ? 'with-lock' : 'routine', key: keyAt(routine.key, call, meaning, keyOf),
        token: tokenSpec && call.arguments[tokenSpec.index], tokenSpec,
        hasTtl: true, routine: routineArg, signalArg: routine.signalArg, via: routineVia(meaning, routine),
      });
    }
  } else if (summary.acquire && !keyLeftOut(summary.acquire.key, call)) {
    const a = summary.acquire;
    const key = keyAt(a.key, call, meaning, keyOf);
    const token = a.token.kind === 'param' ? call.arguments[a.token.index] : undefined;
    // An argument left out: the helper writes its default (`value ?? '1'`).
    const tokenSpec: TokenSpec = a.token.kind === 'param' && !token && a.token.fallback ? { kind: 'weak', ...a.token.fallback } : a.token;
    const holds = a.returns === 'release-fn' || a.returns === 'lock-object';
    const acquire: Acquire = {
      call, fn, statement: enclosingStatement(call), result: resultUse(call),
      kind: 'helper', key, token, tokenSpec,
      hasTtl: a.hasTtl, owner: holds ? (storedName(call) ?? thenParameter(call)) : (a.key.field ? receiverName : undefined), via: acquireVia(meaning, a),
    };
    if (!a.storePrimitive || (key && looksLikeLockKey(key))) ops.acquires.push(acquire);
    else (ops.unpaired ??= { acquires: [], releases: [] }).acquires.push(acquire);
  }
  if (summary.release) {
    const r = summary.release;
    // `releaseLock(lock)` of a helper reading `lock.key`: a name passed where the key's object goes is the
    // lock object an acquire handed back, its handle.
    const objectArg = r.key?.members && r.key.param !== undefined ? call.arguments[r.key.param] : undefined;
    const handleArg = r.handleParam !== undefined ? call.arguments[r.handleParam] : objectArg && ts.isIdentifier(unwrap(objectArg)) ? objectArg : undefined;
    const key = keyAt(r.key, call, meaning, keyOf);
    const release: Release = {
      call, fn, kind: 'helper', key, handle: handleArg ? lastSegment(handleArg) : receiverName,
      ownerChecked: true, via: via(meaning, r.at, undefined, r.ownerChecked, r.compares),
    };
    if (!r.storePrimitive || (key && looksLikeLockKey(key))) ops.releases.push(release);
    else (ops.unpaired ??= { acquires: [], releases: [] }).releases.push(release);
  }
  if (summary.extend) {
    ops.extends.push({ call, fn, kind: 'helper', key: keyAt(summary.extend.key, call, meaning, keyOf), handle: receiverName, ownerChecked: true, via: via(meaning, summary.extend.at, undefined, summary.extend.ownerChecked, summary.extend.compares) });
  }
  return ops;
}

/**
 * `function tryLock(...args) { mocks.tryLock(...args) }`: a call handing on its function's rest
 * parameter forwards everything, a node-style callback among it, so the answer is not its to test.
 */
function forwardsRest(call: ts.CallExpression): boolean {
  return call.arguments.some((a) => {
    if (!ts.isSpreadElement(a) || !ts.isIdentifier(a.expression)) return false;
    const declared = declarationOf(a.expression);
    return !!declared && ts.isParameter(declared) && !!declared.dotDotDotToken;
  });
}

const RELEASE_METHOD = /^(release|unlock|free|close|dispose)$/;

/**
 * Releases through what an acquire helper handed back: `release()` of a returned release function,
 * `lock.release()` / `lock.extend()` of a returned lock object, in the acquiring function.
 */
export function handedBackOps(acquire: Acquire): Omit<HelperOps, 'acquires'> {
  const ops: Omit<HelperOps, 'acquires'> = { releases: [], extends: [] };
  const owner = acquire.owner;
  const returns = acquire.via?.returns;
  if (!owner || (returns !== 'release-fn' && returns !== 'lock-object')) return ops;
  // A handed-back release whose DEL compares no token: released twice on one path it deletes another holder's lock.
  const releaseVia = acquire.via?.handedReleaseChecked === false ? { ...acquire.via, ownerChecked: false } : acquire.via;
  for (const call of descendantsOfKind<ts.CallExpression>(acquire.fn, ts.SyntaxKind.CallExpression)) {
    if (call.pos < acquire.call.end) continue;
    const base = { call, fn: enclosingFunction(call), handle: owner, ownerChecked: true, key: acquire.key, via: releaseVia };
    if (returns === 'release-fn') {
      if (ts.isIdentifier(unwrap(call.expression)) && calleeName(call) === owner) ops.releases.push({ ...base, kind: 'helper' });
      continue;
    }
    const method = methodOf(call);
    if (!method || lastSegment(method.receiver) !== owner) continue;
    if (RELEASE_METHOD.test(method.name)) ops.releases.push({ ...base, kind: 'helper' });
    else if (/^(extend|renew|refresh)$/.test(method.name)) ops.extends.push({ ...base, kind: 'helper' });
  }
  return ops;
}

/**
 * The store primitives' writes and deletes a caller pairs into a lock (storePrimitive): a conditional
 * write whose key is deleted again in the finally of a try around it or after it (through a store helper or a DEL),
 * and the deletes of a key so taken in the same function. `setIfAbsent(inflightKey, ...)` then
 * `finally { removeCached(inflightKey) }` is an in-flight claim, a lock whatever its key is named.
 */
export function pairedStoreOps(unpaired: NonNullable<HelperOps['unpaired']>, releases: readonly Release[], commands: readonly RedisCommand[], keyOf: KeyOf): { acquires: Acquire[]; releases: Release[] } {
  if (unpaired.acquires.length === 0) return { acquires: [], releases: [] };
  const deletes = commands.filter((c) => (c.name === 'DEL' || c.name === 'UNLINK') && c.keys.length === 1);
  const deletedIn = (block: ts.Block, key: KeyRef) =>
    releases.some((r) => !!r.key && contains(block, r.call) && sameKey(r.key, key)) ||
    deletes.some((d) => contains(block, d.call) && sameKey(keyOf(d.keys[0]), key));
  // The try around the write, or one after it in the same function (the answer tested before the try).
  const acquires = unpaired.acquires.filter((a) => {
    const key = a.key;
    return !!key && descendantsOfKind<ts.TryStatement>(a.fn, ts.SyntaxKind.TryStatement).some((t) =>
      !!t.finallyBlock && enclosingFunction(t) === a.fn && (contains(t.tryBlock, a.call) || t.pos >= a.call.end) && deletedIn(t.finallyBlock, key));
  });
  for (const a of acquires) {
    if (a.via) a.via.pairedClaim = true;
    // A record stored as the claim's value (`{ orderId, startedAt }`) is the store's payload, no owner token.
    if (a.token && ts.isObjectLiteralExpression(unwrap(a.token))) {
      a.token = undefined;
      a.tokenSpec = { kind: 'unknown' };
    }
  }
  return { acquires, releases: unpaired.releases.filter((r) => !!r.key && acquires.some((a) => a.fn === r.fn && sameKey(a.key!, r.key!))) };
}
