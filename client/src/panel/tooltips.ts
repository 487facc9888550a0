// Markdown tooltips for lock and connection nodes: everything an incident responder needs to judge a
// lock without a redis-cli session (raw value, type, TTL in ms, fencing counter, node, token).
import type { LockRow } from '../locks/types';
import { NO_EXPIRY_DOC, NO_EXPIRY_RULE, STATE_WORDS } from './lock-style';
import { clip, codeBlock, escapeMarkdown as md } from './markdown';
import type { ConnectionView } from './panel-state';
import { formatDuration, remainingMs } from './ttl-text';

const RAW_TOOLTIP_LIMIT = 2000;

function table(rows: [string, string | undefined][]): string {
  const lines = rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `| ${k} | ${v} |`);
  return ['| | |', '|---|---|', ...lines].join('\n');
}

function ttlDetail(pttl: number, readAt: number, now: number): string {
  if (pttl === -1) return 'none (PTTL -1)';
  if (pttl === -2) return 'gone (PTTL -2)';
  const ago = formatDuration(Math.max(0, now - readAt));
  return `${remainingMs(pttl, readAt, now)} ms left (PTTL ${pttl} ms, read ${ago} ago)`;
}

export function lockTooltip(row: LockRow, readAt: number, now: number): string {
  const details = Object.entries(row.holder.details ?? {}).map(
    ([k, v]): [string, string] => [md(k), md(v)],
  );
  const parts = [
    `**${md(row.key)}**`,
    table([
      ['State', md(STATE_WORDS[row.state])],
      ['Holder', `${md(row.holder.label)} (${md(row.holder.format)})`],
      ['TTL', ttlDetail(row.pttl, readAt, now)],
      ['Type', md(row.type)],
      ['Fencing counter', row.fence ? `${md(row.fence.key)} = ${md(row.fence.value)}` : undefined],
      ['Node', row.node ? md(row.node) : undefined],
      ['Token', row.holder.token !== undefined ? md(row.holder.token) : undefined],
      ...details,
    ]),
    'Raw value:',
    codeBlock(clip(row.raw, RAW_TOOLTIP_LIMIT)),
  ];
  if (row.state === 'no-expiry') {
    parts.push(
      '**This lock has no TTL.** If its holder dies it is never freed and every later acquire fails. ' +
        `See [${NO_EXPIRY_RULE}](${NO_EXPIRY_DOC}) for the fix in code.`,
    );
  }
  return parts.join('\n\n');
}

export function connectionTooltip(connection: ConnectionView, now: number): string {
  const { target, status, listing } = connection;
  const result = listing?.result;
  return [
    `**${md(target.label)}** (${target.kind})`,
    table([
      ['Status', status.phase],
      ['Error', status.error ? md(status.error) : undefined],
      ['Failed attempts', status.attempt ? String(status.attempt) : undefined],
      ['Last read', listing ? `${new Date(listing.readAt).toISOString()} (${formatDuration(now - listing.readAt)} ago)` : undefined],
      ['Keys scanned', result ? String(result.scanned) : undefined],
      ['Rows', result ? `${result.rows.length}${result.partial ? ' (partial)' : ''}` : undefined],
      ['Release / extend', connection.writable ? 'allowed' : `off: ${md(connection.readOnlyReason ?? 'read-only')}`],
    ]),
  ].join('\n\n');
}
