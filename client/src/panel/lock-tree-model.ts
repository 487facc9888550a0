// The Redis Locks tree as plain data: connection -> key-prefix group -> lock, plus message nodes for
// errors, partial listings and notices. No vscode import: the TreeDataProvider only converts
// `TreeItemData` into TreeItems, so everything shown can be tested under Node.
import type { LockRow } from '../locks/types';
import { ContextValue } from './ids';
import { groupPrefix } from './key-groups';
import { rowFilter } from './lock-filter';
import { STATE_ICONS, type IconData } from './lock-style';
import { lockTooltip, connectionTooltip } from './tooltips';
import type { ConnectionView, PanelView } from './panel-state';
import { formatDuration, ttlText } from './ttl-text';

export type Severity = 'info' | 'warning' | 'error';

export type PanelNode =
  | { kind: 'connection'; id: string; connection: ConnectionView; shown: number; children: string[] }
  | { kind: 'group'; id: string; prefix: string; rows: LockRow[]; children: string[] }
  | { kind: 'lock'; id: string; connectionId: string; row: LockRow; readAt: number; writable: boolean }
  | { kind: 'message'; id: string; severity: Severity; text: string };

export interface PanelTree {
  roots: string[];
  nodes: Map<string, PanelNode>;
  /** Node ids whose description counts down (finite TTL, reconnect delay): the only ones re-rendered each second. */
  ticking: string[];
}

export interface TreeItemData {
  id: string;
  label: string;
  description?: string;
  /** Markdown. */
  tooltip?: string;
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

  const message = (id: string, severity: Severity, text: string) => {
    nodes.set(id, { kind: 'message', id, severity, text });
    return id;
  };

  view.notices.forEach((text, i) => roots.push(message(`notice:${i}`, 'warning', text)));

  for (const connection of view.connections) {
    const cid = connection.target.id;
    const children: string[] = [];
    const { status, listing } = connection;

    if (status.error) {
      const stale = listing ? ' (showing the last rows read)' : '';
      children.push(message(`msg:${cid}:error`, 'error', `${status.error}${stale}`));
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
        nodes.set(id, { kind: 'lock', id, connectionId: cid, row, readAt: listing!.readAt, writable: connection.writable });
        if (row.pttl >= 0) ticking.push(id);
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
    if (status.retryAt !== undefined) ticking.push(id);
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

function lockDescription(row: LockRow, readAt: number, now: number): string {
  const ttl = ttlText(row.pttl, readAt, now);
  return `${row.holder.label} · ${row.state === 'renewed' ? `${ttl} ↻` : ttl}`;
}

function connectionDescription(node: Extract<PanelNode, { kind: 'connection' }>, now: number): string {
  const { status, listing, writable } = node.connection;
  const parts: string[] = [];
  if (status.phase === 'connected') {
    const total = listing?.result.rows.length;
    if (total !== undefined) parts.push(node.shown === total ? `${total} locks` : `${node.shown} of ${total} locks`);
    else parts.push('connected');
  } else if (status.phase === 'reconnecting') {
    parts.push(status.retryAt ? `reconnecting in ${formatDuration(Math.max(0, status.retryAt - now))}` : 'reconnecting');
  } else parts.push(status.phase);
  if (!writable) parts.push('read-only');
  return parts.join(' · ');
}

const CONNECTION_ICONS: Record<ConnectionView['status']['phase'], IconData> = {
  connected: { id: 'database' },
  connecting: { id: 'loading~spin' },
  reconnecting: { id: 'debug-disconnect', color: 'problemsErrorIcon.foreground' },
  disconnected: { id: 'debug-disconnect' },
};

export function renderNode(node: PanelNode, now: number): TreeItemData {
  switch (node.kind) {
    case 'connection': {
      const { status, target } = node.connection;
      return {
        id: node.id,
        label: target.label,
        description: connectionDescription(node, now),
        tooltip: connectionTooltip(node.connection, now),
        icon: CONNECTION_ICONS[status.phase],
        contextValue: status.phase === 'connected' ? ContextValue.Connection : ContextValue.ConnectionDown,
        collapsible: 'expanded',
      };
    }
    case 'group': {
      const noExpiry = node.rows.filter((r) => r.state === 'no-expiry').length;
      return {
        id: node.id,
        label: node.prefix,
        description: `${node.rows.length}${noExpiry ? ` · ${noExpiry} without expiry` : ''}`,
        icon: noExpiry ? STATE_ICONS['no-expiry'] : { id: 'symbol-namespace' },
        contextValue: ContextValue.Group,
        collapsible: node.rows.length > EXPAND_LIMIT ? 'collapsed' : 'expanded',
      };
    }
    case 'lock':
      return {
        id: node.id,
        label: node.row.key,
        description: lockDescription(node.row, node.readAt, now),
        tooltip: lockTooltip(node.row, node.readAt, now),
        icon: STATE_ICONS[node.row.state],
        contextValue: node.writable ? ContextValue.LockWritable : ContextValue.Lock,
        collapsible: 'none',
      };
    case 'message':
      return {
        id: node.id,
        label: node.text,
        tooltip: node.text,
        icon: MESSAGE_ICONS[node.severity],
        contextValue: ContextValue.Message,
        collapsible: 'none',
      };
  }
}
