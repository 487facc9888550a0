// SETNX (or SET NX without a TTL) followed by a separate EXPIRE: two commands, so a crash between
// them leaves a lock with no TTL that no one will ever free.
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, contains, isCallback, spanOf, unwrap, unwrapAwait, valueCarrier, type Node } from './engine/nodes';
import { isGuard } from './engine/paths';
import { isPlainReference, isRedisAcquire, clientReceiver } from './engine/queries';
import { tokenWeakness } from './engine/token-strength';
import type { TtlUnit } from './engine/set-options';
import { atomicSet, guardedRelease, removeStatement } from './fixes/text';
import { freshToken } from './fixes/token';
import { resultUsedOnlyAsTruthy } from './fixes/truthiness';
import type { Rule } from './rule';
import type { Fix, TextEdit } from './types';
import { describeKey, looksLikeLockKey, sameKey } from './engine/keys';
import { takeovers } from './engine/takeover';
import { expiryOf, spelledName } from './engine/commands';
import { seedsCounter } from './engine/markers';

/** The statement to delete with the EXPIRE: the statement itself, or an `if (ok)` that only wraps it. */
function expireStatementToRemove(call: Node): Node | undefined {
  const statement = ancestorWhere<ts.ExpressionStatement>(call, ts.isExpressionStatement);
  if (!statement) return undefined;
  if (unwrapAwait(statement.expression) !== call) return undefined;
  const parent = statement.parent;
  const ifStatement = ts.isBlock(parent) && parent.statements.length === 1 ? parent.parent : parent;
  if (ts.isIfStatement(ifStatement) && !ifStatement.elseStatement) return ifStatement;
  return ts.isBlock(parent) || ts.isSourceFile(parent) ? statement : undefined;
}

function fix(model: LockModel, acquire: Acquire): Fix | Fix[] | string | undefined {
  const expire = acquire.laterExpire;
  const receiver = clientReceiver(acquire);
  if (!expire || !acquire.token || !acquire.key) return undefined;
  if (expire.batch || acquire.command?.batch) return 'No automatic fix: the acquire is inside a MULTI or pipeline; take the lock with one SET key token NX PX ttl before it.';
  if (acquire.command?.wrapped) return `No automatic fix: the acquire goes through the project's wrapper ${acquire.call.expression.getText()}, which may not send SET with options; make it send one SET key token NX PX ttl.`;
  if (!receiver) return 'No automatic fix: the acquire is not a method call on a client.';
  if (acquire.call.arguments.some(isCallback)) return 'No automatic fix: the acquire answers through a callback (node_redis v3); send one SET key token NX PX ttl with that callback.';
  if (acquire.kind === 'setnx' && !resultUsedOnlyAsTruthy(acquire)) return 'No automatic fix: the SETNX reply (1/0) is used as a number; SET NX replies OK/null, so rewrite that use by hand.';
  const expiry = expiryOf(expire);
  const ttl = expiry?.value;
  const unit = expiry?.unit;
  const remove = expireStatementToRemove(expire.call);
  if (!ttl || !unit || !remove || remove.getStart() < acquire.call.end) return 'No automatic fix: the EXPIRE is not a statement of its own after the acquire.';
  const text = atomicSet(model.style, receiver, acquire.key.node.getText(), acquire.token.getText(), unit, ttl.getText());
  const atomic: Fix = {
    title: `Acquire with one SET ... NX ${unit} (atomic TTL)`,
    isPreferred: true,
    edits: [{ ...spanOf(acquire.call), newText: text }, removeStatement(remove)],
  };
  const safe = safeLock(model, acquire, receiver, unit, ttl.getText(), removeStatement(remove));
  return safe ? [atomic, safe] : atomic;
}

/**
 * "Make this a safe lock": the atomic acquire, a fresh random token when the one written is not unique
 * (or is not in a variable), and every plain DEL of the lock in this function compared against it.
 */
function safeLock(model: LockModel, acquire: Acquire, receiver: string, unit: TtlUnit, ttl: string, removeExpire: TextEdit): Fix | undefined {
  const token = acquire.token!;
  const key = acquire.key!;
  const weak = !!tokenWeakness(token, acquire.fn, model.lookup);
  const releases = model.releasesOn(key).filter((r) => r.fn === acquire.fn && (r.kind === 'del' || r.kind === 'unlink') && !r.getCompare && !r.command?.batch &&
    r.command?.keys.length === 1 && ts.isExpressionStatement(valueCarrier(r.call).parent) && r.call.pos > acquire.call.end);
  if (!weak && releases.length === 0) return undefined;
  const fresh = weak || !isPlainReference(token) ? freshToken(model, acquire, isPlainReference(token) ? unwrap(token).getText() : undefined) : undefined;
  if ((weak || !isPlainReference(token)) && !fresh) return undefined;
  const tokenText = fresh?.name ?? unwrap(token).getText();
  const edits: TextEdit[] = [...(fresh?.declare ?? []), { ...spanOf(acquire.call), newText: atomicSet(model.style, receiver, key.node.getText(), tokenText, unit, ttl) }, removeExpire];
  for (const release of releases) {
    const releaseReceiver = clientReceiver(release);
    const keyNode = release.command?.keys[0];
    if (!releaseReceiver || !keyNode) return undefined;
    const guarded = guardedRelease(model, releaseReceiver, keyNode.getText(), tokenText);
    if (release === releases[0]) edits.push(...guarded.edits);
    edits.push({ ...spanOf(release.call), newText: guarded.call });
  }
  return { title: 'Make this a safe lock (atomic TTL, random token, compare-and-delete release)', unattended: false, edits };
}

