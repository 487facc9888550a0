// How each lock state looks: codicon id + theme colour id (plain strings, turned into ThemeIcon /
// ThemeColor by the VS Code adapter), and the words used in descriptions and snapshots.
import type { LockState } from '../locks/types';
import { ruleDocUrl } from '../../../rules/rule';

export interface IconData {
  /** Codicon id, e.g. 'lock'. */
  id: string;
  /** Theme colour id, e.g. 'charts.green'. */
  color?: string;
}

export const STATE_ICONS: Record<LockState, IconData> = {
  held: { id: 'lock', color: 'charts.green' },
  expiring: { id: 'watch', color: 'charts.yellow' },
  'no-expiry': { id: 'warning', color: 'problemsErrorIcon.foreground' },
  renewed: { id: 'sync', color: 'charts.blue' },
  gone: { id: 'circle-slash', color: 'disabledForeground' },
};

/** Same holder for longer than lockwise.redis.heldLongMinutes: possibly a watchdog alive while its work hangs. */
const HELD_LONG_ICON: IconData = { id: 'history', color: 'problemsWarningIcon.foreground' };
/** Stale rows keep their state's symbol, dimmed: what was true when read, not now. */
const STALE_COLOR = 'disabledForeground';

export function lockIcon(state: LockState, flags: { stale: boolean; heldLong: boolean }): IconData {
  const icon = flags.heldLong && state !== 'no-expiry' && state !== 'gone' ? HELD_LONG_ICON : STATE_ICONS[state];
  return flags.stale ? { id: icon.id, color: STALE_COLOR } : icon;
}

export const STATE_WORDS: Record<LockState, string> = {
  held: 'held',
  expiring: 'expiring soon',
  'no-expiry': 'NO EXPIRY',
  renewed: 'renewed (a watchdog is extending it)',
  gone: 'gone',
};

/** A lock without TTL never frees itself: the view links it to the rule that prevents it in code. */
export const NO_EXPIRY_RULE = 'require-ttl';
export const NO_EXPIRY_DOC = ruleDocUrl(NO_EXPIRY_RULE);
