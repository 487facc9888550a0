// The panel's Redis side, vscode-free: one slot per configured connection, each with its core
// connection, status and last listing. It owns the reconnect policy (backoff; the next attempt only
// runs when the scheduler asks, i.e. while the view is visible) and keeps the last rows on screen,
// flagged, when a refresh fails. All Redis I/O goes through the lock core.
import { LockHistory } from '../locks/history';
import type { AuditRecord, ConnectionOptions, ConnectionStateEvent, LockConnection } from '../locks/types';
import { backoffDelay } from './backoff';
import type { ConnectionTarget } from './connection-targets';
import type { ConnectionStatus, ConnectionView, Listing } from './panel-state';
import type { RefreshReason } from './refresh-scheduler';
import type { PanelSettings } from './settings';

export interface SessionDeps {
  /** The core's `openLockConnection`. */
  open(options: ConnectionOptions): Promise<LockConnection>;
  /** The password for a target from SecretStorage; undefined when none is stored. */
  password(targetId: string): Promise<string | undefined>;
  /** Extra SCAN globs (from the workspace's lock sites), asked on connect, manual and settings refreshes. */
  extraPatterns?(): Promise<string[]>;
  /** Every guarded release/extend the core performed (the record names its target, without credentials). */
  audit(record: AuditRecord): void;
  /** Something the view shows changed. */
  onChange(): void;
}

const EXTRA_PATTERNS_WAIT_MS = 2000;

interface Slot {
  target: ConnectionTarget;
  /** JSON of the options, to notice a changed target on reconfigure. */
  signature: string;
  connection?: LockConnection;
  /** Removes the core listeners of `connection`. */
  unsubscribe?: () => void;
  status: ConnectionStatus;
  listing?: Listing;
  history: LockHistory;
}

/** Error kinds after which retrying with the same password and settings cannot succeed. */
const AUTH_FAILURES = new Set(['auth', 'noauth']);

/** The first sentence of an explained error ("Connection refused by 10.0.0.5:6379."): what failed. */
function firstSentence(text: string): string {
  return /^(.+?[.!?])(?:\s|$)/.exec(text)?.[1] ?? text;
}

export class LockSession {
  private slots: Slot[] = [];
  private active = false;
  private extra: string[] = [];

  constructor(
    private settings: PanelSettings,
    private readonly deps: SessionDeps,
  ) {
    this.slots = settings.targets.map((target) => this.newSlot(target));
  }

  get isActive(): boolean {
    return this.active;
  }

  get isConfigured(): boolean {
    return this.slots.length > 0;
  }

  /** Applies new settings: changed or removed targets are closed, new ones start like the others. */
  async configure(settings: PanelSettings): Promise<void> {
    this.settings = settings;
    for (const slot of this.slots) slot.history.setHeldLongMs(settings.heldLongMs);
    const old = new Map(this.slots.map((s) => [s.target.id, s]));
    this.slots = settings.targets.map((target) => {
      const slot = old.get(target.id);
      if (slot && slot.signature === JSON.stringify(target.options)) {
        old.delete(target.id);
        return slot;
      }
      return this.newSlot(target);
    });
    await Promise.all([...old.values()].map((slot) => this.drop(slot)));
    this.deps.onChange();
  }

  /** Starts browsing; the caller then requests a refresh with reason 'connect'. */
  connect(): void {
    this.active = true;
    for (const slot of this.slots) if (!slot.connection) slot.status = { phase: 'connecting' };
    this.deps.onChange();
  }

  async disconnect(): Promise<void> {
    this.active = false;
    await Promise.all(this.slots.map((slot) => this.drop(slot)));
    for (const slot of this.slots) {
      slot.status = { phase: 'disconnected' };
      slot.listing = undefined;
      slot.history.clear();
    }
    this.deps.onChange();
  }

  /** Drops one connection so the next refresh opens it again at once (its password changed). */
  async reset(targetId: string): Promise<void> {
    const slot = this.slots.find((s) => s.target.id === targetId);
    if (!slot) return;
    await this.drop(slot);
    slot.status = { phase: this.active ? 'connecting' : 'disconnected' };
    this.deps.onChange();
  }

  /** True when a reconnect attempt is due (the scheduler's tick turns this into a refresh). */
  retryDue(now: number): boolean {
    return this.active && this.slots.some((s) => !s.connection && s.status.retryAt !== undefined && s.status.retryAt <= now);
  }

  async refresh(reasons: ReadonlySet<RefreshReason>): Promise<void> {
    if (!this.active) return;
    const forced = reasons.has('manual') || reasons.has('connect') || reasons.has('settings');
    if (forced && this.settings.useLockSiteGlobs && this.deps.extraPatterns) await this.fetchExtraPatterns(this.deps.extraPatterns);
    await Promise.all(this.slots.map((slot) => this.refreshSlot(slot, forced)));
    this.deps.onChange();
  }

