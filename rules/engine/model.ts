// The per-file lock model every rule reads: acquisitions, releases, extensions, the lock-library
// objects and the callbacks that run under a lock. Built once per file; rules never re-parse calls.
import { ts } from './typescript';
import type { HelperNames } from '../config';
import { ASYNC_COMMAND_CALL, promisifiedCommandNames, RAW_COMMAND_FN, recogniseCommand, type ClientStyle, type NamedScript, type RecogniserContext, type RedisCommand } from './commands';
import { findCompareBeforeWrite, findGetCompare, movesToAnotherState, watchedTransaction, type GetCompare } from './get-compare';
import { glideBatchKind } from './glide';
import { onInMemoryStore } from './in-memory-stores';
import { dropsPositionalSetOptions, fileStyle, readImports, type FileImports } from './imports';
import { isLockFunction, KeyIndex, keyRef, looksLikeLockKey, namesCircuitState, namesDataAboutLock, namesLockedState, namesRateLimit, sameKey, type ConstKey, type ConstLookup, type KeyRef } from './keys';
import { LOCK_NAME } from './lock-name';
import { setBesideReader } from './script-files';
import { writtenText } from './written-text';
import { failureNamedRollbacks, markCounterSeeds, markDedupeWindows, markGetOrInit, markerRollbacks, rollbackHelpers, stateRecordRollbacks } from './markers';
import { isProbe } from './probes';
import { readerGets } from './readers';
import { recogniseLibraryCalls, recogniseLibraryObjects, storedName, type LibraryObject } from './libraries';
import { recogniseRedisLockCalls } from './redis-lock-package';
import { collectNamedScripts } from './named-scripts';
import { ancestorWhere, calleeName, callsNamed, contains, declarationOf, functionNameOf, namedFunctionOf, descendantsOfKind, enclosingFunction, enclosingStatement, isFunctionLike, literalNumber, methodOf, nameOf, resolveConst, unwrap, type Node } from './nodes';
import { resultUse, type ResultUse } from './result-use';
import { markMisfitScripts } from './script-arity';
import { hasPositionalWords, type TtlUnit } from './set-options';
import { thinWrapper } from './wrappers';
import { countGated } from './check-then-set';
import { handedBackOps, helperOps, pairedStoreOps, wrapperCommand, type HelperOps } from '../project/call-site-ops';
import type { CallMeaning, ProjectContext } from '../project/call-meanings';
import type { AcquireReturn, Place, TokenSpec } from '../project/types';

export type AcquireKind =
  | 'set-nx' | 'setnx' | 'lua' | 'redlock' | 'redlock-using' | 'semaphore' | 'semaphore-try' | 'with-lock' | 'helper'
  /** A project helper that runs a routine under a lock without handing it an AbortSignal. */
  | 'routine';

/** The project helper (in this file or another) an operation goes through, and where it does the work. */
export interface HelperVia {
  /** The callee as written (`locks.acquire`). */
  name: string;
  file: string;
  at: Place;
  returns?: AcquireReturn;
  /**
   * For a release or extend: does the helper compare the token itself? At the call site its operation
   * counts as owner-checked (a bare DEL inside is reported there, once), but a release that runs after a
   * failed acquire, or a token it would compare, still depends on it.
   */
  ownerChecked?: boolean;
  /** For a release or extend that is not owner-checked: it still compares the token, in a GET before the write. */
  compares?: boolean;
  /** For an acquire handing back a release function or lock object: does that release compare the token? */
  handedReleaseChecked?: boolean;
  /** For a node-style acquire helper: its callback's answer is true when the lock is busy. */
  answersBusy?: boolean;
  /** For an acquire handing back a release function: it is null (or nothing) when the lock is busy. */
  emptyWhenBusy?: boolean;
  /** For an acquire handing back a lock object: the field that says whether the lock was taken. */
  acquiredField?: string;
  /** That object comes back also when the lock is busy (every return is an object). */
  objectWhenBusy?: boolean;
  /** A store's put-if-absent its caller deletes again in a finally: lock code by that pairing, not its name. */
  pairedClaim?: boolean;
  /** For a routine helper: where it calls the routine without awaiting it before its release. */
  routineDropped?: Place;
}

export interface Acquire {
  kind: AcquireKind;
  call: ts.CallExpression;
  command?: RedisCommand;
  key?: KeyRef;
  /** The value stored as the owner token (Redis-level acquires). */
  token?: Node;
  ttl?: { unit: TtlUnit; value?: Node };
  /** The lock expires by itself (TTL in the acquire, a library lock, or an atomic Lua acquire). */
  hasTtl: boolean;
  fn: Node;
  statement: Node;
  result: ResultUse;
  /** For redlock.using / withLock: the routine that runs under the lock. */
  routine?: Node;
  /** For library locks: the variable/property name of the lock object (`mutex`, `this.lock`). */
  owner?: string;
  /** A separate EXPIRE/PEXPIRE on the same key in the same function (the non-atomic TTL). */
  laterExpire?: RedisCommand;
  /** For a project helper: the helper, and where its token comes from. */
  via?: HelperVia;
  tokenSpec?: TokenSpec;
  /** The routine's parameter that receives the AbortSignal (redlock.using, withLock: the first). */
  signalArg?: number;
  /** A set-once marker with a rollback, not a lock (engine/markers.ts). */
  marker?: boolean;
}

