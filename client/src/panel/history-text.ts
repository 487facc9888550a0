// "Show Lock History" as plain text: what the view saw of one lock while it was open. vscode-free.
import { escapeControlChars as shown } from '../locks/display-text';
import type { LockTrack } from '../locks/history';
import { heldText, historyLine } from './tooltips';

export function historyText(track: LockTrack, connectionLabel: string, now: number): string {
  const lines = [
    `Lock history: ${shown(track.key)} on ${connectionLabel}`,
    'What the Redis Locks view saw while it was open: one look per refresh, so renewals between two looks count once.',
    '',
    `Holder:   ${shown(track.holder.label)} (${track.holder.format})`,
    `Token:    ${track.holder.token !== undefined ? shown(track.holder.token) : '(none)'}`,
    `Now:      ${track.ended ? 'gone' : track.heldLong ? 'held long' : 'held'}`,
  ];
  if (!track.ended) lines.push(`Held:     ${heldText(track, now)}`);
  lines.push(`Renewed:  ${track.renewals} time${track.renewals === 1 ? '' : 's'} seen`, '', 'History (oldest first):');
  for (const entry of track.entries) lines.push(`  ${historyLine(entry)}`);
  return `${lines.join('\n')}\n`;
}
