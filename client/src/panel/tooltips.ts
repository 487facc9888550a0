// Markdown tooltips for lock and connection nodes: everything an incident responder needs to judge a
// lock without a redis-cli session (raw value, type, TTL in ms, fencing counter, node, token, how long
// this holder has been seen and its recent history). Tooltips depend on what was read, not on the
// clock (except the minute-grained "held for"), so the view re-renders them only when they change.
import { escapeControlChars } from '../locks/display-text';
import type { HistoryEntry, LockTrack } from '../locks/history';
import { NO_EXPIRY_DOC, NO_EXPIRY_RULE, STATE_WORDS } from './lock-style';
import type { PanelNode } from './lock-tree-model';
import { clip, codeBlock, escapeMarkdown } from './markdown';
import { isStale, type ConnectionView } from './panel-state';
import { clockTime, formatHeld } from './ttl-text';
import { formatTtl } from '../locks/format';

const RAW_TOOLTIP_LIMIT = 2000;
/** History entries shown in a tooltip; Show Lock History has them all. */
const TOOLTIP_HISTORY = 6;

/** Text from Redis, shown literally: control characters escaped, Markdown escaped. */
const md = (text: string) => escapeMarkdown(escapeControlChars(text));

function table(rows: [string, string | undefined][]): string {
  const lines = rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `| ${k} | ${v} |`);
  return ['| | |', '|---|---|', ...lines].join('\n');
}

function ttlDetail(pttl: number, readAt: number): string {
  if (pttl === -1) return 'none (PTTL -1)';
  if (pttl === -2) return 'gone (PTTL -2)';
  return `${formatTtl(pttl)} when read at ${clockTime(readAt)} (PTTL ${pttl} ms)`;
}

/** "2h 13m (since 12:03:41)", with "at least" when the holder was there before the view first looked. */
export function heldText(track: LockTrack, now: number): string {
  const held = formatHeld(now - track.since);
  return track.heldBeforeWatch
    ? `at least ${held} (already held at the view's first read, ${clockTime(track.since)})`
    : `${held} (since ${clockTime(track.since)})`;
}

/** One history line, plain text (escaped for display; the caller escapes Markdown if needed). */
export function historyLine(entry: HistoryEntry): string {
  const holder = escapeControlChars(entry.holder.label);
  const at = clockTime(entry.time);
  switch (entry.kind) {
    case 'seen':
      return `${at} seen, held by ${holder}`;
    case 'acquired':
      return `${at} acquired by ${holder}`;
    case 'holder-changed':
      return `${at} taken over by ${holder} (was ${escapeControlChars(entry.previousHolder?.label ?? '?')})`;
    case 'renewed':
      return (entry.count ?? 1) > 1 ? `${at} renewed ×${entry.count}, last at ${clockTime(entry.lastTime ?? entry.time)}` : `${at} renewed`;
    case 'held-long':
      return `${at} held long by ${holder}`;
    case 'expired':
      return `${at} expired (TTL ran out)`;
    case 'released':
      return `${at} released or deleted before its TTL ran out`;
  }
}

export function lockTooltip(node: Extract<PanelNode, { kind: 'lock' }>, now: number): string {
  const { row, readAt, stale, track } = node;
  const details = Object.entries(row.holder.details ?? {}).map(([k, v]): [string, string] => [md(k), md(v)]);
  const parts = [`**${md(row.key)}**`];
  if (stale) {
    parts.push(
      `**Not live:** this row is what was read at ${clockTime(readAt)}; Redis has not answered since. ` +
        'The TTL is not counting down, and Release and Extend are off until Redis answers again.',
    );
  }
  parts.push(
    table([
      ['State', md(STATE_WORDS[row.state])],
      ['Holder', `${md(row.holder.label)} (${md(row.holder.format)})`],
      ['TTL', ttlDetail(row.pttl, readAt)],
      ['Held', track ? heldText(track, now) : undefined],
      ['Renewed', track ? `${track.renewals} time${track.renewals === 1 ? '' : 's'} seen` : undefined],
      ['Type', md(row.type)],
      ['Fencing counter', row.fence ? `${md(row.fence.key)} = ${md(row.fence.value)}` : undefined],
      ['Node', row.node ? md(row.node) : undefined],
      ['Token', row.holder.token !== undefined ? md(row.holder.token) : undefined],
      ...details,
    ]),
  );
  if (track?.heldLong) {
    parts.push(
      `**Held long:** the same holder has kept this lock for ${formatHeld(now - track.since)} ` +
        `(over ${formatHeld(node.heldLongMs)}, \`lockwise.redis.heldLongMinutes\`). A watchdog that ` +
        'keeps renewing while its work hangs makes a lock that never frees: check the holder.',
    );
  }
  if (track && track.entries.length > 0) {
    const recent = track.entries.slice(-TOOLTIP_HISTORY).map((e) => `- ${escapeMarkdown(historyLine(e))}`);
    parts.push(['History (while the view is open):', ...recent].join('\n'));
  }
  parts.push('Raw value:', codeBlock(clip(escapeControlChars(row.raw), RAW_TOOLTIP_LIMIT)));
  if (row.state === 'no-expiry') {
    parts.push(
      '**This lock has no TTL.** If its holder dies it is never freed and every later acquire fails. ' +
        `See [${NO_EXPIRY_RULE}](${NO_EXPIRY_DOC}) for the fix in code.`,
    );
  }
  return parts.join('\n\n');
}

export function messageTooltip(text: string): string {
  return md(text);
}

export function connectionTooltip(connection: ConnectionView): string {
  const { target, status, listing } = connection;
  const result = listing?.result;
  const stale = isStale(connection);
  const writes = !connection.writable
    ? `off: ${md(connection.readOnlyReason ?? 'read-only')}`
    : stale
      ? 'off while the rows are not live'
      : 'allowed';
  return [
    `**${md(target.label)}** (${target.kind})`,
    table([
      ['Status', status.phase],
      ['Error', status.error ? md(status.error) : undefined],
      ['Failed attempts', status.attempt ? String(status.attempt) : undefined],
      ['Last read', listing ? `${clockTime(listing.readAt)} (${new Date(listing.readAt).toISOString()})${stale ? ', not live' : ''}` : undefined],
      ['Keys scanned', result ? String(result.scanned) : undefined],
      ['Rows', result ? `${result.rows.length}${result.partial ? ' (partial)' : ''}` : undefined],
      ['Release / extend', writes],
    ]),
  ].join('\n\n');
}
