// When the view re-reads Redis: on demand (each request carries a reason), debounced, one read at a
// time, and on a timer ONLY while the view is visible, so a hidden panel sends Redis nothing.
// A separate one-second tick (also only while visible) drives the local TTL countdown.

export type RefreshReason = 'manual' | 'poll' | 'visible' | 'connect' | 'settings' | 'after-write' | 'reconnect';

export interface SchedulerOptions {
  /** Re-read period while visible. */
  intervalMs: number;
  /** Requests closer together than this are merged into one read. */
  debounceMs: number;
  tickMs: number;
  /** Reads Redis; the reasons of every merged request are passed together. Must not reject: failures belong in the view. */
  refresh(reasons: ReadonlySet<RefreshReason>): Promise<void>;
  /** Called every tick while visible (countdown, due reconnects). */
  tick(): void;
}

export class RefreshScheduler {
  private visible = false;
  private pending = new Set<RefreshReason>();
  private debounce: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(private options: SchedulerOptions) {}

  setInterval(intervalMs: number): void {
    this.options = { ...this.options, intervalMs };
    if (this.visible) this.startPolling();
  }

  setVisible(visible: boolean): void {
    if (this.disposed || visible === this.visible) return;
    this.visible = visible;
    if (visible) {
      this.startPolling();
      this.ticker = setInterval(() => this.options.tick(), this.options.tickMs);
      this.request('visible');
    } else {
      clearInterval(this.poll);
      clearInterval(this.ticker);
      this.poll = this.ticker = undefined;
    }
  }

  /** Asks for a read. Polls are dropped while hidden; explicit requests (manual, write) always run. */
  request(reason: RefreshReason): void {
    if (this.disposed || (reason === 'poll' && !this.visible)) return;
    this.pending.add(reason);
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.drain(), this.options.debounceMs);
  }

  /** Resolves once no read is pending or running (for callers that must see the result). */
  async idle(): Promise<void> {
    while (this.running || this.pending.size > 0) {
      if (this.running) await this.running;
      else await this.drain();
    }
  }

  dispose(): void {
    this.disposed = true;
    this.setVisible(false);
    clearTimeout(this.debounce);
    this.pending.clear();
  }

  private startPolling(): void {
    clearInterval(this.poll);
    this.poll = setInterval(() => this.request('poll'), this.options.intervalMs);
  }

  private async drain(): Promise<void> {
    clearTimeout(this.debounce);
    // Reads never overlap: wait for the one in flight, then take what was requested meanwhile.
    while (this.running) await this.running;
    if (this.pending.size === 0 || this.disposed) return;
    const reasons = this.pending;
    this.pending = new Set();
    this.running = this.options.refresh(reasons).finally(() => (this.running = undefined));
    await this.running;
  }
}
