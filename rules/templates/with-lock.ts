// withLock: run a function while holding a Redis lock, for ioredis (Redis or Cluster) and node-redis
// v4 and later. Added to this project by Lockwise; from now on it is your code.
// Guide (token format, fencing, errors, guarantees and limits):
// https://github.com/lockwise/lockwise/blob/main/rules/templates/with-lock.md
// Self-contained on purpose: it needs only node:crypto and node:os, no Redis client types.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** The part of an ioredis client (`Redis` or `Cluster`) that withLock uses. */
export interface IoredisLockClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** Any command: the native owner checks (see SERVER). */
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** The part of a node-redis v4+ client (or cluster) that withLock uses. */
export interface NodeRedisLockClient {
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** Any command (see SERVER): a client's takes (args), a cluster's (firstKey, isReadonly, args). */
  sendCommand(...args: never[]): Promise<unknown>;
}

export type LockClient = IoredisLockClient | NodeRedisLockClient;

export interface WithLockOptions {
  /** Lock lifetime in ms; renewed while `work` runs (unless `renew: false`). Required. */
  ttlMs: number;
  /** How long to keep trying when the lock is busy; 0 (default) tries once. */
  waitMs?: number;
  /** First retry delay in ms while waiting (default 50); doubles per attempt, with jitter. */
  retryDelayMs?: number;
  /** Upper bound of one retry delay in ms (default 1000). */
  maxRetryDelayMs?: number;
  /** Also increment a fencing counter in the same script as the acquire; passed as `lock.fence`. */
  fencing?: boolean;
  /** The fencing counter's key (default: see fenceKeyFor); requires `fencing: true`. */
  fenceKey?: string;
  /** Extend the lock about every ttlMs/3 while `work` runs (default true). */
  renew?: boolean;
  /**
   * Called when releasing fails (a client error or no reply within ttlMs). When given, withLock
   * returns work's value anyway; without it, withLock rejects with that LockReleaseError.
   * Either way a work error is never replaced: when work threw, its error is what withLock throws.
   */
  onReleaseError?: (error: LockReleaseError) => void;
}

export interface LockInfo {
  readonly key: string;
  /** The value stored in the key: see parseLockToken. */
  readonly token: string;
  /** With `fencing: true`, a number greater than every earlier holder's; pass it to the store you write. */
  readonly fence: number | undefined;
}

/** The lock was held by someone else for the whole of `waitMs`. */
export class LockBusyError extends Error {
  readonly key: string;
  readonly waitedMs: number;
  constructor(key: string, waitedMs: number) {
    super(`lock "${key}" is busy: not acquired after ${waitedMs} ms`);
    this.name = 'LockBusyError';
    this.key = key;
    this.waitedMs = waitedMs;
  }
}

/**
 * The lock is, or may be, no longer ours. `kind`: `expired` (the key is gone), `taken` (another
 * token holds it) or `unconfirmed` (no renewal succeeded in time; `cause` holds the last error).
 */
