// Fix text for the servers with native owner-checked commands (config "server"), and the one generic
// call each client writes any command with: ioredis call(...), node-redis sendCommand([...]), GLIDE
// customCommand([...]). Valkey 9: DELIFEQ key token; Redis 8.4: DELEX key IFEQ token; both: SET key
// token IFEQ token PX ttl (Valkey has SET IFEQ since 8.1).
import type { ClientStyle } from '../engine/commands';
import type { ServerKind } from '../config';

/** `words` are source texts (quoted command names, key and token expressions). */
export function commandCall(style: ClientStyle, receiver: string, words: string[]): string {
  if (style === 'node-redis') return `${receiver}.sendCommand([${words.join(', ')}])`;
  if (style === 'glide') return `${receiver}.customCommand([${words.join(', ')}])`;
  return `${receiver}.call(${words.join(', ')})`;
}

/** sendCommand and customCommand take strings only. */
export function argText(style: ClientStyle, expression: string): string {
  return style === 'ioredis' ? expression : `String(${expression})`;
}

export type NativeServer = Exclude<ServerKind, 'redis'>;

export function nativeRelease(style: ClientStyle, receiver: string, key: string, token: string, server: NativeServer): string {
  return commandCall(style, receiver, server === 'valkey-9' ? ["'DELIFEQ'", key, token] : ["'DELEX'", key, "'IFEQ'", token]);
}

export function nativeExtend(style: ClientStyle, receiver: string, key: string, token: string, ttlMs: string): string {
  return commandCall(style, receiver, ["'SET'", key, token, "'IFEQ'", token, "'PX'", argText(style, ttlMs)]);
}

export function releaseFixTitle(server: ServerKind): string {
  if (server === 'valkey-9') return 'Release with DELIFEQ on the token (Valkey 9)';
  if (server === 'redis-8.4') return 'Release with DELEX ... IFEQ on the token (Redis 8.4)';
  return 'Release with a Lua compare-and-delete on the token';
}

export function extendFixTitle(server: ServerKind): string {
  return server === 'redis' ? 'Extend with a Lua compare-and-pexpire on the token' : `Extend with SET ... IFEQ ... PX on the token (${server === 'valkey-9' ? 'Valkey 8.1+' : 'Redis 8.4'})`;
}
