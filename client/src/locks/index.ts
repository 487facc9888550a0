// The vscode-free lock core: open a connection, list locks, re-read one, release or extend it guarded by
// its token. Used by the Redis Locks view, the CLI and the tests alike.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { auditRecord } from './audit';
import { createMasterClient, createRouter, endpointName, parseEndpoint, resolveConnection, type ResolvedConnection } from './connect';
import { explainError, LockwiseError, type ErrorContext } from './errors';
import { guardedExtend, guardedRelease, refuseReadOnly, type GuardedOutcome } from './guarded';
import { keySlot } from './fences';
import { holderFromToken } from './holders';
import { readOne } from './read';
import { listLocks, type MasterNode, type ScanContext } from './scan';
import type {
  AuditRecord,
  ConnectionOptions,
  ConnectionStateEvent,
  ConnectionStatus,
  GuardedResult,
  ListOptions,
  ListResult,
  LockConnection,
  LockRow,
} from './types';

export * from './types';
export { formatAuditLine } from './audit';
export { LockwiseError, redact, type LockErrorKind } from './errors';
export { parseLockwiseToken } from './holders';
export { DEFAULT_COUNT, DEFAULT_PATTERNS, DEFAULT_ROW_CAP } from './scan';
export { EXPIRING_FLOOR_MS, EXPIRING_FRACTION } from './states';
export { formatTtl } from './format';
export { escapeControlChars } from './display-text';
export { BROWSE_ACL_RULES, RELEASE_ACL_RULES } from './acl';

/** connect() only says "Connection is closed"; the 'error' event before it has the cause. */
async function connectExplained(client: Redis): Promise<void> {
  let cause: unknown;
  const onError = (err: unknown) => (cause ??= err);
  client.on('error', onError);
  try {
    await client.connect();
  } catch (err) {
    throw cause ?? err;
  } finally {
    client.off('error', onError);
  }
}

const refreshSlots = (cluster: Cluster) =>
  new Promise<void>((resolve, reject) => cluster.refreshSlotsCache((err) => (err ? reject(err) : resolve())));

class Connection implements LockConnection {
  status: ConnectionStatus = 'connecting';
  private lastError?: LockwiseError;
  /** Sentinel mode: why the last sentinel could not name the master (more precise than the retry error). */
  private sentinelError?: LockwiseError;
  private closed = false;
  private readonly stateListeners = new Set<(e: ConnectionStateEvent) => void>();
  private readonly auditListeners = new Set<(r: AuditRecord) => void>();
  /** Cluster only: our own direct connection to each master, for SCAN and pipelines. */
  private readonly masterClients = new Map<string, Redis>();

  constructor(
    private readonly resolved: ResolvedConnection,
    private readonly router: Redis | Cluster,
    private readonly errorContext: ErrorContext,
  ) {
    const on = router.on.bind(router) as (event: string, listener: (...args: unknown[]) => void) => void;
    on('ready', () => this.setStatus('ready'));
    on('reconnecting', () => this.setStatus('reconnecting'));
    on('close', () => this.setStatus(this.closed ? 'closed' : 'reconnecting'));
    // 'end': the bounded reconnect gave up; the next list/release tries once more.
    on('end', () => this.setStatus(this.closed ? 'closed' : 'disconnected'));
    on('error', (err) => this.noteError(err));
    on('node error', (err) => this.noteError(err));
    on('sentinelError', (err) => (this.sentinelError = this.explain(err)));
  }

  get target(): string {
    return this.resolved.target;
  }

  private explain = (err: unknown) => explainError(err, this.errorContext);

  /** Errors of one Cluster master name that master; elsewhere the connection target says it all. */
  private explainAt(err: unknown, node: string): LockwiseError {
    return this.resolved.topology === 'cluster' ? explainError(err, { ...this.errorContext, target: node }) : this.explain(err);
  }

  private emit(): void {
    const event: ConnectionStateEvent = { status: this.status, target: this.target };
    if (this.lastError && this.status !== 'ready') event.error = { kind: this.lastError.kind, message: this.lastError.message };
    for (const l of this.stateListeners) l(event);
  }

  private setStatus(status: ConnectionStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.emit();
  }

  private noteError(err: unknown): void {
    this.lastError = this.explain(err);
    if (this.status !== 'ready') this.emit();
  }

  /**
   * Connects and PINGs; the first 'error' event of any kind ends the attempt, so nothing retries in the
   * background at open, and a failed SELECT (database out of range), only ever reported as an event, counts.
   */
  async start(): Promise<void> {
    this.lastError = undefined;
    this.sentinelError = undefined;
    let fail: (err: unknown) => void = () => undefined;
    const firstError = new Promise<never>((_, reject) => (fail = reject));
    this.router.on('error', fail);
    // NOAUTH only shows on the first command.
    const connecting = this.router.connect().then(() => this.router.ping());
    connecting.catch(() => undefined); // the race below reports it
    try {
      await Promise.race([connecting, firstError]);
    } catch (err) {
      // connect() rejects with a bare "Connection is closed"; the events before it say why.
      throw this.sentinelError ?? this.lastError ?? this.explain(err);
    } finally {
      this.router.off('error', fail);
    }
    this.setStatus('ready');
  }

