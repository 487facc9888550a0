// Servers with native owner-checked commands: Valkey 9 (DELIFEQ key token, SET ... IFEQ since 8.1) and
// Redis 8.4 (DELEX key IFEQ token, SET ... IFEQ). The guarded release and extend of a plain string lock
// use them when COMMAND INFO shows them, and the Lua scripts otherwise (Redis before 8.4, Valkey before
// 9, and any user whose ACL does not allow COMMAND INFO). Asked once per connection.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

export interface NativeSupport {
  /** The compare-and-delete command the server has, if any. */
  release?: 'DELIFEQ' | 'DELEX';
  /** SET ... IFEQ ... PX: on every server that has either command. */
  extend: boolean;
}

export const NO_NATIVE: NativeSupport = { extend: false };

/** COMMAND INFO DELIFEQ DELEX answers one entry per name, null for a command the server lacks. */
export function supportFrom(reply: unknown): NativeSupport {
  if (!Array.isArray(reply)) return NO_NATIVE;
  const has = (i: number) => Array.isArray(reply[i]) && reply[i].length > 0;
  const release = has(0) ? 'DELIFEQ' : has(1) ? 'DELEX' : undefined;
  return release ? { release, extend: true } : NO_NATIVE;
}

const asked = new WeakMap<object, Promise<NativeSupport>>();

export function nativeSupport(router: Redis | Cluster): Promise<NativeSupport> {
  let support = asked.get(router);
  if (!support) {
    support = router.call('COMMAND', 'INFO', 'DELIFEQ', 'DELEX').then(supportFrom, () => NO_NATIVE);
    asked.set(router, support);
  }
  return support;
}

/** Replies 1 when it deleted the key (the token matched), 0 otherwise. */
export function nativeReleaseCommand(command: 'DELIFEQ' | 'DELEX', key: string, token: string): string[] {
  return command === 'DELIFEQ' ? ['DELIFEQ', key, token] : ['DELEX', key, 'IFEQ', token];
}

/** Replies OK when the token matched (the value stays the token, the TTL becomes ttlMs), nil otherwise. */
export function nativeExtendCommand(key: string, token: string, ttlMs: number): string[] {
  return ['SET', key, token, 'IFEQ', token, 'PX', String(ttlMs)];
}
