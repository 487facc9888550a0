// The view's input as plain data: per connection its status and last listing. Produced by the
// session, read by the tree model, the snapshot and the status bar.
import type { LockHistory } from '../locks/history';
import type { ListResult } from '../locks/types';
import type { ConnectionTarget } from './connection-targets';

/** 'auth-failed': the password or user was refused; nothing retries until the password or settings change. */
export type ConnectionPhase = 'connecting' | 'connected' | 'reconnecting' | 'auth-failed' | 'disconnected';

export interface ConnectionStatus {
  phase: ConnectionPhase;
  /** The last connect/list failure, already worded by the core (what failed, what to check). */
  error?: string;
  /** Its first sentence (what failed), short enough for a tree row; the whole error goes in the tooltip. */
  summary?: string;
  /** When the next automatic attempt runs (epoch ms), while reconnecting. */
  retryAt?: number;
  /** Failed attempts in a row. */
  attempt?: number;
}

export interface Listing {
  result: ListResult;
  /** Epoch ms when the rows were read: the local countdown starts here. */
  readAt: number;
}

/** Rows on screen that are not live: the last refresh failed or has not finished since a reconnect. */
export function isStale(connection: Pick<ConnectionView, 'status' | 'listing'>): boolean {
  return connection.listing !== undefined && connection.status.phase !== 'connected';
}

export interface ConnectionView {
  target: Pick<ConnectionTarget, 'id' | 'label' | 'kind'>;
  status: ConnectionStatus;
  /** The last successful listing; kept (and flagged stale) when a later refresh fails. */
  listing?: Listing;
  /** What this connection's listings showed over time (holder age, renewals, history) while browsing. */
  history?: LockHistory;
  /** Release/extend allowed on this connection's locks; if not, why (shown in its tooltip). */
  writable: boolean;
  readOnlyReason?: string;
}

export interface PanelView {
  connections: ConnectionView[];
  filter: string;
  /** Settings problems and trust notices, shown above the connections. */
  notices: string[];
  /** lockwise.redis.heldLongMinutes in ms (named in the held-long tooltip). */
  heldLongMs: number;
}