export type ReleaseKind = 'del' | 'unlink' | 'getdel' | 'delex' | 'delifeq' | 'script' | 'library' | 'helper';

export interface Release {
  kind: ReleaseKind;
  call: ts.CallExpression;
  command?: RedisCommand;
  key?: KeyRef;
  /** The lock handle or object released (`lock` in lock.release(), `mutex`). */
  handle?: string;
  ownerChecked: boolean;
  fn: Node;
  /** For an unchecked DEL inside `if ((await get(key)) === token)`: the non-atomic owner check. */
  getCompare?: GetCompare;
  via?: HelperVia;
  /** A DEL on the path where this acquire did not take the key: it deletes another holder's (engine/markers.ts). */
  failedAcquire?: Acquire;
}

/** `set`: a plain SET with a TTL after a GET compared with this process's value (GET-compare-SET). */
export type ExtendKind = 'expire' | 'set-xx' | 'set-ifeq' | 'set' | 'script' | 'library' | 'helper';

export interface Extend {
  kind: ExtendKind;
  call: ts.CallExpression;
  command?: RedisCommand;
  key?: KeyRef;
  handle?: string;
  ownerChecked: boolean;
  fn: Node;
  via?: HelperVia;
  /** For a plain SET renewal: the GET and the comparison that decide it, in another round trip. */
  getCompare?: GetCompare;
}

export interface LockModel {
  sourceFile: ts.SourceFile;
  text: string;
  /** The client style fixes should be written in. */
  style: ClientStyle;
  imports: FileImports;
  commands: RedisCommand[];
  acquires: Acquire[];
  releases: Release[];
  extends: Extend[];
  /** Redlock and redis-semaphore objects constructed in the file, with their options. */
  libraryObjects: LibraryObject[];
  /** Redlock settings objects passed to acquire/using. */
  redlockSettings: Node[];
  lookup: ConstLookup;
  /** Is this key a lock key: acquired with NX in this file, or named like one? */
  isLockKey(key: KeyRef): boolean;
  keyOf(node: Node): KeyRef;
  /** The Redis-level acquires, releases and extends on a key (sameKey), by index. */
  acquiresOn(key: KeyRef): Acquire[];
  releasesOn(key: KeyRef): Release[];
  /** Releases in a function, including `.finally(() => release)` callbacks written inside it. */
  releasesIn(fn: Node): Release[];
  extendsOn(key: KeyRef): Extend[];
  /** Does this call run a project function of another file handing back a client null only when not configured? */
  unconfiguredNull?(call: ts.CallExpression): boolean;
  /** The GETs of a key, a same-file reader's call included (engine/readers.ts). */
  getsOn(key: KeyRef): RedisCommand[];
  /** The major version of redlock the file's package lists, when it lists one. */
  redlockMajor?: number;
}

