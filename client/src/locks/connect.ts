// Builds ioredis clients from ConnectionOptions: single node (redis:// or rediss:// URL), Cluster seeds or
// Sentinel. Every client fails fast while disconnected (no offline queue, no command retries) and reconnects
// with a bounded backoff, so a dead server never causes a retry storm or a hung view.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { LockwiseError } from './errors';
import type { ConnectionOptions } from './types';

export interface Endpoint {
  host: string;
  port: number;
}

export type Topology = 'single' | 'cluster' | 'sentinel';

/** ConnectionOptions checked and merged with what the URL carries; TLS files already read. */
export interface ResolvedConnection {
  topology: Topology;
  endpoints: Endpoint[];
  sentinelName?: string;
  username?: string;
  password?: string;
  db?: number;
  tls?: TlsOptions;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  readOnly: boolean;
  /** Where we connect, without credentials. */
  target: string;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;
/** Reconnect attempts after a connection loss before giving up until the next explicit use. */
export const MAX_RECONNECT_ATTEMPTS = 10;

/** Exponential backoff from 100 ms, capped at 5 s, with jitter so many clients do not reconnect in step. */
export function reconnectDelay(attempt: number): number | null {
  if (attempt > MAX_RECONNECT_ATTEMPTS) return null;
  return Math.min(100 * 2 ** (attempt - 1), 5_000) + Math.floor(Math.random() * 100);
}

const usage = (what: string, check: string) => new LockwiseError('config', what, check);

export function parseEndpoint(text: string, defaultPort: number): Endpoint {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text.trim()) ?? /^([^:]+)(?::(\d+))?$/.exec(text.trim());
  if (!m || !m[1]) throw usage(`"${text}" is not a host:port address.`, 'Write it as host:port, e.g. 10.0.0.5:7000.');
  const port = m[2] ? Number(m[2]) : defaultPort;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw usage(`"${text}" has an invalid port.`, 'Use a port between 1 and 65535.');
  return { host: m[1], port };
}

function readTlsFile(label: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw usage(`Cannot read the TLS ${label} file "${path}" (${code}).`, 'Check the path and that this user may read it.');
  }
}

function tlsOptions(options: ConnectionOptions, urlWantsTls: boolean): TlsOptions | undefined {
  const t = options.tls;
  if (!urlWantsTls && !t?.enabled) return undefined;
  if ((t?.certFile && !t.keyFile) || (!t?.certFile && t?.keyFile)) {
    throw usage('A TLS client certificate needs both the certificate file and its key file.', 'Give both, or neither.');
  }
  return {
    ca: t?.caFile ? readTlsFile('CA', t.caFile) : undefined,
    cert: t?.certFile ? readTlsFile('certificate', t.certFile) : undefined,
    key: t?.keyFile ? readTlsFile('key', t.keyFile) : undefined,
    servername: t?.servername,
    // Verification stays on unless the caller explicitly turned it off.
    rejectUnauthorized: t?.rejectUnauthorized !== false,
  };
}

function parseUrl(url: string): { endpoint: Endpoint; tls: boolean; username?: string; password?: string; db?: number } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Never echo the URL itself: it may carry a password.
    throw usage('The Redis URL is not a valid URL.', 'Write it as redis://[user[:password]@]host[:port][/db] or rediss://... for TLS.');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw usage(`The Redis URL must start with redis:// or rediss://, not ${u.protocol}//.`, 'Use rediss:// for TLS.');
  }
  const dbText = u.pathname.replace(/^\//, '');
  const db = dbText ? Number(dbText) : undefined;
  if (db !== undefined && (!Number.isInteger(db) || db < 0)) throw usage(`"/${dbText}" is not a database number.`, 'Use /0, /1, ...');
  return {
    endpoint: { host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: u.port ? Number(u.port) : 6379 },
    tls: u.protocol === 'rediss:',
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db,
  };
}