  /** Fails fast while reconnecting; after the bounded reconnect gave up, tries once more. */
  private async usable(): Promise<void> {
    if (this.closed) throw new LockwiseError('disconnected', `The connection to ${this.target} is closed.`, 'Connect again.');
    if (this.router.status === 'end') {
      this.setStatus('connecting');
      try {
        await this.start();
      } catch (err) {
        this.router.disconnect();
        throw this.explain(err);
      }
    }
    if (this.router.status !== 'ready') {
      const last = this.lastError ? ` Last error: ${this.lastError.message}` : '';
      throw new LockwiseError('disconnected', `Not connected to Redis at ${this.target} (${this.router.status}).`, `Lockwise reconnects with backoff; try again in a moment.${last}`);
    }
  }

  /** The masters to scan; for a Cluster also which master serves a key's slot. */
  private async masters(): Promise<Pick<ScanContext, 'masters' | 'ownerOf'>> {
    if (this.resolved.topology !== 'cluster') {
      const name = this.resolved.topology === 'single' ? endpointName(this.resolved.endpoints[0]!) : this.target;
      return { masters: [{ name, client: this.router as Redis }] };
    }
    const cluster = this.router as Cluster;
    await refreshSlots(cluster);
    // Masters come from the slot map, not from connected nodes, so a dead master is reported, not skipped.
    const names = [...new Set(cluster.slots.filter((s) => s?.length).map((s) => s[0]!))];
    for (const [name, client] of this.masterClients) {
      if (!names.includes(name)) {
        client.disconnect();
        this.masterClients.delete(name);
      }
    }
    const masters = await Promise.all(
      names.map(async (name): Promise<MasterNode> => {
        let client = this.masterClients.get(name);
        if (!client) {
          client = createMasterClient(this.resolved, parseEndpoint(name, 6379));
          client.on('error', () => undefined); // reported per listing instead
          this.masterClients.set(name, client);
        }
        if (client.status === 'wait' || client.status === 'end') {
          try {
            await connectExplained(client);
          } catch (err) {
            return { name, error: this.explainAt(err, name) };
          }
        }
        if (client.status !== 'ready') return { name, error: new LockwiseError('disconnected', `Master ${name} is not connected (${client.status}).`, '') };
        return { name, client };
      }),
    );
    const slots = cluster.slots;
    return { masters, ownerOf: (key) => slots[keySlot(key)]?.[0] };
  }

  async list(options?: ListOptions): Promise<ListResult> {
    await this.usable();
    try {
      return await listLocks({ ...(await this.masters()), explain: (err, node) => this.explainAt(err, node) }, options);
    } catch (err) {
      throw this.explain(err);
    }
  }

  async read(key: string): Promise<LockRow | undefined> {
    await this.usable();
    try {
      return await readOne(this.router, key);
    } catch (err) {
      throw this.explain(err);
    }
  }

  private async guarded(action: 'release' | 'extend', key: string, token: string, ttlMs: number | undefined, op: () => Promise<GuardedOutcome>): Promise<GuardedResult> {
    const record = (type: string, fields: { result?: GuardedResult; error?: string }) => {
      const r = auditRecord({ action, target: this.target, key, token, oldHolder: holderFromToken(key, type, token), ttlMs, ...fields });
      for (const l of this.auditListeners) l(r);
    };
    try {
      if (this.resolved.readOnly) throw refuseReadOnly(action, key);
      await this.usable();
      const { result, type } = await op();
      record(type, { result });
      return result;
    } catch (err) {
      const explained = this.explain(err);
      record('string', { error: explained.message });
      throw explained;
    }
  }

  release(key: string, token: string): Promise<GuardedResult> {
    return this.guarded('release', key, token, undefined, () => guardedRelease(this.router, key, token));
  }

  extend(key: string, token: string, ttlMs: number): Promise<GuardedResult> {
    return this.guarded('extend', key, token, ttlMs, () => guardedExtend(this.router, key, token, ttlMs));
  }

  onStateChange(listener: (event: ConnectionStateEvent) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onAudit(listener: (record: AuditRecord) => void): () => void {
    this.auditListeners.add(listener);
    return () => this.auditListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const client of this.masterClients.values()) client.disconnect();
    this.masterClients.clear();
    this.router.disconnect();
    this.setStatus('closed');
  }
}

/**
 * Connects and checks the connection with a PING. Rejects with a LockwiseError that says what failed and
 * what to check (refused, DNS, timeout, wrong password, NOAUTH, ACL, TLS); nothing keeps retrying then.
 */
export async function openLockConnection(options: ConnectionOptions): Promise<LockConnection> {
  const resolved = resolveConnection(options);
  const context: ErrorContext = { target: resolved.target, username: resolved.username, secrets: resolved.password ? [resolved.password] : [] };
  const connection = new Connection(resolved, createRouter(resolved), context);
  try {
    await connection.start();
  } catch (err) {
    await connection.close();
    throw explainError(err, context);
  }
  return connection;
}