const EXPIRES = new Set(['EXPIRE', 'PEXPIRE', 'EXPIREAT', 'PEXPIREAT']);
const isSetEx = (c: RedisCommand) => c.name === 'SET' && !!c.set?.setex;
const DELETES = new Set(['DEL', 'UNLINK', 'GETDEL', 'DELEX', 'DELIFEQ']);
// Calls worth wrapping and recognising (lower-cased): Redis commands in every client's spelling, the
// lock libraries' methods and withLock. Scripts registered under a name and configured helpers are added per file.
const LOCK_CALLS = new Set([
  'set', 'setnx', 'setex', 'psetex', 'expire', 'pexpire', 'expireat', 'pexpireat', 'del', 'unlink', 'getdel', 'delex', 'delifeq', 'get', 'exists', 'incr',
  'eval', 'evalsha', 'call', 'callbuffer', 'sendcommand', 'send_command', 'customcommand', 'invokescript',
  'acquire', 'tryacquire', 'release', 'unlock', 'lock', 'extend', 'extendlock', 'using', 'withlock',
]);
const SCRIPT_SETUP = new Set(['defineCommand', 'script', 'scriptLoad', 'SCRIPT_LOAD']);
const SCRIPT_SETUP_TEXT = /defineCommand|\.script(?:Load)?\s*\(|SCRIPT_LOAD|scripts\s*:/;
const RELEASE_FN = /release|unlock|free|drop|clear/i;
/** `Lockout`, `Locked` in a function's name say a locked state, not lock code. */
const LOCKED_WORDS = /lock_?out|locked/gi;
const LOCKED_STATE_NAME = new RegExp(LOCKED_WORDS.source, 'i');
const EXTEND_FN = /extend|renew|refresh|heartbeat|keep_?alive|watchdog|touch/i;


/**
 * A method of a class (or object) named like a lock (`class Lock { release() }`, `RedisMutex`): its
 * `release()` and its constructor's renewal timer are the lock's, whatever their own names say.
 */
function inLockClass(fn: Node): boolean {
  const holder = ancestorWhere(namedFunctionOf(fn), (a) => ts.isClassLike(a) || ts.isObjectLiteralExpression(a));
  return !!holder && LOCK_NAME.test(functionNameOf(holder).replace(LOCKED_WORDS, ''));
}

/** A method of a class named for a locked state (`AccountLockoutService`): its `unlock()` lifts the lockout. */
function inLockedStateClass(fn: Node): boolean {
  const holder = ancestorWhere(namedFunctionOf(fn), (a) => ts.isClassLike(a));
  return !!holder && LOCKED_STATE_NAME.test(functionNameOf(holder));
}

/** Inside a timer callback (setInterval/setTimeout), the classic home of a watchdog. */
function inTimer(node: Node, fn: Node): boolean {
  const call = fn.parent;
  return !!call && ts.isCallExpression(call) && /^(setInterval|setTimeout)$/.test(calleeName(call) ?? '') && node !== call;
}

// Calls a project helper may shadow: the lock libraries' and withLock's names.
const LIBRARY_NAMES = new Set(['acquire', 'tryAcquire', 'release', 'unlock', 'lock', 'extend', 'using', 'withLock']);

/**
 * The lock model of a parsed file. With a project context, calls to the project's own lock helpers
 * and command wrappers (in this file or others) take the meaning of their summaries.
 */
export function buildModel(sourceFile: ts.SourceFile, helpers: HelperNames, project?: ProjectContext): LockModel {
  // Keys, Lua and tokens resolve the same identifiers many times over: answer each once.
  const resolved = new Map<Node, ts.Expression | undefined>();
  const lookup: ConstLookup = (identifier) => {
    if (resolved.has(identifier)) return resolved.get(identifier);
    const init = resolveConst(identifier);
    resolved.set(identifier, init);
    return init;
  };
  setBesideReader(sourceFile, project?.readBeside);
  const imports = readImports(sourceFile);
  const text = sourceFile.text;
  const named = SCRIPT_SETUP_TEXT.test(text)
    ? collectNamedScripts(sourceFile, callsNamed(sourceFile, (n) => SCRIPT_SETUP.has(n)), lookup)
    : { scripts: new Map<string, NamedScript>(), shas: new Map<string, string>() };
  const wanted = new Set([...named.scripts.keys(), ...helpers.acquire, ...helpers.release, ...helpers.extend, ...(project?.names ?? [])]);
  const promisified = promisifiedCommandNames(sourceFile);
  const calls = callsNamed(sourceFile, (n) => LOCK_CALLS.has(n.toLowerCase()) || wanted.has(n) || RAW_COMMAND_FN.test(n) || ASYNC_COMMAND_CALL.test(n) || promisified.has(n));
  const news = descendantsOfKind<ts.NewExpression>(sourceFile, ts.SyntaxKind.NewExpression);
  const ctx: RecogniserContext = { lookup, scripts: named.scripts, shas: named.shas, batchVars: batchVariables(sourceFile) };
  // One object per syntax node, so nodes can key a cache.
  const keys = new Map<Node, KeyRef>();
  const consts = new Map<Node, ConstKey>();
  const keyOf = (node: Node) => {
    let key = keys.get(node);
    if (!key) keys.set(node, (key = keyRef(node, lookup, consts)));
    return key;
  };
  const meanings = projectMeanings(calls, project);

  const commands: RedisCommand[] = [];
  for (const call of calls) {
    const meaning = meanings.get(call);
    const command = !meaning
      ? recogniseCommand(call, ctx)
      : meaning.kind === 'wrapper' ? wrapperCommand(call, meaning, ctx, keyOf, (node, key) => keys.set(node, key)) : undefined;
    // A get/set/del on an in-memory cache the file made itself (engine/in-memory-stores.ts) is no command.
    if (command && (meaning || !onInMemoryStore(call, imports))) commands.push(command);
  }
  commands.push(...readerGets(sourceFile, commands, keyOf, lookup, (node, key) => keys.set(node, key)));
  const style = fileStyle(imports) ?? commands.find((c) => c.style)?.style ?? 'ioredis';
  if (!LEGACY_MODE.test(text) && dropsPositionalSetOptions(imports, project?.packages, project?.importedClient)) markDroppedOptions(commands, imports, project);
  markMisfitScripts(commands, () => ioredisClient(imports, project));
  // A thin wrapper's command is its callers' to judge (engine/wrappers.ts), not lock code of its own.
  const wrappers = new Map<Node, boolean>();
  const inWrapper = (command: RedisCommand) => {
    const fn = enclosingFunction(command.call);
    let answer = wrappers.get(fn);
    if (answer === undefined) wrappers.set(fn, (answer = !!thinWrapper(fn)));
    return answer;
  };
  const lockCommands = commands.filter((c) => meanings.has(c.call) || !inWrapper(c));

  const acquires: Acquire[] = [];
  // The keys a command probe takes, by function: its DEL there clears the probe, it releases no lock.
  const probed: Acquire[] = [];
  for (const command of lockCommands) {
    const acquire = redisAcquire(command, keyOf);
    if (acquire && isProbe(acquire, sourceFile)) probed.push(acquire);
    else if (acquire) acquires.push(acquire);
  }
  const clearsProbe = (command: RedisCommand) => probed.some((p) => p.key && command.keys[0] && enclosingFunction(command.call) === p.fn && sameKey(keyOf(command.keys[0]), p.key));
  const libraryObjects = recogniseLibraryObjects(news, imports, lookup);
  const library = recogniseLibraryCalls(meanings.size > 0 ? calls.filter((c) => !meanings.has(c)) : calls, libraryObjects, imports, helpers, keyOf, libraryValues(meanings, project));
  acquires.push(...library.acquires);
  const redisLock = recogniseRedisLockCalls(sourceFile, imports, keyOf);
  acquires.push(...redisLock.acquires);
  const helperReleases: Release[] = [];
  const helperExtends: Extend[] = [];
  const unpaired: NonNullable<HelperOps['unpaired']> = { acquires: [], releases: [] };
  for (const [call, meaning] of meanings) {
    if (meaning.kind !== 'helper') continue;
    const ops = helperOps(call, meaning, keyOf);
    acquires.push(...ops.acquires);
    helperReleases.push(...ops.releases);
    helperExtends.push(...ops.extends);
    if (ops.unpaired) {
      unpaired.acquires.push(...ops.unpaired.acquires);
      unpaired.releases.push(...ops.unpaired.releases);
    }
    for (const acquire of ops.acquires) {
      const handed = handedBackOps(acquire);
      helperReleases.push(...handed.releases);
      helperExtends.push(...handed.extends);
    }
  }
  const paired = pairedStoreOps(unpaired, [...helperReleases, ...unpaired.releases], lockCommands, keyOf);
  acquires.push(...paired.acquires);
  helperReleases.push(...paired.releases);

  markGetOrInit(acquires);
  markCounterSeeds(acquires);
  markDedupeWindows(acquires);
  // The routine a withLock-like call runs is the work under the lock (`clearCartWithLock`'s arrow deleting
  // the cart): its name is borrowed from the function around it, its keys are not the lock's.
  const routines = acquires.flatMap((a) => (a.routine && isFunctionLike(unwrap(a.routine)) ? [unwrap(a.routine)] : []));
  const inLockedRoutine = (fn: Node) => routines.some((r) => r === fn || contains(r, fn));
  const acquireIndex = new KeyIndex<Acquire>();
  for (const a of acquires) if (a.key) acquireIndex.add(a.key, a);
  // A key this file acquires with NX (not as a first-seen value), or through a project helper that acquires a lock.
  // A circuit breaker's half-open probe slot and a cooldown window are taken with NX too, but are
  // admission control (keys.ts): their DEL on a give-up path is no holder's release.
  const acquiredHere = (key: KeyRef) => acquireIndex.find(key).some((a) => (a.command && !a.marker) || (a.via && !a.routine)) && !namesCircuitState(key) && !namesRateLimit(key);
  // A key named like a lock whose every SET waits for a counter to reach a limit is a lockout state.
  const plainSets = new KeyIndex<RedisCommand>();
  for (const c of lockCommands) if (c.name === 'SET' && !c.set?.nx && c.keys[0]) plainSets.add(keyOf(c.keys[0]), c);
  const lockout = (key: KeyRef) => {
    const sets = plainSets.find(key);
    return sets.length > 0 && sets.every(countGated);
  };
  // `requestRelease:${lockKey}`, where lockKey holds `tus-lock-${id}`: a key about the lock (a flag, its
  // holder's metadata), named after it with words of its own, not the lock. Told from the key alone, so
  // that a function's meaning does not hang on another function's acquire (rules/kept-analysis.ts).
  const companion = (key: KeyRef) => {
    const node = unwrap(key.node);
    if (!ts.isTemplateExpression(node) || node.templateSpans.length !== 1) return false;
    const words = node.head.text + node.templateSpans[0].literal.text;
    const inner = unwrap(node.templateSpans[0].expression);
    if (words.trim() === '' || LOCK_NAME.test(words) || !ts.isIdentifier(inner)) return false;
    const held = keyOf(inner);
    return held.glob !== '*' && looksLikeLockKey(held);
  };
  const isLockKey = (key: KeyRef) => acquiredHere(key) || (looksLikeLockKey(key) && !lockout(key) && !companion(key));
  // `await runPayout(id, lockKey)` after acquiring lockKey, and `finally { await redis.del(key) }` in
  // runPayout: a key parameter that a call of this file binds to a key its caller acquired.
  const acquiredByCaller = (key: KeyRef): boolean => {
    const param = ts.isIdentifier(key.node) ? declarationOf(key.node) : undefined;
    if (!param || !ts.isParameter(param) || !isFunctionLike(param.parent)) return false;
    const name = functionNameOf(param.parent);
    const index = param.parent.parameters.indexOf(param);
    return !!name && callsNamed(sourceFile, (n) => n === name).some((c) => !!c.arguments[index] && acquiredHere(keyOf(c.arguments[index])));
  };

  // The EXPIRE that gives a TTL-less acquire its TTL belongs to the acquire, not to the extends.
  const ttlSetters = new Set<RedisCommand>();
  const expireIndex = new KeyIndex<RedisCommand>();
  // A SETEX (a SET with a TTL and no NX) after a SETNX gives it its TTL the same way, in a second command.
  for (const c of lockCommands) if ((EXPIRES.has(c.name) || isSetEx(c)) && c.keys[0]) expireIndex.add(keyOf(c.keys[0]), c);
  for (const acquire of acquires) {
    if (acquire.hasTtl || !acquire.key || !acquire.command) continue;
    const later = expireIndex.find(acquire.key).find(
      (c) =>
        !ttlSetters.has(c) &&
        (c.call.pos > acquire.call.pos || c.call.end > acquire.call.end) &&
        acquire.fn.pos <= c.call.pos &&
        c.call.end <= acquire.fn.end,
    );
    if (later) {
      acquire.laterExpire = later;
      ttlSetters.add(later);
    }
  }
  // `await redis.set(key, stamp); await redis.expire(key, ttl);`: the TTL of the plain SET just before it
  // (a stale lock's takeover, a value written), not a renewal of a lock held before.
  for (const c of lockCommands) if (EXPIRES.has(c.name) && !ttlSetters.has(c) && ttlOfWriteBefore(c, (key) => plainSets.find(key), keyOf)) ttlSetters.add(c);

  // `set(lockKey, '1', 'EX', 10)` (after a GET, without NX) then `del(lockKey)` in the same function: the
  // function takes that lock itself, however badly, so its DEL is the lock's release.
  const setIndex = new KeyIndex<RedisCommand>();
  for (const c of lockCommands) if (c.name === 'SET' && c.keys[0] && !c.batch) setIndex.add(keyOf(c.keys[0]), c);
  const wroteBefore = (key: KeyRef, command: RedisCommand, fn: Node) =>
    setIndex.find(key).some((s) => s.call.end <= command.call.pos && enclosingFunction(s.call) === fn && !countGated(s));

  const getIndex = new KeyIndex<RedisCommand>();
  for (const c of commands) if (c.name === 'GET' && c.keys[0]) getIndex.add(keyOf(c.keys[0]), c);
  const getsOn = (key: KeyRef) => getIndex.find(key);
  // The GET and compare before a release or renewal that has no owner check of its own: in an `if` around
  // it, or an `if` before it that leaves when the value is another's. Said in the message, not a check.
  const compareBefore = (command: RedisCommand, fn: Node, key: KeyRef): GetCompare | undefined => {
    const before = findGetCompare({ call: command.call, fn, key }, getsOn) ?? findCompareBeforeWrite({ call: command.call, fn, key }, getsOn);
    return before && !before.whenFree ? before : undefined;
  };
  // A write queued in MULTI after WATCH, GET and a compare with the token (in an `if` around it, or a guard
  // that leaves first): an optimistic transaction, as atomic as a compare-and-write script.
  // The WATCH and GET may be in the function around the callback the write is queued in
  // (`pipeline.watch(k).get(k).exec().then((replies) => { if (...) multi().del(k).exec() })`).
  const watchedWrite = (command: RedisCommand, fn: Node, key: KeyRef): boolean => {
    const written = command.keys[0];
    if (command.batch?.kind !== 'multi' || !written) return false;
    const scope = namedFunctionOf(fn);
    const compared = compareBefore(command, scope, key);
    return !!compared && watchedTransaction(compared, written, scope);
  };

  let releases: Release[] = [...library.releases, ...redisLock.releases, ...helperReleases];
  const extendsList: Extend[] = [...library.extends, ...helperExtends];
  for (const command of lockCommands) {
    if (ttlSetters.has(command)) continue;
    // Only deletes, scripts, SET XX/IFEQ and expires can release or extend (most commands are GETs and SETs).
    // `EXPIRE key 0` (or a negative time) deletes the key at once: a release, not a renewal.
    const expiresNow = (command.name === 'EXPIRE' || command.name === 'PEXPIRE') && !!command.args[0] && (literalNumber(command.args[0]) ?? 1) <= 0;
    const deletes = DELETES.has(command.name) || expiresNow;
    const renews = (EXPIRES.has(command.name) && !expiresNow) || (command.name === 'SET' && !!command.set && !command.set.nx && !!command.set.ttl && (command.set.xx || !!command.set.ifeq));
    const rewrites = !deletes && !renews && isPlainSetWithTtl(command);
    if (!deletes && !renews && !rewrites && command.name !== 'SCRIPT') continue;
    const fn = enclosingFunction(command.call);
    // A callback (`client.del(key, (err) => ...)` inside `unlock`) goes by the name of the function it is written in.
    const fnName = functionNameOf(namedFunctionOf(fn));
    // In a function named like lock code (releaseLock, renewLock), any key it deletes or renews is the lock.
    const commandKeys = command.keys.map(keyOf);
    // `clearLockout(user)` deleting `otp_locked:<user>` and its counter: an account lockout, not a lock; nor
    // `clearEditLockAck(id)` deleting `editLockAckKey(id)`: data about a lock (keys.ts namesDataAboutLock).
    const lockedState = commandKeys.some((k) => namesLockedState(k) || namesDataAboutLock(k));
    const lockFn = !lockedState && !inLockedStateClass(fn) && !inLockedRoutine(fn) && (LOCK_NAME.test(fnName.replace(LOCKED_WORDS, '')) || inLockClass(fn));
    // A DEL after comparing the key's holder with this process's id (`if (await get(k) === me) del(k)`) is an
    // owner's release whatever the function is called (`cleanup`, `shutdown`).
    const ownersDelete = (k: KeyRef) => RELEASE_FN.test(fnName) || !!findGetCompare({ call: command.call, fn, key: k }, getsOn)?.token || wroteBefore(k, command, fn);
    const lockKey = deletes && !clearsProbe(command) ? commandKeys.find((k) => acquiredHere(k) || ((lockFn || looksLikeLockKey(k)) && !companion(k) && ownersDelete(k)) || acquiredByCaller(k)) : undefined;
    const extendKey = renews
      ? commandKeys.find((k) => acquiredHere(k) || ((lockFn || looksLikeLockKey(k)) && !companion(k) && (EXTEND_FN.test(fnName) || inTimer(command.call, fn))))
      : undefined;
    // Written out, not spread from a base object: the spreads were the slowest part of this loop.
    switch (command.name) {
      case 'DEL':
      case 'UNLINK':
      case 'GETDEL':
        if (lockKey) {
          const kind = command.name === 'GETDEL' ? 'getdel' : command.name === 'DEL' ? 'del' : 'unlink';
          const getCompare = compareBefore(command, fn, lockKey);
          releases.push({ call: command.call, command, fn, kind, key: lockKey, ownerChecked: watchedWrite(command, fn, lockKey), getCompare });
        }
        break;
      case 'DELEX':
        if (lockKey) releases.push({ call: command.call, command, fn, kind: 'delex', key: lockKey, ownerChecked: command.args.some((a) => /ifeq/i.test(a.getText())) });
        break;
      case 'DELIFEQ': // Valkey 9: DELIFEQ key token, a compare-and-delete
        if (lockKey) releases.push({ call: command.call, command, fn, kind: 'delifeq', key: lockKey, ownerChecked: true });
        break;
      case 'SET': // an XX or IFEQ renewal with a TTL (`renews`), or a plain SET after an owner check (`rewrites`)
        if (rewrites) {
          const key = commandKeys[0];
          const getCompare = key && (acquiredHere(key) || looksLikeLockKey(key) || lockFn) ? findCompareBeforeWrite({ call: command.call, fn, key }, getsOn) : undefined;
          if (getCompare && !getCompare.whenFree && !movesToAnotherState(command, getCompare)) extendsList.push({ call: command.call, command, fn, kind: 'set', key, ownerChecked: watchedWrite(command, fn, key), getCompare });
          // `updateHeartbeat() { set(LEADER, me, 'EX', ttl) }` beside the NX acquire of that key: a blind renewal.
          else if (!getCompare && key && acquiredHere(key) && (EXTEND_FN.test(fnName) || inTimer(command.call, fn))) extendsList.push({ call: command.call, command, fn, kind: 'set', key, ownerChecked: watchedWrite(command, fn, key) });
        } else if (extendKey) extendsList.push({ call: command.call, command, fn, kind: command.set?.ifeq ? 'set-ifeq' : 'set-xx', key: extendKey, ownerChecked: !!command.set?.ifeq });
        break;
      case 'SCRIPT':
        // A script on a parameter key in lock code (`renewLock(key, token)`) is the lock's too.
        scriptReleaseOrExtend(command, { call: command.call, command, fn }, keyOf, (k) => isLockKey(k) || (isFunctionLike(fn) && isLockFunction(fn)), releases, extendsList);
        break;
      default:
        if (expiresNow && lockKey) {
          const getCompare = compareBefore(command, fn, lockKey);
          releases.push({ call: command.call, command, fn, kind: 'del', key: lockKey, ownerChecked: watchedWrite(command, fn, lockKey), getCompare });
        } else if (EXPIRES.has(command.name) && extendKey) {
          extendsList.push({ call: command.call, command, fn, kind: 'expire', key: extendKey, ownerChecked: watchedWrite(command, fn, extendKey), getCompare: compareBefore(command, fn, extendKey) });
        }
    }
  }

  let releaseIndex = new KeyIndex<Release>();
  for (const r of releases) if (r.key) releaseIndex.add(r.key, r);
  const commandCalls = new Set<Node>(commands.map((c) => c.call));
  const rollbacks = markerRollbacks(acquires, (a) => (a.key ? releaseIndex.find(a.key) : []), (call) => commandCalls.has(call));
  for (const r of rollbackHelpers(acquires, releases, sourceFile)) rollbacks.add(r);
  for (const r of failureNamedRollbacks(acquires, (a) => (a.key ? releaseIndex.find(a.key) : []))) rollbacks.add(r);
  for (const r of stateRecordRollbacks(acquires, (a) => (a.key ? plainSets.find(a.key) : []), (a) => (a.key ? releaseIndex.find(a.key) : []))) rollbacks.add(r);
  if (rollbacks.size > 0) {
    releases = releases.filter((r) => !rollbacks.has(r));
    releaseIndex = new KeyIndex<Release>();
    for (const r of releases) if (r.key) releaseIndex.add(r.key, r);
  }
  const releasesByFn = new Map<Node, Release[]>();
  for (const r of releases) {
    const owner = finallyCallbackOwner(r.fn) ?? r.fn;
    releasesByFn.set(owner, [...(releasesByFn.get(owner) ?? []), r]);
  }
  const extendIndex = new KeyIndex<Extend>();
  for (const e of extendsList) if (e.key) extendIndex.add(e.key, e);

  return {
    sourceFile,
    text,
    style,
    imports,
    commands,
    acquires,
    releases,
    extends: extendsList,
    libraryObjects,
    redlockSettings: library.redlockSettings,
    lookup,
    isLockKey,
    keyOf,
    acquiresOn: (key) => acquireIndex.find(key),
    releasesOn: (key) => releaseIndex.find(key),
    releasesIn: (fn) => releasesByFn.get(fn) ?? [],
    extendsOn: (key) => extendIndex.find(key),
    getsOn,
    unconfiguredNull: project?.unconfiguredNull,
    redlockMajor: project?.packages?.get('redlock'),
  };
}

/**
 * Is the statement before this EXPIRE's a plain SET (no NX, XX or TTL) of the same key? `setsOn` gives the
 * file's SETs without NX on a key (the model's index of them).
 */
function ttlOfWriteBefore(expire: RedisCommand, setsOn: (key: KeyRef) => RedisCommand[], keyOf: (n: Node) => KeyRef): boolean {
  const statement = enclosingStatement(expire.call);
  const block = statement.parent;
  if (!expire.keys[0] || !ts.isBlock(block)) return false;
  const previous = block.statements[block.statements.indexOf(statement as ts.Statement) - 1];
  if (!previous) return false;
  return setsOn(keyOf(expire.keys[0])).some((c) => !!c.set && !c.set.xx && !c.set.ifeq && !c.set.ttl && !c.set.dynamic && contains(previous, c.call));
}

/** `SET key value EX ttl`: no NX, XX or IFEQ, options all read, a TTL of its own. */
function isPlainSetWithTtl(command: RedisCommand): boolean {
  const set = command.set;
  return command.name === 'SET' && !!set && !set.nx && !set.xx && !set.ifeq && !set.get && !set.dynamic && !set.dropped && !command.batch && !!set.ttl && set.ttl.unit !== 'KEEPTTL';
}

/**
 * Is the file's client surely ioredis: imported here, or the only client its package lists? (A project
 * module the file imports may name both clients, as a types module does: that decides nothing.)
 */
function ioredisClient(imports: FileImports, project: ProjectContext | undefined): boolean {
  const style = fileStyle(imports);
  if (style !== undefined) return style === 'ioredis';
  const packages = [...(project?.packages?.keys() ?? [])];
  return packages.length > 0 && packages.every((name) => name === 'ioredis' || name === 'iovalkey');
}

/** node-redis' `legacyMode: true` (v4) and `.legacy()` (v5) clients still take the words one by one. */
const LEGACY_MODE = /legacyMode|\.legacy\(/;

/** A client's own `set(key, value, 'NX', 'EX', 30)` where the client reads options only from an object. */
function markDroppedOptions(commands: RedisCommand[], imports: FileImports, project: ProjectContext | undefined): void {
  for (const command of commands) {
    if (command.name !== 'SET' || !command.set || command.wrapped || command.style !== 'ioredis') continue;
    const method = methodOf(command.call);
    if (method?.name.toLowerCase() !== 'set' || takesPositionalOptions(method.receiver, imports, project)) continue;
    if (hasPositionalWords(command.args.slice(1))) command.set.dropped = true;
  }
}

/** `set(key: string, value: string, ...args: (string | number)[])`: a set taking rest arguments. */
const REST_SET = /\bset\s*\([^()]*\.\.\.\s*[\w$]+/;
/** ... in a module that reads 'NX' from them. */
const POSITIONAL_SET = new RegExp(`${REST_SET.source}[\\s\\S]*?['"\`]NX['"\`]`);

/**
 * `this.redis.set(key, '1', 'NX', 'EX', 60)` on a field typed by a project interface or class
 * (`redis: PromisifiedRedisClient` from '../lib/redis') whose module's `set` takes the options as rest
 * arguments and turns them into node-redis' object: the words reach Redis.
 */
function takesPositionalOptions(receiver: Node, imports: FileImports, project: ProjectContext | undefined): boolean {
  const type = declaredTypeName(unwrap(receiver));
  if (!type) return false;
  // `interface RedisLike { set(key: string, value: string, ...args: (string | number)[]) }` in this file: node-redis
  // v4+ could not be handed in as one, its options are an object.
  if (declaresRestSet(receiver.getSourceFile(), type)) return true;
  const from = imports.names.get(type);
  if (!from || !from.startsWith('.') || !project?.moduleText) return false;
  return POSITIONAL_SET.test(project.moduleText(from) ?? '');
}

/**
 * Does the file declare the interface or class `type` with a `set` method taking rest arguments? Read
 * from the text as written: a lean parse may have blanked the declaration (it holds no lock word).
 */
function declaresRestSet(sourceFile: ts.SourceFile, type: string): boolean {
  const text = writtenText(sourceFile);
  const start = new RegExp(`\\b(?:interface|class)\\s+${type.replace(/\$/g, '\\$')}\\b`).exec(text);
  if (!start) return false;
  const end = text.indexOf('\n}', start.index);
  return REST_SET.test(text.slice(start.index, end < 0 ? undefined : end));
}

/** The type name a variable, parameter or `this.<field>` (a field or a constructor parameter property) is declared with. */
function declaredTypeName(receiver: Node): string | undefined {
  let declared: ts.TypeNode | undefined;
  if (ts.isIdentifier(receiver)) {
    const decl = declarationOf(receiver);
    if (decl && (ts.isVariableDeclaration(decl) || ts.isParameter(decl))) declared = decl.type;
  } else if (ts.isPropertyAccessExpression(receiver) && receiver.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = ancestorWhere<ts.ClassLikeDeclaration>(receiver, ts.isClassLike);
    const name = receiver.name.text;
    for (const member of cls?.members ?? []) {
      if (ts.isPropertyDeclaration(member) && member.name.getText() === name) declared = member.type;
      if (ts.isConstructorDeclaration(member)) for (const p of member.parameters) if (ts.isIdentifier(p.name) && p.name.text === name && p.modifiers?.length) declared = p.type;
    }
  }
  return declared && ts.isTypeReferenceNode(declared) && ts.isIdentifier(declared.typeName) ? declared.typeName.text : undefined;
}

/** What the project says of the calls it knows (none without a project context). */
function projectMeanings(calls: ts.CallExpression[], project: ProjectContext | undefined): Map<ts.CallExpression, CallMeaning> {
  const meanings = new Map<ts.CallExpression, CallMeaning>();
  if (!project) return meanings;
  for (const call of calls) {
    const name = calleeName(call) ?? methodOf(call)?.name;
    if (!name || (!project.names.has(name) && !LIBRARY_NAMES.has(name))) continue;
    const meaning = project.meaningOf(call);
    if (meaning) meanings.set(call, meaning);
  }
  return meanings;
}

/**
 * The lock-library objects the file holds from another project file: imported ones, and those a
 * project factory hands back (`const mutex = createMutex(name)`), by the name they are stored under.
 */
function libraryValues(meanings: Map<ts.CallExpression, CallMeaning>, project: ProjectContext | undefined): ReadonlyMap<string, LibraryObject['library']> | undefined {
  let made: Map<string, LibraryObject['library']> | undefined;
  for (const [call, meaning] of meanings) {
    const library = meaning.kind === 'helper' ? meaning.summary.makesLibrary : undefined;
    const name = library && storedName(call);
    if (name) (made ??= new Map(project?.libraries)).set(name, library);
  }
  return made ?? project?.libraries;
}

/** For `p.finally(() => lock.release())`, the function that wrote it. */
function finallyCallbackOwner(fn: Node): Node | undefined {
  const call = fn.parent;
  return call && ts.isCallExpression(call) && methodOf(call)?.name === 'finally' ? enclosingFunction(call) : undefined;
}

function redisAcquire(command: RedisCommand, keyOf: (n: Node) => KeyRef): Acquire | undefined {
  // Most commands are not acquires: where the call sits and what its result does are read only for
  // those that are. Written out, not spread from a base object: the spread was most of this function.
  const call = command.call;
  if (command.name === 'SET' && command.set?.nx && !command.set.dynamic) {
    const ttl = command.set.ttl && command.set.ttl.unit !== 'KEEPTTL' ? command.set.ttl : undefined;
    return {
      call, command, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call),
      kind: 'set-nx', key: keyOf(command.keys[0]), token: command.args[0], ttl, hasTtl: !!ttl,
    };
  }
  if (command.name === 'SETNX') {
    // No client's SETNX takes more than the key and value: `cache.setNX(key, value, ttlSeconds)` is a
    // project wrapper's, with its TTL (in a unit its body decides).
    return {
      call, command, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call),
      kind: 'setnx', key: keyOf(command.keys[0]), token: command.args[0], hasTtl: command.args.length > 1,
    };
  }
  if (command.name === 'SCRIPT' && command.script?.traits?.acquires && command.keys[0]) {
    return {
      call, command, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call),
      kind: 'lua', key: keyOf(command.keys[0]), token: command.args[0], hasTtl: command.script.traits.acquiresWithTtl,
    };
  }
  return undefined;
}