export class LockLostError extends Error {
  readonly key: string;
  readonly kind: 'expired' | 'taken' | 'unconfirmed';
  constructor(key: string, kind: LockLostError['kind'], detail: string, cause?: unknown) {
    super(`lock "${key}" lost: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'LockLostError';
    this.key = key;
    this.kind = kind;
  }
}

/** Releasing failed; the key expires by itself within ttlMs of the last renewal. */
export class LockReleaseError extends Error {
  readonly key: string;
  constructor(key: string, cause: unknown) {
    super(`lock "${key}" was not released: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'LockReleaseError';
    this.key = key;
  }
}

const TOKEN_VERSION = 'lw1';
const TOKEN_PATTERN = /^lw1:([^:]+):(\d+):([0-9a-f]{32})$/;

export interface LockTokenInfo {
  host: string;
  pid: number;
  /** 128 random bits, 32 lowercase hex digits: what makes the token unique. */
  nonce: string;
}

/** A new token `lw1:<host>:<pid>:<32 hex>`; the host is sanitised so that it holds no ':'. */
export function createLockToken(): string {
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-') || 'unknown';
  return `${TOKEN_VERSION}:${host}:${process.pid}:${randomBytes(16).toString('hex')}`;
}

/** Decodes a withLock token; undefined for anything else (another library's value). */
export function parseLockToken(value: string): LockTokenInfo | undefined {
  const match = TOKEN_PATTERN.exec(value);
  if (!match) return undefined;
  const [, host = '', pid = '', nonce = ''] = match;
  return { host, pid: Number(pid), nonce };
}

/**
 * The fencing counter's key for lock key K: `{K}:fence`, or `K:fence` when K already has a
 * `{hash tag}`, so that both keys map to one Redis Cluster slot (one script may touch both).
 */
export function fenceKeyFor(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  if (close > open + 1) return `${key}:fence`;
  // Without a tag, `{K}` hashes like K only if K holds no '}' (else the tag would end early).
  if (key.includes('}')) {
    throw new TypeError(`lock key "${key}" has a '}' but no hash tag: pass fenceKey explicitly`);
  }
  return `{${key}}:fence`;
}

export type LockServer = 'redis' | 'redis-8.4' | 'valkey-9';

/**
 * What renews and releases the lock, both only while it holds our token. 'redis': Lua scripts, which
 * every Redis and Valkey runs. 'redis-8.4' and 'valkey-9': the server's own commands, `SET key token
 * IFEQ token PX ttl` to renew and `DELEX key IFEQ token` (Redis 8.4) or `DELIFEQ key token` (Valkey 9)
 * to release. Lockwise wrote its "server" setting here; change it when your server changes.
 */
const SERVER: LockServer = 'redis';

// KEYS[1] lock, KEYS[2] fence counter; ARGV[1] token, ARGV[2] ttl ms. The counter only moves when
// the lock is taken, and nothing is written if INCR fails (scripts are not rolled back).
const ACQUIRE_FENCED = `if redis.call('exists', KEYS[1]) == 1 then return 0 end
local fence = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
return fence`;
// Replies: 1 done, 0 another token holds the key, -1 the key is gone.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return redis.call('exists', KEYS[1]) - 1`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return redis.call('exists', KEYS[1]) - 1`;

// ioredis clients (Redis and Cluster) have `call`; node-redis clients do not.
function isIoredis(client: LockClient): client is IoredisLockClient {
  return typeof (client as { call?: unknown }).call === 'function';
}

function runScript(client: LockClient, script: string, keys: string[], args: string[]): Promise<unknown> {
  return isIoredis(client)
    ? client.eval(script, keys.length, ...keys, ...args)
    : client.eval(script, { keys, arguments: args });
}

/** One command on `key`; a node-redis cluster (it has getSlotMaster) is told the key to route by. */
function runCommand(client: LockClient, key: string, command: string, args: string[]): Promise<unknown> {
  if (isIoredis(client)) return client.call(command, ...args);
  const send = client.sendCommand as (...params: unknown[]) => Promise<unknown>;
  const cluster = typeof (client as { getSlotMaster?: unknown }).getSlotMaster === 'function';
  return cluster ? send.call(client, key, false, [command, ...args]) : send.call(client, [command, ...args]);
}

/** After a native command's "no": 0 when another token holds the key, -1 when it is gone. */
async function notOurs(client: LockClient, key: string): Promise<number> {
  return Number(await runCommand(client, key, 'EXISTS', [key])) - 1;
}

/** Extends the lock to ttlMs if it holds our token: 1 done, 0 another token holds it, -1 it is gone. */
async function renewIfOurs(client: LockClient, lock: LockInfo, ttlMs: number): Promise<number> {
  if (SERVER === 'redis') return Number(await runScript(client, RENEW, [lock.key], [lock.token, String(ttlMs)]));
  // SET ... IFEQ replies OK when the value was our token, nil otherwise.
  const reply = await runCommand(client, lock.key, 'SET', [lock.key, lock.token, 'IFEQ', lock.token, 'PX', String(ttlMs)]);
  return reply === null || reply === undefined ? notOurs(client, lock.key) : 1;
}

/** Deletes the lock if it holds our token: 1 done, 0 another token holds it, -1 it is gone. */
async function releaseIfOurs(client: LockClient, lock: LockInfo): Promise<number> {
  if (SERVER === 'redis') return Number(await runScript(client, RELEASE, [lock.key], [lock.token]));
  // Both reply 1 when they deleted the key (its value was our token), 0 otherwise.
  const deleted = SERVER === 'valkey-9'
    ? await runCommand(client, lock.key, 'DELIFEQ', [lock.key, lock.token])
    : await runCommand(client, lock.key, 'DELEX', [lock.key, 'IFEQ', lock.token]);
  return Number(deleted) === 1 ? 1 : notOurs(client, lock.key);
}

async function trySet(client: LockClient, key: string, token: string, ttlMs: number): Promise<boolean> {
  const reply = isIoredis(client)
    ? await client.set(key, token, 'PX', ttlMs, 'NX')
    : await client.set(key, token, { NX: true, PX: ttlMs });
  return reply !== null && reply !== undefined;
}

// Timers must not keep the process alive by themselves; `unref` is absent where setTimeout returns a number.
function unref(timer: ReturnType<typeof setTimeout>): void {
  (timer as unknown as { unref?: () => void }).unref?.();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Settings {
  ttlMs: number;
  waitMs: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  fenceKey: string | undefined;
  renew: boolean;
}

function settingsFrom(key: string, options: WithLockOptions): Settings {
  const { ttlMs, waitMs = 0, retryDelayMs = 50, maxRetryDelayMs = 1000, fencing = false, renew = true } = options;
  if (typeof key !== 'string' || key === '') throw new TypeError('withLock: key must be a non-empty string');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 3) throw new RangeError('withLock: ttlMs must be an integer >= 3');
  for (const [name, value] of Object.entries({ waitMs, retryDelayMs, maxRetryDelayMs })) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`withLock: ${name} must be a finite number >= 0`);
  }
  if (options.fenceKey !== undefined && !fencing) throw new TypeError('withLock: fenceKey requires fencing: true');
  const fenceKey = fencing ? (options.fenceKey ?? fenceKeyFor(key)) : undefined;
  return { ttlMs, waitMs, retryDelayMs, maxRetryDelayMs, fenceKey, renew };
}

