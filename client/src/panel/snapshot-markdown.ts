// "Copy Snapshot as Markdown": every row of every connection (the filter does not apply: an incident
// channel needs the whole picture) as one GFM table per connection, with the TTL left at copy time.
import type { LockRow } from '../locks/types';
import { codeSpan, tableCell } from './markdown';
import { STATE_WORDS } from './lock-style';
import type { PanelView } from './panel-state';
import { ttlText } from './ttl-text';

const HEADER = ['Key', 'State', 'Holder', 'TTL left', 'Type', 'Fencing', 'Node', 'Token'];

function row(cells: string[]): string {
  return `| ${cells.map(tableCell).join(' | ')} |`;
}

function lockCells(lock: LockRow, readAt: number, now: number): string[] {
  return [
    codeSpan(lock.key),
    STATE_WORDS[lock.state],
    `${codeSpan(lock.holder.label)} (${lock.holder.format})`,
    ttlText(lock.pttl, readAt, now),
    lock.type,
    lock.fence ? `${codeSpan(lock.fence.key)} = ${codeSpan(lock.fence.value)}` : '',
    lock.node ?? '',
    lock.holder.token !== undefined ? codeSpan(lock.holder.token) : '',
  ];
}

export function snapshotMarkdown(view: PanelView, now: number): string {
  const out = [`### Redis locks at ${new Date(now).toISOString()}`];
  for (const { target, status, listing } of view.connections) {
    out.push('');
    if (!listing) {
      out.push(`**${tableCell(target.label)}**: ${status.phase}, no listing${status.error ? ` (${status.error})` : ''}`);
      continue;
    }
    const r = listing.result;
    const facts = [
      `${r.rows.length} locks`,
      `${r.scanned} keys scanned`,
      `read ${new Date(listing.readAt).toISOString()}`,
      ...(r.partial ? ['PARTIAL'] : []),
      ...(status.error ? [`last refresh failed: ${status.error}`] : []),
      ...r.errors.map((e) => `${e.node}: ${e.message}`),
    ];
    out.push(`**${tableCell(target.label)}** (${facts.join('; ')})`, '');
    if (r.rows.length === 0) {
      out.push('No locks found.');
      continue;
    }
    out.push(row(HEADER), row(HEADER.map(() => '---')));
    const sorted = [...r.rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const lock of sorted) out.push(row(lockCells(lock, listing.readAt, now)));
  }
  return `${out.join('\n')}\n`;
}
