// The status bar item's content as plain data: connection state at a glance, problems first.
import { escapeControlChars } from '../locks/display-text';
import type { ConnectionView } from './panel-state';

export interface StatusData {
  text: string;
  tooltip: string;
  /** 'warning' maps to statusBarItem.warningBackground. */
  severity?: 'warning';
}

/** Undefined when nothing is being browsed: the item is hidden then. */
export function statusText(connections: readonly ConnectionView[], active: boolean): StatusData | undefined {
  if (!active || connections.length === 0) return undefined;
  const down = connections.filter((c) => c.status.phase === 'reconnecting' || c.status.phase === 'auth-failed');
  const connecting = connections.some((c) => c.status.phase === 'connecting');
  const rows = connections.flatMap((c) => c.listing?.result.rows ?? []);
  const noExpiry = rows.filter((r) => r.state === 'no-expiry').length;
  // An error can quote a Redis reply: its control characters are escaped like every text from Redis.
  const lines = connections.map((c) => `${c.target.label}: ${c.status.phase}${c.status.error ? ` (${escapeControlChars(c.status.error)})` : ''}`);
  const tooltip = ['Lockwise Redis Locks', ...lines].join('\n');

  if (down.length > 0) {
    const which = down.length === connections.length ? 'disconnected' : `${down.length} of ${connections.length} disconnected`;
    return { text: `$(debug-disconnect) Redis: ${which}`, tooltip, severity: 'warning' };
  }
  if (connecting) return { text: '$(loading~spin) Redis: connecting', tooltip };
  const problem = noExpiry ? ` $(warning) ${noExpiry} without expiry` : '';
  return { text: `$(lock) Redis: ${rows.length} locks${problem}`, tooltip, severity: noExpiry ? 'warning' : undefined };
}
