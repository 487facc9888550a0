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
  /** A command without a reply after this long fails (default 5000 ms), so nothing hangs on a dead server. */
  commandTimeoutMs?: number;
  /** Refuse every write (release/extend) before it is sent. */
  readOnly?: boolean;
}

export type LockState = 'held' | 'expiring' | 'no-expiry' | 'renewed' | 'gone';

/** Who holds a lock, decoded from the raw value; `raw` is always kept alongside. */
export interface Holder {
  /** Which library's format the value shows evidence of ('lockwise', 'redis-semaphore', 'redisson', ...), 'token' for a bare random token, 'plain', 'json', 'unknown'. */
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
  /** Longest PTTL seen for this holder across refreshes (carried via `previous`); decides 'expiring'. */
  peakPttl?: number;
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
  /** remainingHolders: a Redisson read-write lock's other holders, who keep it. */
  | { outcome: 'released' | 'extended'; remainingHolders?: number }
  | { outcome: 'token-changed'; currentHolder: Holder; currentRaw: string }
  | { outcome: 'gone' };

/** Connection life cycle, for the status bar and the view's message node. */
export type ConnectionStatus = 'connecting' | 'ready' | 'reconnecting' | 'disconnected' | 'closed';

export interface ConnectionStateEvent {
  status: ConnectionStatus;
  /** Where we connect, without credentials: "redis://10.0.0.5:6379/0", "cluster 10.0.0.5:7000,...". */
  target: string;
  /** The last failure, already explained (what failed, what to check) and free of passwords. */
  error?: { kind: string; message: string };
}

/** One release/extend, as written to an audit log; the caller decides where (output channel, stderr, file). */
export interface AuditRecord {
  /** ISO 8601 time the operation finished. */
  time: string;
  action: 'release' | 'extend';
  target: string;
  key: string;
  /** The token the operator presented (what they saw in the panel). */
  token: string;
  /** The holder that token stands for. */
  oldHolder: Holder;
  ttlMs?: number;
  result: GuardedResult['outcome'] | 'error';
  /** When the token changed: who holds the lock now. */
  currentHolder?: Holder;
  error?: string;
}

/** An open connection to one Redis deployment (single node, Cluster or Sentinel-managed master). */
export interface LockConnection {
  readonly target: string;
  readonly status: ConnectionStatus;
  list(options?: ListOptions): Promise<ListResult>;
  /** Re-read one lock (for the confirmation before a release); undefined when the key is gone. */
  read(key: string): Promise<LockRow | undefined>;
  /** Delete the lock only if it still carries `token` (for a Redisson hash: the holder field). */
  release(key: string, token: string): Promise<GuardedResult>;
  /** Set a new TTL only if the lock still carries `token`. */
  extend(key: string, token: string, ttlMs: number): Promise<GuardedResult>;
  /** Returns a function that removes the listener. */
  onStateChange(listener: (event: ConnectionStateEvent) => void): () => void;
  onAudit(listener: (record: AuditRecord) => void): () => void;
  close(): Promise<void>;
}
