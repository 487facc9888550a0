// DEL/UNLINK of a lock key without an atomic owner check deletes whoever holds the lock now; so does
// GET, compare in the client, then DEL (the lock can change hands between the two round trips).
import { ts } from './engine/typescript';
import { sameKey, describeKey } from './engine/keys';
import type { LockModel, Release } from './engine/model';
import type { RedisCommand } from './engine/commands';
import { ancestorWhere, callsNamed, contains, enclosingFunction, functionNameOf, identifiersNamed, isAncestor, isCallback, isFunctionLike, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import type { ServerKind } from './config';
import { releaseFixTitle } from './fixes/server-commands';
import { isRedisAcquire, clientReceiver, visibleToken } from './engine/queries';
import { freshToken } from './fixes/token';
import { guardedRelease, removeStatement } from './fixes/text';
import { breaksStaleLock } from './engine/takeover';
import type { Rule } from './rule';
import type { Fix, TextEdit } from './types';
import { releasedBefore } from './engine/double-release';
import { deletesListedKeys } from './engine/listed-keys';
import { fallsBackWhenBusy } from './engine/busy-path';

/** The pieces of a DEL that can be replaced by a guarded call; a reason when it cannot be. */
function replaceable(model: LockModel, release: Release): { receiver: string; keyNode: Node; awaited: boolean; statement: Node } | string {
  const receiver = clientReceiver(release);
  const keyNode = release.command?.keys.find((k) => release.key && sameKey(model.keyOf(k), release.key));
  if (release.kind === 'script') return 'No automatic fix: rewrite the script to compare the token before it deletes (see the rule documentation).';
  if (release.command?.batch) return 'No automatic fix: the DEL is part of a MULTI or pipeline; release with a compare-and-delete after it.';
  if (release.call.arguments.some(isCallback)) return 'No automatic fix: the DEL answers through a callback (node_redis v3); run the compare-and-delete script with that callback instead.';
  if (release.command?.wrapped) return `No automatic fix: the DEL goes through the project's wrapper ${release.call.expression.getText()}, which may offer no compare-and-delete; release through one that runs the Lua compare-and-delete.`;
  if (!receiver || !keyNode || (release.command?.keys.length ?? 0) > 1) return 'No automatic fix: the DEL deletes several keys; release the lock key alone with a compare-and-delete.';
  const statement = valueCarrier(release.call).parent;
  if (!ts.isExpressionStatement(statement)) return 'No automatic fix: the DEL reply is used; a compare-and-delete replies 1 or 0 the same way, so rewrite it by hand.';
  return { receiver, keyNode, awaited: ts.isAwaitExpression(unwrap(statement.expression)), statement };
}

/** `const holder = await get(key);` goes with the compare when the compare was its only reader. */
function unusedGet(get: Node, ifStatement: Node): TextEdit[] {
  const statement = ancestorWhere<ts.VariableStatement>(get, ts.isVariableStatement);
  const declarations = statement?.declarationList.declarations;
  const name = declarations?.length === 1 && ts.isIdentifier(declarations[0].name) ? declarations[0].name.text : undefined;
  if (!statement || !name || !ts.isBlock(statement.parent)) return [];
  const readers = identifiersNamed(enclosingFunction(statement), name).filter((id) => id.getStart() > declarations![0].name.end);
  return readers.every((id) => isAncestor(ifStatement, id)) ? [removeStatement(statement)] : [];
}

function fix(model: LockModel, release: Release, server: ServerKind): Fix | string {
  const parts = replaceable(model, release);
  if (typeof parts === 'string') return parts;
  const { receiver, keyNode, awaited, statement } = parts;
  const getCompare = release.getCompare;
  if (getCompare?.parsed) return 'No automatic fix: the key holds a record the GET parsed, not a token; compare its field inside one Lua script (cjson.decode) before the DEL.';
  if (getCompare?.token && ts.isIfStatement(getCompare.ifStatement) && !getCompare.ifStatement.elseStatement) {
    const then = getCompare.ifStatement.thenStatement;
    const only = ts.isBlock(then) ? then.statements : [then];
    if (only.length === 1 && only[0] === statement) {
      const guarded = guardedRelease(model, receiver, keyNode.getText(), getCompare.token.getText(), server);
      return { title: releaseFixTitle(server), isPreferred: true, edits: [...guarded.edits, ...unusedGet(getCompare.get, getCompare.ifStatement), { ...spanOf(getCompare.ifStatement), newText: `${awaited ? 'await ' : ''}${guarded.call};` }] };
    }
  }
  const token = visibleToken(model, release.key, release.call);
  if (token) {
    const guarded = guardedRelease(model, receiver, keyNode.getText(), token.getText(), server);
    return { title: releaseFixTitle(server), isPreferred: true, edits: [...guarded.edits, { ...spanOf(release.call), newText: guarded.call }] };
  }
  return withFreshToken(model, release, server);
}

/**
 * The token is not in a variable (`process.pid`, a literal): a fresh random token at the acquire in
 * this function, and every plain DEL of that lock here compared against it. Not unattended: it
 * changes the value the lock holds.
 */
function withFreshToken(model: LockModel, release: Release, server: ServerKind): Fix | string {
  const acquire = release.key && model.acquiresOn(release.key).find((a) => isRedisAcquire(a) && a.token && a.fn === release.fn && a.call.end <= release.call.pos);
  if (!acquire) {
    const elsewhere = release.key && model.acquiresOn(release.key).some((a) => isRedisAcquire(a));
    return elsewhere
      ? 'No automatic fix: the token is created in another function; pass it to this release and compare it there.'
      : 'No automatic fix: this file does not acquire the lock, so its token is unknown here; release with the token the acquire stored.';
  }
  const fresh = freshToken(model, acquire);
  if (!fresh) return 'No automatic fix: the acquire is not a statement of its own, so there is nowhere to create a token before it.';
  const edits = [...fresh.edits];
  for (const other of model.releasesOn(acquire.key!).filter((r) => r.fn === release.fn && !r.ownerChecked && !r.getCompare)) {
    const parts = replaceable(model, other);
    if (typeof parts === 'string') continue;
    const guarded = guardedRelease(model, parts.receiver, parts.keyNode.getText(), fresh.name, server);
    if (edits.every((e) => !e.newText.includes(guarded.edits[0]?.newText ?? '\0'))) edits.push(...guarded.edits);
    edits.push({ ...spanOf(other.call), newText: guarded.call });
  }
  return { title: 'Use a random token and release with a compare-and-delete', isPreferred: true, unattended: false, edits };
}

// Operator tools that break a lock on purpose: `forceUnlock(name)`, `breakLock`, `adminReleaseLock`.
const FORCED = /(?:^|_)(?:force|break|admin|operator|manual|purge|nuke|wipe|steal)/i;

// Resets that wipe state (`cleanup(key)` for tests, `resetAll()`): deliberate only beside a real release.
const RESET = /^(?:cleanup|clean_up|reset|clear|flush|teardown|tear_down)/i;

/** Does the file release this lock elsewhere with an owner check (so the DEL here is not its release)? */
function releasedCheckedElsewhere(model: LockModel, release: Release): boolean {
  if (!release.key) return false;
  return model.releasesOn(release.key).some((r) => r.fn !== release.fn && r.ownerChecked && r.via?.ownerChecked !== false);
}

/**
 * A forced release: a function named as an operator's break-the-lock action, or as a reset of a lock the
 * file also releases with an owner check, that takes no token (it cannot check an owner it is not told)
 * and acquires nothing itself.
 */
/**
 * `const value = await redis.get(key); await redis.eval(COMPARE_AND_DELETE, 1, key, value)`: the script
 * compares the key with what it holds now, so its owner check passes for any holder.
 */
function comparesWhatItRead(model: LockModel, release: Release): RedisCommand | undefined {
  if (release.kind !== 'script' || !release.ownerChecked || !release.command || !release.key) return undefined;
  for (const arg of release.command.args) {
    const id = unwrap(arg);
    const init = ts.isIdentifier(id) ? model.lookup(id) : undefined;
    const value = init && unwrap(init);
    const call = value && ts.isAwaitExpression(value) ? unwrap(value.expression) : value;
    const get = call && model.commands.find((c) => c.call === call && c.name === 'GET' && !!c.keys[0] && sameKey(model.keyOf(c.keys[0]), release.key!));
    if (get) return get;
  }
  return undefined;
}

/**
 * The release of a stampede damper (engine/busy-path.ts): a second holder it lets in changes nothing. Taken
 * in the releasing function (or one it runs in: `(async () => { try {...} finally { del } })()`), or, for a
 * release elsewhere (a cache invalidation deleting the damper's key too), every acquire of the key is one.
 */
function dampsOnly(model: LockModel, release: Release): boolean {
  const all = release.key ? model.acquiresOn(release.key) : [];
  const own = all.filter((a) => a.fn === release.fn || contains(a.fn, release.fn));
  const takers = own.length > 0 ? own : all;
  return takers.length > 0 && takers.every((a) => fallsBackWhenBusy(model, a));
}

/** `typeof redis.eval === 'function'`, `'eval' in client`: a test that the client can run scripts. */
const RUNS_SCRIPTS = /typeof\s+[\w$.?]+\.eval(?:sha)?\s*[!=]==?\s*['"]function['"]|['"]eval(?:sha)?['"]\s+in\s+[\w$.]+/;

/**
 * `if (typeof redis.eval === 'function') { await redis.eval(compareAndDelete, ...); return }` then a
 * GET-compare-DEL: the compare-and-delete a client without scripting (an in-memory stand-in) can do,
 * on the path where the atomic one cannot run.
 */
function scriptlessFallback(model: LockModel, release: Release): boolean {
  if (!release.getCompare || !isFunctionLike(release.fn)) return false;
  return model.releases.some((r) => r !== release && r.fn === release.fn && r.ownerChecked && r.kind === 'script' && r.call.end < release.call.pos) &&
    RUNS_SCRIPTS.test(release.fn.getText());
}

function isForcedRelease(model: LockModel, release: Release): boolean {
  const fn = release.fn;
  if (!isFunctionLike(fn)) return false;
  const named = functionNameOf(fn);
  if (!FORCED.test(named) && !(RESET.test(named) && releasedCheckedElsewhere(model, release))) return false;
  const takesToken = fn.parameters.some((p) => /token|owner|holder|lockId|value|identifier/i.test(p.name.getText()));
  if (takesToken || model.acquires.some((a) => a.fn === fn)) return false;
  // Called by code that then acquires (a stale-lock breaker before a retry) it is automated, not an operator's.
  const name = functionNameOf(fn);
  const acquiringFns = new Set(model.acquires.map((a) => a.fn));
  return !callsNamed(model.sourceFile, (n) => n === name).some((call) => acquiringFns.has(enclosingFunction(call)));
}

export const ownerCheckedRelease: Rule = {
  id: 'owner-checked-release',
  defaultSeverity: 'error',
  unattendedFixes: true,
  summary: 'DEL/UNLINK of a lock key without an atomic owner check, or GET-compare-DEL in two round trips.',
  check({ model, report, server }) {
    for (const command of model.commands) {
      const misfit = command.script?.misfit;
      if (!misfit) continue;
      report({
        span: spanOf(command.call),
        message: `This release script never deletes the lock: ${misfit}. Every release fails, so each lock stays held until its TTL runs out, blocking every other worker that long (and the error may skip what follows the release). Pass the lock key as a key: eval(script, { keys: [key], arguments: [token] }) in node-redis, eval(script, 1, key, token) in ioredis.`,
      });
    }
    const lineOf = (node: Node) => model.sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    for (const release of model.releases) {
      const read = comparesWhatItRead(model, release);
      if (read) {
        report({
          span: spanOf(release.call),
          message: `This compare-and-delete compares ${describeKey(release.key)} with the value just read from it, not with this process's token: the compare always passes, so it deletes the lock whoever holds it. Pass the token the acquire stored (keep it from the acquire, or hand it to the release).`,
          related: [{ span: spanOf(read.call), message: 'the GET whose answer is compared' }],
        });
        continue;
      }
      // A helper's unchecked DEL is reported in the helper; called twice on one path, at the second call too.
      const viaUnchecked = release.kind === 'helper' && release.via?.ownerChecked === false;
      if ((release.ownerChecked && !viaUnchecked) || isForcedRelease(model, release)) continue;
      // A sweep of the keys a KEYS/SCAN listing returned releases no one holder's lock.
      if (release.command && deletesListedKeys(release.command.keys)) continue;
      if (dampsOnly(model, release) || scriptlessFallback(model, release)) continue;
      // The DEL that breaks a lock judged stale after a GET: atomic-takeover's finding, with the race it opens.
      if (release.command && breaksStaleLock(model, release.command)) continue;
      const first = releasedBefore(release, model.releases);
      const again = first
        ? `This releases ${describeKey(release.key)} a second time: the try already released it on line ${lineOf(first.call)}, so here the lock is free and another process may have taken it in between. `
        : '';
      if (viaUnchecked) {
        if (first) {
          report({
            span: spanOf(release.call),
            message: `${again}${release.via?.returns ? `The release ${release.via.name}(...) hands back` : `${release.via?.name}(...)`} deletes the key whoever holds it (its DEL compares no token), so this call removes the new holder's lock. Release once, in the finally, and compare the token in the helper.`,
            related: [{ span: spanOf(first.call), message: 'the first release' }],
          });
        }
        continue;
      }
      const key = describeKey(release.key);
      if (release.failedAcquire) {
        report({
          span: spanOf(release.call),
          message: `${release.command?.name ?? 'DEL'} ${key} runs where the acquire did not take it: that key is held by another process (or is one this request has not reached yet), so this deletes their lock and lets a second holder in. On this path delete only the keys this request took, each with a compare-and-delete of its own token.`,
          related: [{ span: spanOf(release.failedAcquire.call), message: 'the acquire that failed' }],
          fix: () => fix(model, release, server),
        });
        continue;
      }
      const command = release.kind === 'script' ? 'This Lua script deletes' : `${release.command?.name ?? 'DEL'} deletes`;
      const getCompare = release.getCompare;
      const message = getCompare
        ? `GET, compare, then ${release.command?.name ?? 'DEL'} ${key} takes two round trips: the lock can expire and be acquired by another process between the GET and the delete, which then removes their lock. Compare and delete atomically in one Lua script (or DELEX key IFEQ token on Redis 8.4+).`
        : `${again}${command} ${key} whoever holds it. If this process's lock expired (a slow step, a GC pause) and another process acquired it, this removes their lock and lets a third in. Delete only if the value is still this process's token, atomically (Lua compare-and-delete, or DELEX key IFEQ token on Redis 8.4+).`;
      report({
        span: spanOf(release.call),
        message,
        related: getCompare ? [{ span: spanOf(getCompare.get), message: 'the separate GET' }] : [],
        fix: () => fix(model, release, server),
      });
    }
  },
};
