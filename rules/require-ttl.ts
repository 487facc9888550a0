// An NX acquire that never gets an expiry: if the holder dies, the lock is held forever.
import type { Acquire, LockModel } from './engine/model';
import { spanOf } from './engine/nodes';
import { isLockAcquire, isRedisAcquire, clientReceiver } from './engine/queries';
import { atomicSet } from './fixes/text';
import { resultUsedOnlyAsTruthy } from './fixes/truthiness';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';

const DEFAULT_TTL_MS = '30000';

function fix(model: LockModel, acquire: Acquire): Fix | undefined {
  const receiver = clientReceiver(acquire);
  if (acquire.kind === 'lua' || acquire.command?.batch || !receiver || !acquire.key || !acquire.token) return undefined;
  if (acquire.kind === 'setnx' && !resultUsedOnlyAsTruthy(acquire)) return undefined;
  return {
    title: `Add a ${Number(DEFAULT_TTL_MS) / 1000} s TTL (SET ... NX PX ${DEFAULT_TTL_MS}); set it to the work's longest duration`,
    isPreferred: true,
    edits: [{ ...spanOf(acquire.call), newText: atomicSet(model.style, receiver, acquire.key.node.getText(), acquire.token.getText(), 'PX', DEFAULT_TTL_MS) }],
  };
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
  },
};
