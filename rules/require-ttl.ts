// An NX acquire that never gets an expiry: if the holder dies, the lock is held forever.
import type { Acquire, LockModel } from './engine/model';
import { ts } from './engine/typescript';
import { isCallback, literalNumber, spanOf, unwrap, type Node } from './engine/nodes';
import { isLockAcquire, isRedisAcquire, clientReceiver } from './engine/queries';
import { atomicSet } from './fixes/text';
import { resultUsedOnlyAsTruthy } from './fixes/truthiness';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';
import { secondsGivenMilliseconds, secondsTtls } from './engine/ttl-units';

const DEFAULT_TTL_MS = '30000';

function fix(model: LockModel, acquire: Acquire): Fix | undefined {
  const receiver = clientReceiver(acquire);
  // A callback (node_redis v3) would be dropped by the rewritten call.
  if (acquire.kind === 'lua' || acquire.command?.batch || !receiver || !acquire.key || !acquire.token || acquire.call.arguments.some(isCallback)) return undefined;
  if (acquire.kind === 'setnx' && !resultUsedOnlyAsTruthy(acquire)) return undefined;
  return {
    title: `Add a ${Number(DEFAULT_TTL_MS) / 1000} s TTL (SET ... NX PX ${DEFAULT_TTL_MS}); set it to the work's longest duration`,
    isPreferred: true,
    edits: [{ ...spanOf(acquire.call), newText: atomicSet(model.style, receiver, acquire.key.node.getText(), acquire.token.getText(), 'PX', DEFAULT_TTL_MS) }],
  };
}

const FOREVER = /^(?:Number\.MAX_SAFE_INTEGER|Number\.MAX_VALUE|Infinity|Number\.POSITIVE_INFINITY)$/;
/** A redlock duration longer than a day is no expiry for a crashed holder: it outlives every incident. */
const DAY_MS = 86_400_000;

/** The duration of redlock's acquire/using/lock when it is "forever" (MAX_SAFE_INTEGER, Infinity, > a day). */
function foreverDuration(acquire: Acquire, model: LockModel): Node | undefined {
  if (acquire.kind !== 'redlock' && acquire.kind !== 'redlock-using') return undefined;
  const duration = acquire.call.arguments[1];
  if (!duration) return undefined;
  let n = unwrap(duration);
  if (ts.isIdentifier(n) && !FOREVER.test(n.text)) n = unwrap(model.lookup(n) ?? n);
  const text = n.getText().replace(/\s+/g, '');
  if (FOREVER.test(text)) return duration;
  const value = numberOf(n);
  // A lock whose object is dropped (`redlock.acquire([key], 30 days).then(() => enqueueOnce())`) can never
  // be released: a run-once guard for that long, whose duration is what it means, not a crashed holder's wait.
  if (acquire.kind === 'redlock' && dropsLockObject(acquire)) return undefined;
  return value !== undefined && value > DAY_MS ? duration : undefined;
}

/** The acquire's lock object is thrown away: not kept, or handed to a `.then` callback that takes no parameter. */
function dropsLockObject(acquire: Acquire): boolean {
  if (acquire.result.kind === 'discarded') return true;
  const access = acquire.call.parent;
  const then = access && ts.isPropertyAccessExpression(access) && access.name.text === 'then' ? access.parent : undefined;
  const callback = then && ts.isCallExpression(then) ? then.arguments[0] && unwrap(then.arguments[0]) : undefined;
  return !!callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) && callback.parameters.length === 0;
}

/** A number written as a literal or a product or sum of literals (`7 * 86_400_000`). */
function numberOf(node: Node): number | undefined {
  const n = unwrap(node);
  if (!ts.isBinaryExpression(n)) return literalNumber(n);
  const [left, right] = [numberOf(n.left), numberOf(n.right)];
  if (left === undefined || right === undefined) return undefined;
  if (n.operatorToken.kind === ts.SyntaxKind.AsteriskToken) return left * right;
  return n.operatorToken.kind === ts.SyntaxKind.PlusToken ? left + right : undefined;
}

export const requireTtl: Rule = {
  id: 'require-ttl',
  defaultSeverity: 'error',
  summary: 'An NX acquire that never gets an expiry: if the holder dies, the lock is never freed.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      if (!isRedisAcquire(acquire) || acquire.hasTtl || acquire.laterExpire || !isLockAcquire(model, acquire)) continue;
      const key = describeKey(acquire.key);
      const what = acquire.kind === 'lua' ? 'This Lua script acquires' : acquire.kind === 'setnx' ? 'SETNX acquires' : 'SET NX acquires';
      report({
        span: spanOf(acquire.call),
        message: `${what} ${key} with no expiry. If this process crashes or is killed before it releases, the lock is held forever and every other worker waits on it (PTTL -1). Acquire with SET key token NX PX ttl.`,
        fix: () => fix(model, acquire),
      });
    }
    // A TTL in the wrong unit: given in milliseconds where Redis reads seconds, 1000 times too long.
    const lockTtls = [
      ...model.acquires.filter((a) => isRedisAcquire(a) && isLockAcquire(model, a)).flatMap((a) => [a.command, a.laterExpire]),
      ...model.extends.map((e) => e.command),
    ];
    for (const command of new Set(lockTtls)) {
      const [unit, msUnit] = command?.set?.setex ? ['SETEX', 'PSETEX'] : command?.name === 'SET' ? ['EX', 'PX'] : command?.name === 'EXPIRE' ? ['EXPIRE', 'PEXPIRE'] : ["the script's EXPIRE or EX", 'PEXPIRE or PX'];
      for (const value of secondsTtls(command)) {
        const why = secondsGivenMilliseconds(value, model.commands);
        if (!why) continue;
        report({
          span: spanOf(value),
          message: `This lock's TTL ${value.getText()} is given to ${unit}, which Redis reads in seconds, but ${why}. The lock lives 1000 times longer than meant: if the holder crashes, every other worker waits hours instead of seconds. Give milliseconds with ${msUnit}, or convert to seconds (Math.ceil(ms / 1000)).`,
        });
      }
    }
    for (const acquire of model.acquires) {
      const forever = foreverDuration(acquire, model);
      if (!forever) continue;
      report({
        span: spanOf(forever),
        message: `This redlock lock on ${describeKey(acquire.key)} lasts ${forever.getText()} ms: in effect it never expires. If this process crashes or is killed before it releases, every other process waits on it (or fails to acquire) until an operator deletes the key. Give it a TTL the work can finish in, and extend it while the work runs (redlock.using() does).`,
      });
    }
  },
};