const RELEASE_NAME = /release|unlock|free|del/i;
const EXTEND_NAME = /extend|renew|refresh|touch|keep/i;

function scriptReleaseOrExtend(
  command: RedisCommand,
  base: { call: ts.CallExpression; command: RedisCommand; fn: Node },
  keyOf: (n: Node) => KeyRef,
  isLockKey: (k: KeyRef) => boolean,
  releases: Release[],
  extendsList: Extend[],
): void {
  const script = command.script;
  if (!script || !script.keys[0]) return;
  const key = keyOf(script.keys[0]);
  if (!isLockKey(key)) return;
  const op = (ownerChecked: boolean) => ({ call: base.call, command: base.command, fn: base.fn, kind: 'script' as const, key, ownerChecked });
  if (script.traits && !script.traits.acquires) {
    if (script.traits.deletes) releases.push(op(script.traits.comparesOwner));
    // A semaphore's slot taken with the container's TTL set alongside is no renewal.
    else if (script.traits.expires && (script.traits.comparesOwner || !script.traits.addsMember)) extendsList.push(op(script.traits.comparesOwner));
    return;
  }
  if (script.kind !== 'unknown') return;
  // Lua defined in another file: trust its name (`RELEASE_SCRIPT`, `releaseLock`) and assume it checks.
  const name = (methodOf(command.call)?.name ?? '') + ' ' + (command.call.arguments[0]?.getText() ?? '');
  if (RELEASE_NAME.test(name)) releases.push(op(true));
  else if (EXTEND_NAME.test(name)) extendsList.push(op(true));
}

/** Variables holding a MULTI or pipeline: `const tx = redis.multi()`, GLIDE `new Batch(true)`. */
function batchVariables(sourceFile: ts.SourceFile): Map<string, 'multi' | 'pipeline'> {
  const vars = new Map<string, 'multi' | 'pipeline'>();
  if (!/multi\(|pipeline\(|batch\(|Batch\(|Transaction\(/.test(sourceFile.text)) return vars;
  for (const decl of descendantsOfKind<ts.VariableDeclaration>(sourceFile, ts.SyntaxKind.VariableDeclaration)) {
    const call = decl.initializer ? unwrap(decl.initializer) : undefined;
    const name = call && ts.isCallExpression(call) ? methodOf(call)?.name.toLowerCase() : undefined;
    const variable = nameOf(decl);
    if (!variable) continue;
    const glide = call && ts.isNewExpression(call) ? glideBatchKind(call) : undefined;
    if (glide) vars.set(variable, glide);
    else if (name === 'multi') vars.set(variable, 'multi');
    else if (name === 'pipeline' || name === 'batch') vars.set(variable, 'pipeline');
  }
  return vars;
}
