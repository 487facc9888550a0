// The Redis Locks tree as plain data: connection -> key-prefix group -> lock, plus message nodes for
// errors, partial listings and notices. No vscode import: the TreeDataProvider only converts
// `TreeItemData` into TreeItems, so everything shown can be tested under Node.
import { escapeControlChars as shown } from '../locks/display-text';
import type { LockTrack } from '../locks/history';
import type { LockRow } from '../locks/types';
import { ContextValue } from './ids';
import { groupPrefix } from './key-groups';
import { rowFilter } from './lock-filter';
import { lockIcon, type IconData } from './lock-style';
import { lockTooltip, connectionTooltip, messageTooltip } from './tooltips';
import { isStale, type ConnectionView, type PanelView } from './panel-state';
import { clockTime, formatDuration, formatHeld, rowTtlText } from './ttl-text';

export type Severity = 'info' | 'warning' | 'error';

export type PanelNode =
  | { kind: 'connection'; id: string; connection: ConnectionView; shown: number; children: string[] }
  | { kind: 'group'; id: string; prefix: string; rows: LockRow[]; children: string[] }
  | {
      kind: 'lock';
      id: string;
      connectionId: string;
      row: LockRow;
      readAt: number;
      writable: boolean;
      /** The connection's last refresh failed: the row is what was read at readAt, not live. */
      stale: boolean;
      track?: LockTrack;
      heldLongMs: number;
    }
  | { kind: 'message'; id: string; severity: Severity; text: string; detail?: string }
  /** The countdown to the next connection attempt: a leaf of its own, so its tick re-renders nothing else. */
  | { kind: 'retry'; id: string; retryAt: number };

export interface PanelTree {
  roots: string[];
  nodes: Map<string, PanelNode>;
  /** Node ids whose text depends on the time (countdown, reconnect delay, held for): looked at each second, re-rendered when changed. */
  ticking: string[];
}

export interface TreeItemData {
  id: string;
  label: string;
  description?: string;
  /** Markdown. Resolved when the item is hovered, so it is not part of what decides a re-render. */
  tooltip?: string;
  /**
   * Changes when the tooltip gains something worth re-rendering for (a new history entry), so the
   * tooltip VS Code resolved once per rendering does not stay behind; PTTL and counts do not.
   */
  tooltipVersion?: number;
  icon: IconData;
  contextValue: ContextValue;
  collapsible: 'none' | 'collapsed' | 'expanded';
}

/** Groups larger than this start collapsed so a huge prefix does not bury the others. */
const EXPAND_LIMIT = 200;
const byText = new Intl.Collator('en', { numeric: true }).compare;

export function buildTree(view: PanelView): PanelTree {
  const nodes = new Map<string, PanelNode>();
  const roots: string[] = [];
  const ticking: string[] = [];
  const keep = rowFilter(view.filter);

  const message = (id: string, severity: Severity, text: string, detail?: string) => {
    nodes.set(id, { kind: 'message', id, severity, text, detail });
    return id;
  };

  view.notices.forEach((text, i) => roots.push(message(`notice:${i}`, 'warning', text)));

  for (const connection of view.connections) {
    const cid = connection.target.id;
    const children: string[] = [];
    const { status, listing } = connection;

    const stale = isStale(connection);
    // Short labels (a tree row is one line); the whole error and what it means are in the tooltip.
    if (stale) {
      const note = `Rows below as read at ${clockTime(listing!.readAt)}`;
      children.push(message(`msg:${cid}:stale`, 'warning', note, `${note}: not live, not counting down. Release and Extend are off until Redis answers again.`));
    }
    if (status.error) children.push(message(`msg:${cid}:error`, 'error', status.summary ?? status.error, status.error));
    if (status.phase === 'reconnecting' && status.retryAt !== undefined) {
      // Not on the connection row: VS Code re-renders a row's children with it, so a tick there would
      // close, once a second, the tooltip of every row below (the stale rows a user reads in an outage).
      const retry = `msg:${cid}:retry`;
      nodes.set(retry, { kind: 'retry', id: retry, retryAt: status.retryAt });
      children.push(retry);
      ticking.push(retry);
    }
    if (status.phase === 'auth-failed') {
      children.push(
        message(`msg:${cid}:auth`, 'info', 'Not retrying: set the password', 'Lockwise does not retry a refused password on its own. Run "Lockwise: Set Redis Password", change the settings, or refresh to try again.'),
      );
    }
    if (listing?.result.partial) {
      const r = listing.result;
      children.push(
        message(`msg:${cid}:partial`, 'warning', `Partial: ${r.scanned} keys scanned, ${r.rows.length} rows shown`),
      );
      r.errors.forEach((e, i) => children.push(message(`msg:${cid}:node:${i}`, 'error', `${e.node}: ${e.message}`)));
    }

    const rows = (listing?.result.rows ?? []).filter((row) => !keep || keep(row));
    const groups = new Map<string, LockRow[]>();
    for (const row of rows) {
      const prefix = groupPrefix(row.key);
      const group = groups.get(prefix);
      if (group) group.push(row);
      else groups.set(prefix, [row]);
    }
    for (const prefix of [...groups.keys()].sort(byText)) {
      const groupRows = groups.get(prefix)!.sort((a, b) => byText(a.key, b.key));
      const gid = `group:${cid}\u0000${prefix}`;
      const lockIds = groupRows.map((row) => {
        const id = `lock:${cid}\u0000${row.key}`;
        const track = connection.history?.track(row.key);
        nodes.set(id, {
          kind: 'lock',
          id,
          connectionId: cid,
          row,
          readAt: listing!.readAt,
          writable: connection.writable,
          stale,
          track: track && !track.ended ? track : undefined,
          heldLongMs: view.heldLongMs,
        });
        if (!stale && (row.pttl >= 0 || track?.heldLong)) ticking.push(id);
        return id;
      });
      nodes.set(gid, { kind: 'group', id: gid, prefix, rows: groupRows, children: lockIds });
      children.push(gid);
    }
    if (listing && rows.length === 0) {
      const none = view.filter.trim() ? `No lock matches the filter "${view.filter.trim()}"` : 'No locks found';
      children.push(message(`msg:${cid}:empty`, 'info', none));
    }

    const id = `conn:${cid}`;
    nodes.set(id, { kind: 'connection', id, connection, shown: rows.length, children });
    roots.push(id);
  }
  return { roots, nodes, ticking };
}