  views(): ConnectionView[] {
    const { writes } = this.settings;
    return this.slots.map((slot) => ({
      target: slot.target,
      status: slot.status,
      listing: slot.listing,
      history: slot.history,
      writable: writes.allowed,
      readOnlyReason: writes.allowed ? undefined : writes.reason,
    }));
  }

  /** The SCAN patterns in use: configured ones plus globs from the workspace's code. */
  patterns(): string[] {
    return [...this.settings.list.patterns, ...(this.settings.useLockSiteGlobs ? this.extra : [])];
  }

  /** The connection to run a guarded write on; throws a sentence for the user when there is none. */
  connectionFor(targetId: string): LockConnection {
    const slot = this.slots.find((s) => s.target.id === targetId);
    if (!slot?.connection) throw new Error(`Not connected to ${slot?.target.label ?? 'this Redis'}.`);
    return slot.connection;
  }

  targets(): ConnectionTarget[] {
    return this.slots.map((s) => s.target);
  }

  async dispose(): Promise<void> {
    this.active = false;
    await Promise.all(this.slots.map((slot) => this.drop(slot)));
  }

  /**
   * The language server may be down or busy with a workspace scan: browsing waits for its globs at
   * most EXTRA_PATTERNS_WAIT_MS and otherwise goes on with the globs it had.
   */
  private async fetchExtraPatterns(fetch: () => Promise<string[]>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), EXTRA_PATTERNS_WAIT_MS)));
    try {
      const globs = await Promise.race([fetch(), late]);
      if (globs) this.extra = globs;
    } catch {
      // Keep the previous globs; the configured patterns still apply.
    } finally {
      clearTimeout(timer);
    }
  }

  private newSlot(target: ConnectionTarget): Slot {
    return {
      target,
      signature: JSON.stringify(target.options),
      status: { phase: this.active ? 'connecting' : 'disconnected' },
      history: new LockHistory(this.settings.heldLongMs),
    };
  }

  private async refreshSlot(slot: Slot, forced: boolean): Promise<void> {
    // After a refused password only a user's action tries again: a manual refresh, Connect, a new password or new settings.
    if (slot.status.phase === 'auth-failed' && !forced) return;
    try {
      let connection = slot.connection;
      if (!connection) {
        const { retryAt } = slot.status;
        if (retryAt !== undefined && Date.now() < retryAt && !forced) return;
        const password = await this.deps.password(slot.target.id);
        connection = await this.deps.open({ ...slot.target.options, password });
        if (!this.wanted(slot)) {
          await connection.close();
          return;
        }
        this.attach(slot, connection);
      }
      const result = await connection.list({
        ...this.settings.list,
        patterns: this.patterns(),
        previous: slot.listing?.result.rows,
      });
      if (!this.wanted(slot)) return;
      const readAt = Date.now();
      slot.listing = { result, readAt };
      slot.history.observe(result, readAt);
      slot.status = { phase: 'connected' };
    } catch (err) {
      // Start over with a fresh connection after a backoff: a failed list usually means the link is gone.
      await this.drop(slot);
      if (!this.wanted(slot)) return;
      const attempt = (slot.status.attempt ?? 0) + 1;
      const error = err instanceof Error ? err.message : String(err);
      const text = { error, summary: firstSentence(error) };
      slot.status = AUTH_FAILURES.has((err as { kind?: string } | undefined)?.kind ?? '')
        ? { phase: 'auth-failed', ...text, attempt }
        : { phase: 'reconnecting', ...text, attempt, retryAt: Date.now() + backoffDelay(attempt) };
    }
  }

  private attach(slot: Slot, connection: LockConnection): void {
    slot.connection = connection;
    const offState = connection.onStateChange((event) => this.onState(slot, connection, event));
    const offAudit = connection.onAudit((record) => this.deps.audit(record));
    slot.unsubscribe = () => {
      offState();
      offAudit();
    };
  }

  /** Shows a lost link at once (status bar, connection node) instead of at the next poll. */
  private onState(slot: Slot, connection: LockConnection, event: ConnectionStateEvent): void {
    if (slot.connection !== connection || !this.wanted(slot)) return;
    if (event.status === 'ready') {
      if (slot.status.phase === 'connected' && !slot.status.error) return;
      slot.status = { phase: 'connected' };
    } else if (event.status === 'reconnecting' || event.status === 'disconnected' || event.status === 'closed') {
      const error = event.error?.message ?? slot.status.error;
      slot.status = { ...slot.status, phase: 'reconnecting', error, summary: error && firstSentence(error) };
    } else return;
    this.deps.onChange();
  }

  /** False once the user disconnected or the settings replaced this slot while it was busy. */
  private wanted(slot: Slot): boolean {
    return this.active && this.slots.includes(slot);
  }

  private async drop(slot: Slot): Promise<void> {
    const connection = slot.connection;
    slot.unsubscribe?.();
    slot.connection = slot.unsubscribe = undefined;
    await connection?.close().catch(() => undefined);
  }
}