interface Acquired {
  fence: number | undefined;
  /** When the successful SET was sent: the TTL runs from no earlier than this. */
  sentAt: number;
}

/** One SET NX PX (or the fenced script) per attempt, with jittered exponential backoff until waitMs. */
async function acquire(client: LockClient, key: string, token: string, settings: Settings): Promise<Acquired> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    const sentAt = performance.now();
    if (settings.fenceKey === undefined) {
      if (await trySet(client, key, token, settings.ttlMs)) return { fence: undefined, sentAt };
    } else {
      const keys = [key, settings.fenceKey];
      const fence = Number(await runScript(client, ACQUIRE_FENCED, keys, [token, String(settings.ttlMs)]));
      if (fence > 0) return { fence, sentAt };
    }
    const waited = performance.now() - started;
    if (waited >= settings.waitMs) throw new LockBusyError(key, Math.ceil(waited));
    // "Equal jitter": at least half the backoff, so contenders spread out without spinning.
    const backoff = Math.min(settings.maxRetryDelayMs, settings.retryDelayMs * 2 ** Math.min(attempt, 30));
    await sleep(Math.min(backoff / 2 + Math.random() * (backoff / 2), settings.waitMs - waited));
  }
}

interface Watchdog {
  signal: AbortSignal;
  /** Stops renewing; the signal keeps its state. */
  stop(): void;
  /** Aborts the signal with `error` unless it is aborted already; returns the signal's reason. */
  lose(error: LockLostError): unknown;
}

/**
 * Renews about every ttl/3 with chained timers (a slow reply never overlaps the next renewal).
 * Aborts the signal when a renewal finds the lock gone or taken, or when none has succeeded by
 * ttl/6 before the lock may expire (errors and hung replies alike: that is when it may be gone).
 */
