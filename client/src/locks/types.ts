// The vscode-free lock core's public shapes, shared by the Redis Locks view, the CLI and the tests.

/** How to reach Redis. Exactly one of url / cluster / sentinel decides the topology. */
export interface ConnectionOptions {
  /** redis:// or rediss:// URL (may carry user, password and db). */
  url?: string;
  /** Seed nodes of a Redis Cluster, "host:port". */
  cluster?: string[];
  /** Sentinels ("host:port") and the monitored master's name. */
  sentinel?: { sentinels: string[]; name: string };
  username?: string;
  /** From SecretStorage or REDIS_PASSWORD; never from settings files, never logged. */
  password?: string;
  db?: number;
  tls?: {
    enabled: boolean;
    caFile?: string;
    certFile?: string;
    keyFile?: string;
    servername?: string;
    /** Certificate verification is on unless this is explicitly false. */
    rejectUnauthorized?: boolean;
  };
  connectTimeoutMs?: number;
  /** Refuse every write (release/extend) before it is sent. */
  readOnly?: boolean;
}

export type LockState = 'held' | 'expiring' | 'no-expiry' | 'renewed' | 'gone';

/** Who holds a lock, decoded from the raw value; `raw` is always kept alongside. */
export interface Holder {
  /** Which library's format the value matched ('lockwise', 'redlock', 'redis-semaphore', 'redisson', ...; 'unknown'). */
  format: string;
  /** A short human label: "web-1 pid 4242", "redisson client 9f0c… thread 42", the raw string... */
  label: string;
  /** The token a guarded release/extend must present (for a Redisson hash: the field name). */
  token?: string;
  details?: Record<string, string>;
}

export interface LockRow {
  key: string;
  /** Redis TYPE: string, hash, zset, list... */
  type: string;
  /** PTTL in ms; -1 no expiry; -2 gone. */
  pttl: number;
  holder: Holder;
  /** The raw value as read: string value, or a JSON rendering of a hash/zset. */
  raw: string;
  state: LockState;
  /** A fencing counter found next to the lock (fence key -> current value). */
  fence?: { key: string; value: string };
  /** Cluster node "host:port" the key was read from. */
  node?: string;
}

export interface ListOptions {
  /** Globs for SCAN MATCH; default ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*']. */
  patterns?: string[];
  /** SCAN COUNT hint; default 1000. */
  count?: number;
  /** Stop collecting after this many rows and flag the result partial; default 5000. */
  rowCap?: number;
  /** Pause between SCAN batches in ms, for very large keyspaces; default 0. */
  pauseMs?: number;
  /** The previous listing, to detect renewals (TTL went up: a watchdog is alive). */
  previous?: readonly LockRow[];
}

export interface ListResult {
  rows: LockRow[];
  /** True when not every key could be seen: row cap reached or a node failed. */
  partial: boolean;
  /** Keys SCAN returned (before dedupe), across all nodes. */
  scanned: number;
  /** Per-node failures (Cluster master down...), never silent. */
  errors: { node: string; message: string }[];
}

/** Guarded release result, redsync convention: 1 released, 0 token changed, -1 already gone. */
export type GuardedResult =
  | { outcome: 'released' | 'extended' }
  | { outcome: 'token-changed'; currentHolder: Holder; currentRaw: string }
  | { outcome: 'gone' };