const show = (e: Endpoint) => (e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

export function resolveConnection(options: ConnectionOptions): ResolvedConnection {
  const chosen = [options.url, options.cluster?.length, options.sentinel].filter(Boolean).length;
  if (chosen !== 1) {
    throw usage('Give exactly one of a Redis URL, Cluster seed nodes or Sentinel addresses.', chosen ? 'Remove the others.' : 'For a local server: redis://127.0.0.1:6379.');
  }
  const base = {
    username: options.username,
    password: options.password,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    readOnly: options.readOnly === true,
  };
  if (options.url) {
    const u = parseUrl(options.url);
    const db = options.db ?? u.db ?? 0;
    const tls = tlsOptions(options, u.tls);
    return {
      ...base,
      topology: 'single',
      endpoints: [u.endpoint],
      username: options.username ?? u.username,
      password: options.password ?? u.password,
      db,
      tls,
      target: `${tls ? 'rediss' : 'redis'}://${show(u.endpoint)}/${db}`,
    };
  }
  if (options.cluster?.length) {
    if (options.db) throw usage('Redis Cluster only has database 0.', 'Remove the database number.');
    const endpoints = options.cluster.map((s) => parseEndpoint(s, 6379));
    return { ...base, topology: 'cluster', endpoints, tls: tlsOptions(options, false), target: `cluster ${endpoints.map(show).join(',')}` };
  }
  const sentinel = options.sentinel!;
  if (!sentinel.name) throw usage('Sentinel needs the master name.', 'Give the name the sentinels monitor (e.g. mymaster).');
  const endpoints = sentinel.sentinels.map((s) => parseEndpoint(s, 26379));
  if (!endpoints.length) throw usage('Sentinel needs at least one sentinel address.', 'Give host:port of a sentinel.');
  return {
    ...base,
    topology: 'sentinel',
    endpoints,
    sentinelName: sentinel.name,
    db: options.db ?? 0,
    tls: tlsOptions(options, false),
    target: `sentinel ${sentinel.name} via ${endpoints.map(show).join(',')}`,
  };
}

/** Options shared by every connection Lockwise opens. */
function nodeOptions(r: ResolvedConnection): RedisOptions {
  return {
    username: r.username,
    password: r.password,
    tls: r.tls,
    connectTimeout: r.connectTimeoutMs,
    commandTimeout: r.commandTimeoutMs,
    lazyConnect: true,
    // Fail fast while disconnected instead of queueing commands for a server that may never come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // The ready check sends INFO; skipping it keeps the least-privilege ACL small.
    enableReadyCheck: false,
    // RESP2 keeps reply shapes (HGETALL, ZRANGE WITHSCORES) identical on every server and proxy.
    protocol: 2,
    disableClientInfo: true,
    connectionName: 'lockwise',
    autoResubscribe: false,
  };
}

/** The client that routes keyed commands (scripts, single reads): a Redis, or a Cluster. */
export function createRouter(r: ResolvedConnection): Redis | Cluster {
  if (r.topology === 'cluster') {
    const { enableOfflineQueue: _ignored, ...redisOptions } = nodeOptions(r);
    return new Cluster(r.endpoints, {
      redisOptions,
      lazyConnect: true,
      enableOfflineQueue: false,
      enableReadyCheck: false,
      scaleReads: 'master',
      clusterRetryStrategy: (times) => reconnectDelay(times),
      slotsRefreshTimeout: r.connectTimeoutMs,
    });
  }
  if (r.topology === 'sentinel') {
    return new Redis({
      ...nodeOptions(r),
      db: r.db,
      retryStrategy: reconnectDelay,
      sentinels: r.endpoints,
      name: r.sentinelName,
      sentinelRetryStrategy: reconnectDelay,
      sentinelCommandTimeout: r.commandTimeoutMs,
      // A TLS deployment is assumed to use TLS for its sentinels as well.
      enableTLSForSentinelMode: r.tls !== undefined,
      sentinelTLS: r.tls,
    });
  }
  const [endpoint] = r.endpoints;
  return new Redis({ ...nodeOptions(r), ...endpoint, db: r.db, retryStrategy: reconnectDelay });
}

/**
 * A direct connection to one Cluster master, for SCAN and the per-batch pipelines. No automatic
 * reconnect: each listing tries a dead master once and reports it, which bounds the load by design.
 */
export function createMasterClient(r: ResolvedConnection, endpoint: Endpoint): Redis {
  return new Redis({ ...nodeOptions(r), ...endpoint, retryStrategy: () => null });
}

export const endpointName = show;