/**
 * A set-once claim (`processed:<id>`, a dedup or idempotency marker): not named as a lock and never
 * released or extended. Its separate EXPIRE matters all the same: without it the claim never lapses.
 */
function claimOnly(model: LockModel, acquire: Acquire): boolean {
  const key = acquire.key!;
  return !looksLikeLockKey(key) && model.releasesOn(key).length === 0 && model.extendsOn(key).length === 0;
}

/** Does the acquire's MULTI or pipeline also queue commands on other keys (a data update, not a lock's batch)? */
function writesOtherData(model: LockModel, acquire: Acquire): boolean {
  const root = acquire.command?.batch?.root;
  const key = acquire.key && unwrap(acquire.key.node).getText();
  return !!root && model.commands.some((c) => c.batch?.root === root && !!c.keys[0] && unwrap(c.keys[0]).getText() !== key);
}

/**
 * The `if` around the EXPIRE that is not the acquire's own test (`if (reserved.modifiedCount) { expire }`),
 * when nothing after it in its block releases or expires the key: the path where it is false keeps the
 * key with no TTL.
 */
function onlyWhen(acquire: Acquire, expire: Node): ts.IfStatement | undefined {
  const statement = ancestorWhere<ts.IfStatement>(expire, (n) => ts.isIfStatement(n) && !contains(n, acquire.call));
  if (!statement || isGuard(statement, acquire) || (statement.elseStatement && mentionsKey(statement.elseStatement, acquire))) return undefined;
  if (!contains(acquire.fn, statement)) return undefined;
  const block = statement.parent;
  const after = ts.isBlock(block) ? block.statements.slice(block.statements.indexOf(statement) + 1) : [];
  return after.some((s) => mentionsKey(s, acquire)) ? undefined : statement;
}

/** Does the code name the acquired key again (a release or another EXPIRE of it)? */
function mentionsKey(node: Node, acquire: Acquire): boolean {
  const key = acquire.key ? unwrap(acquire.key.node).getText() : undefined;
  return !!key && node.getText().includes(key);
}

/** Does the acquire's function break a stale lock of the same key (GET the expiry the value carries, judge it, DEL or overwrite), before taking it or when it is refused? */
function breaksOwnStaleLock(model: LockModel, acquire: Acquire): boolean {
  const key = acquire.key;
  return !!key && takeovers(model).some(({ get }) => contains(acquire.fn, get.call) && sameKey(model.keyOf(get.keys[0]), key));
}

export const atomicAcquire: Rule = {
  id: 'atomic-acquire',
  defaultSeverity: 'error',
  unattendedFixes: true,
  summary: 'SETNX (or SET NX without TTL) and a separate EXPIRE: a crash in between leaves a lock that never expires.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      const expire = acquire.laterExpire;
      if (!isRedisAcquire(acquire) || !expire || !acquire.key) continue;
      const key = describeKey(acquire.key);
      const inBatch = !!expire.batch && !!acquire.command?.batch;
      const claim = claimOnly(model, acquire);
      // `MULTI SADD pending tx; SET count n NX; EXPIRE count ttl EXEC`: a data update seeding a value once
      // and refreshing its TTL on purpose, sent together (no crash between). Re-arming matters for a lock.
      if (inBatch && claim && writesOtherData(model, acquire)) continue;
      // `multi().set(k, v, 'NX').get(k).expire(k, ttl)`: get-or-create of a value read back in the same
      // transaction (markers.ts), whose TTL each use slides on purpose. No holder waits on it.
      if (inBatch && claim && acquire.marker) continue;
      // `setnx(key, -1); incr(key); expire(key, ttl)`: a retry counter seeded once, a count and not a claim.
      if (claim && seedsCounter(acquire)) continue;
      const broken = !inBatch && breaksOwnStaleLock(model, acquire);
      const why = broken
        ? `They are two commands: if the process dies between them, ${key} keeps no TTL, and only a break of it as a stale lock (the expiry its value carries, read and judged in a separate round trip: a race of its own) ever frees it.`
        : inBatch
        ? `Inside ${expire.batch?.kind === 'multi' ? 'MULTI' : 'a pipeline'} the ${spelledName(expire)} still runs when the acquire failed, re-arming the TTL of another holder's lock${expire.batch?.kind === 'pipeline' ? ', and a pipeline is not even a transaction' : ''}.`
        : claim
          ? `They are two commands: if the process dies between them, ${key} stays forever with no TTL, and every later claim of it is refused for good, not only until it was meant to expire.`
          : `They are two commands: if the process dies between them, ${key} stays locked forever with no TTL.`;
      const what = claim ? `Key ${key} is claimed` : `Lock ${key} is acquired`;
      const only = inBatch ? undefined : onlyWhen(acquire, expire.call);
      const partial = only
        ? ` And the ${spelledName(expire)} runs only when \`${only.expression.getText().replace(/\s+/g, ' ')}\`: on the other path the key keeps no TTL at all, with no crash needed.`
        : '';
      report({
        span: spanOf(acquire.call),
        message: `${what} without a TTL and given one by a separate ${spelledName(expire)}. ${why}${partial} Acquire with one SET key token NX PX ttl.`,
        related: [{ span: spanOf(expire.call), message: `the separate ${spelledName(expire)}` }],
        fix: () => fix(model, acquire),
      });
    }
  },
};