export function childrenOf(tree: PanelTree, id: string | undefined): string[] {
  if (id === undefined) return tree.roots;
  const node = tree.nodes.get(id);
  return node && (node.kind === 'connection' || node.kind === 'group') ? node.children : [];
}

const MESSAGE_ICONS: Record<Severity, IconData> = {
  info: { id: 'info' },
  warning: { id: 'warning', color: 'problemsWarningIcon.foreground' },
  error: { id: 'error', color: 'problemsErrorIcon.foreground' },
};

/** TTL first (the narrow sidebar cuts the end off), then how long it has been held if that is long, then the holder. */
function lockDescription(node: Extract<PanelNode, { kind: 'lock' }>, now: number): string {
  const { row, readAt, stale, track } = node;
  // A stale row keeps the TTL it had when read: counting down would pretend to know it is still held.
  const ttl = rowTtlText(row.pttl, readAt, stale ? readAt : now);
  const parts = [row.state === 'renewed' ? `${ttl} ↻` : ttl];
  if (track?.heldLong) parts.push(`held ${formatHeld(now - track.since)}`);
  parts.push(shown(row.holder.label));
  return parts.join(' · ');
}

function lockContext(node: Extract<PanelNode, { kind: 'lock' }>): ContextValue {
  if (!node.writable) return ContextValue.Lock;
  return node.stale ? ContextValue.LockStale : ContextValue.LockWritable;
}

function connectionDescription(node: Extract<PanelNode, { kind: 'connection' }>): string {
  const { status, listing, writable } = node.connection;
  const parts: string[] = [];
  if (status.phase === 'connected') {
    const total = listing?.result.rows.length;
    if (total !== undefined) parts.push(node.shown === total ? `${total} locks` : `${node.shown} of ${total} locks`);
    else parts.push('connected');
  } else {
    if (listing) parts.push(`last read ${clockTime(listing.readAt)}`);
    parts.push(status.phase === 'auth-failed' ? 'authentication failed' : status.phase);
  }
  if (!writable) parts.push('read-only');
  return parts.join(' · ');
}

const CONNECTION_ICONS: Record<ConnectionView['status']['phase'], IconData> = {
  connected: { id: 'database' },
  connecting: { id: 'loading~spin' },
  reconnecting: { id: 'debug-disconnect', color: 'problemsErrorIcon.foreground' },
  'auth-failed': { id: 'key', color: 'problemsErrorIcon.foreground' },
  disconnected: { id: 'debug-disconnect' },
};

export function renderNode(node: PanelNode, now: number): TreeItemData {
  switch (node.kind) {
    case 'connection': {
      const { status, target } = node.connection;
      return {
        id: node.id,
        label: target.label,
        description: connectionDescription(node),
        tooltip: connectionTooltip(node.connection),
        icon: CONNECTION_ICONS[status.phase],
        contextValue: status.phase === 'connected' ? ContextValue.Connection : ContextValue.ConnectionDown,
        collapsible: 'expanded',
      };
    }
    case 'group': {
      const noExpiry = node.rows.filter((r) => r.state === 'no-expiry').length;
      return {
        id: node.id,
        label: shown(node.prefix),
        description: `${node.rows.length}${noExpiry ? ` · ${noExpiry} without expiry` : ''}`,
        icon: noExpiry ? lockIcon('no-expiry', { stale: false, heldLong: false }) : { id: 'symbol-namespace' },
        contextValue: ContextValue.Group,
        collapsible: node.rows.length > EXPAND_LIMIT ? 'collapsed' : 'expanded',
      };
    }
    case 'lock':
      return {
        id: node.id,
        label: shown(node.row.key),
        description: lockDescription(node, now),
        tooltip: lockTooltip(node, now),
        tooltipVersion: node.track?.entries.length,
        icon: lockIcon(node.row.state, { stale: node.stale, heldLong: node.track?.heldLong === true }),
        contextValue: lockContext(node),
        collapsible: 'none',
      };
    case 'retry':
      return {
        id: node.id,
        label: `Reconnecting in ${formatDuration(Math.max(0, node.retryAt - now))}`,
        tooltip: messageTooltip(`The next attempt to reach Redis is at ${clockTime(node.retryAt)}; a refresh tries at once.`),
        icon: { id: 'sync' },
        contextValue: ContextValue.Message,
        collapsible: 'none',
      };
    case 'message':
      return {
        id: node.id,
        label: shown(node.text),
        tooltip: messageTooltip(node.detail ?? node.text),
        icon: MESSAGE_ICONS[node.severity],
        contextValue: ContextValue.Message,
        collapsible: 'none',
      };
  }
}
