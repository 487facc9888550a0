// The view's input as plain data: per connection its status and last listing. Produced by the
// session, read by the tree model, the snapshot and the status bar.
import type { ListResult } from '../locks/types';
import type { ConnectionTarget } from './connection-targets';

export type ConnectionPhase = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

export interface ConnectionStatus {
  phase: ConnectionPhase;
  /** The last connect/list failure, already worded by the core (what failed, what to check). */
  error?: string;
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

export interface ConnectionView {
  target: Pick<ConnectionTarget, 'id' | 'label' | 'kind'>;
  status: ConnectionStatus;
  /** The last successful listing; kept (and flagged stale) when a later refresh fails. */
  listing?: Listing;
  /** Release/extend allowed on this connection's locks; if not, why (shown in its tooltip). */
  writable: boolean;
  readOnlyReason?: string;
}

export interface PanelView {
  connections: ConnectionView[];
  filter: string;
  /** Settings problems and trust notices, shown above the connections. */
  notices: string[];
}
