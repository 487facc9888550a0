// What a watcher learns about each lock across listings: how long it has seen this holder on this key,
// how often the TTL went up (a watchdog renewing it), and a short history of holder changes, renewals,
// expiries and releases. Used by the Redis Locks view (tooltips, "held long", Show Lock History) and by
// `lockwise locks --watch --json` (one event per line). Only what the listings show is known: a holder
// present at the first listing was acquired earlier, and renewals between two listings count as one.
import type { Holder, ListResult, LockRow } from './types';

export type LockEventKind = 'seen' | 'acquired' | 'holder-changed' | 'renewed' | 'held-long' | 'expired' | 'released';

export interface LockEvent {
  /** Epoch ms of the listing that showed it. */
  time: number;
  kind: LockEventKind;
  key: string;
  holder: Holder;
  /** holder-changed: who held it before. */
  previousHolder?: Holder;
  /** PTTL read by that listing (for expired / released: the last one read). */
  pttl: number;
  /** How long the watcher has seen this holder on this key. */
  heldMs: number;
  /** Renewals seen for this holder so far. */
  renewals: number;
  /** True when this holder was already there at the first listing, so it has held the lock at least heldMs. */
  heldBeforeWatch: boolean;
}

/** One history entry; consecutive renewals are merged into one entry with a count. */
export interface HistoryEntry {
  time: number;
  kind: LockEventKind;
  holder: Holder;
  previousHolder?: Holder;
  /** renewed: how many renewals this entry stands for, and when the last one was seen. */
  count?: number;
  lastTime?: number;
}

export interface LockTrack {
  key: string;
  holder: Holder;
  /** When this holder was first seen on this key. */
  since: number;
  heldBeforeWatch: boolean;
  renewals: number;
  /** Seen for at least the held-long threshold (a watchdog may be alive while its work hangs). */
  heldLong: boolean;
  /** The key is not there any more (expired or released); the history is kept for a while. */
  ended: boolean;
  lastPttl: number;
  lastSeen: number;
  entries: HistoryEntry[];
}

export const DEFAULT_HELD_LONG_MS = 10 * 60_000;
/** Entries kept per lock (the oldest are dropped; merged renewals count as one). */
export const HISTORY_ENTRIES = 20;
/** Locks that ended whose history is kept (the oldest ended ones go first). */
const ENDED_KEPT = 200;
/** A key gone within this much of its TTL running out counts as expired, not released. */
const EXPIRY_SLACK_MS = 1000;

const identity = (row: Pick<LockRow, 'holder' | 'raw'>) => row.holder.token ?? row.raw;

export class LockHistory {
  private readonly tracks = new Map<string, LockTrack & { id: string }>();
  private listings = 0;

  constructor(private heldLongMs = DEFAULT_HELD_LONG_MS) {}

  setHeldLongMs(ms: number): void {
    this.heldLongMs = ms;
  }

  /** Folds one listing in and returns what changed, in key order. A partial listing says nothing about absent keys. */
  observe(result: ListResult, at: number): LockEvent[] {
    const first = this.listings++ === 0;
    const events: LockEvent[] = [];
    const live = result.rows.filter((r) => r.state !== 'gone');
    const present = new Set<string>();
    for (const row of [...live].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
      present.add(row.key);
      events.push(...this.observeRow(row, at, first));
    }
    if (!result.partial) {
      for (const track of this.tracks.values()) {
        if (track.ended || present.has(track.key)) continue;
        const left = track.lastPttl - (at - track.lastSeen);
        const kind: LockEventKind = track.lastPttl >= 0 && left <= EXPIRY_SLACK_MS ? 'expired' : 'released';
        track.ended = true;
        events.push(this.record(track, kind, at, track.lastPttl));
      }
    }
    this.forgetOldEnded();
    return events;
  }

  track(key: string): LockTrack | undefined {
    return this.tracks.get(key);
  }

  /** Every lock seen, live ones first, each group by key. */
  all(): LockTrack[] {
    return [...this.tracks.values()].sort((a, b) => Number(a.ended) - Number(b.ended) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  clear(): void {
    this.tracks.clear();
    this.listings = 0;
  }

  private observeRow(row: LockRow, at: number, first: boolean): LockEvent[] {
    const id = identity(row);
    const track = this.tracks.get(row.key);
    const events: LockEvent[] = [];
    if (!track || track.ended || track.id !== id) {
      const previous = track && !track.ended ? track.holder : undefined;
      const fresh: LockTrack & { id: string } = {
        id,
        key: row.key,
        holder: row.holder,
        since: at,
        heldBeforeWatch: first,
        renewals: 0,
        heldLong: false,
        ended: false,
        lastPttl: row.pttl,
        lastSeen: at,
        // A new holder on a key keeps the key's history.
        entries: track?.entries ?? [],
      };
      this.tracks.delete(row.key);
      this.tracks.set(row.key, fresh);
      const kind: LockEventKind = first ? 'seen' : previous ? 'holder-changed' : 'acquired';
      events.push(this.record(fresh, kind, at, row.pttl, previous));
    } else {
      if (track.lastPttl >= 0 && row.pttl > track.lastPttl) {
        track.renewals++;
        events.push(this.record(track, 'renewed', at, row.pttl));
      }
      track.holder = row.holder;
      track.lastPttl = row.pttl;
      track.lastSeen = at;
    }
    const current = this.tracks.get(row.key)!;
    if (!current.heldLong && at - current.since >= this.heldLongMs) {
      current.heldLong = true;
      events.push(this.record(current, 'held-long', at, row.pttl));
    }
    return events;
  }

  private record(track: LockTrack, kind: LockEventKind, at: number, pttl: number, previousHolder?: Holder): LockEvent {
    const last = track.entries.at(-1);
    if (kind === 'renewed' && last?.kind === 'renewed') {
      last.count = (last.count ?? 1) + 1;
      last.lastTime = at;
    } else {
      track.entries.push(previousHolder ? { time: at, kind, holder: track.holder, previousHolder } : { time: at, kind, holder: track.holder });
      if (track.entries.length > HISTORY_ENTRIES) track.entries.splice(0, track.entries.length - HISTORY_ENTRIES);
    }
    const event: LockEvent = {
      time: at,
      kind,
      key: track.key,
      holder: track.holder,
      pttl,
      heldMs: at - track.since,
      renewals: track.renewals,
      heldBeforeWatch: track.heldBeforeWatch,
    };
    if (previousHolder) event.previousHolder = previousHolder;
    return event;
  }

  private forgetOldEnded(): void {
    const ended = [...this.tracks.values()].filter((t) => t.ended);
    for (const t of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) this.tracks.delete(t.key);
  }
}