function startWatchdog(client: LockClient, lock: LockInfo, settings: Settings, sentAt: number): Watchdog {
  const controller = new AbortController();
  const every = Math.floor(settings.ttlMs / 3);
  let validUntil = sentAt + settings.ttlMs;
  let stopped = false;
  let lastError: unknown;
  let renewTimer: ReturnType<typeof setTimeout> | undefined;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    stopped = true;
    clearTimeout(renewTimer);
    clearTimeout(deadlineTimer);
  };
  const lose = (error: LockLostError): unknown => {
    stop();
    if (!controller.signal.aborted) controller.abort(error);
    return controller.signal.reason;
  };
  const armDeadline = () => {
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(() => {
      const detail = settings.renew
        ? 'no renewal succeeded before it could expire'
        : 'its TTL is running out (renew: false)';
      lose(new LockLostError(lock.key, 'unconfirmed', detail, lastError));
    }, Math.max(0, validUntil - every / 2 - performance.now()));
    unref(deadlineTimer);
  };
  const renewOnce = () => {
    const attemptAt = performance.now();
    // Everything is caught: a timer callback must never throw or leave a rejection unhandled.
    Promise.resolve()
      .then(() => renewIfOurs(client, lock, settings.ttlMs))
      .then(
        (status) => {
          if (stopped) return;
          if (status === 1) {
            validUntil = attemptAt + settings.ttlMs;
            armDeadline();
            schedule();
          } else if (status === 0) {
            lose(new LockLostError(lock.key, 'taken', 'another holder has it'));
          } else {
            lose(new LockLostError(lock.key, 'expired', 'the key is gone'));
          }
        },
        (error: unknown) => {
          lastError = error;
          if (!stopped) schedule();
        },
      );
  };
  const schedule = () => {
    renewTimer = setTimeout(renewOnce, every);
    unref(renewTimer);
  };

  armDeadline();
  if (settings.renew) schedule();
  return { signal: controller.signal, stop, lose };
}

type ReleaseOutcome = { released: true } | { released: false; problem: LockLostError | LockReleaseError };

/** Compare-and-delete; waits at most ttlMs for the reply (the key has expired by then anyway). */
async function release(client: LockClient, lock: LockInfo, ttlMs: number): Promise<ReleaseOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no reply within ${ttlMs} ms`)), ttlMs);
  });
  try {
    const reply = await Promise.race([releaseIfOurs(client, lock), timeout]);
    if (reply === 1) return { released: true };
    const kind = reply === 0 ? 'taken' : 'expired';
    const detail = reply === 0 ? 'another holder had it when work ended' : 'it had expired when work ended';
    return { released: false, problem: new LockLostError(lock.key, kind, detail) };
  } catch (error) {
    return { released: false, problem: new LockReleaseError(lock.key, error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` while holding the Redis lock `key` and returns its value.
 *
 * - Acquires with one `SET key token NX PX ttlMs` (or, with `fencing`, one script that also
 *   increments the fencing counter); retries with backoff for up to `waitMs`, then throws
 *   LockBusyError.
 * - While `work` runs, renews the lock about every ttlMs/3; if the lock is lost, or may be,
 *   `signal` aborts with a LockLostError: check `signal.aborted` / `signal.throwIfAborted()`
 *   between steps and pass `signal` to APIs that accept one.
 * - Releases with a compare-and-delete, so it never deletes another holder's lock.
 *
 * Outcome: if `work` throws, withLock throws that error. Otherwise it returns work's value when the
 * release found the lock still ours (so it was held throughout), throws a LockLostError when the lock
 * had expired or been taken, and on a release failure follows `onReleaseError`.
 */
export async function withLock<T>(
  client: LockClient,
  key: string,
  options: WithLockOptions,
  work: (signal: AbortSignal, lock: LockInfo) => Promise<T>,
): Promise<T> {
  const settings = settingsFrom(key, options);
  const token = createLockToken();
  const { fence, sentAt } = await acquire(client, key, token, settings);
  const lock: LockInfo = { key, token, fence };
  const watchdog = startWatchdog(client, lock, settings, sentAt);

  let value: T;
  try {
    value = await work(watchdog.signal, lock);
  } catch (workError) {
    watchdog.stop();
    const outcome = await release(client, lock, settings.ttlMs);
    if (!outcome.released && outcome.problem instanceof LockReleaseError) {
      try {
        options.onReleaseError?.(outcome.problem);
      } catch {
        // The work's error is the one to surface; a failing callback must not replace it.
      }
    }
    throw workError;
  }

  watchdog.stop();
  const outcome = await release(client, lock, settings.ttlMs);
  if (outcome.released) return value;
  if (outcome.problem instanceof LockLostError) throw watchdog.lose(outcome.problem);
  if (!options.onReleaseError) throw outcome.problem;
  options.onReleaseError(outcome.problem);
  return value;
}
