// Release Lock / Extend Lock, vscode-free: refuse early when writes are off, re-read the lock, show
// key, holder, TTL and token in a modal confirmation, then run the core's guarded (compare-token)
// operation with exactly the token the user saw, and say precisely what happened.
import { escapeControlChars as shown } from '../locks/display-text';
import type { GuardedResult, LockRow } from '../locks/types';
import type { LockSession } from './lock-session';
import type { PanelSettings } from './settings';
import { humanDuration } from './ttl-input';

export type WriteKind = 'release' | 'extend';
export type WriteOutcome = GuardedResult['outcome'] | 'cancelled' | 'refused' | 'error';

/** The user-facing side, implemented with VS Code dialogs (and scripted in tests). */
export interface WriteUi {
  /**
   * Asks before a write; true only when the user picked `action`. `detail` is lines of text. A
   * destructive action (release) must not be what Enter picks: the default answer is Cancel.
   */
  confirm(message: string, detail: string, action: string, destructive: boolean): Promise<boolean>;
  /** The new TTL for an extend, in ms; undefined when cancelled. */
  askTtlMs(lock: LockRow): Promise<number | undefined>;
  info(message: string): void;
  warn(message: string): void;
}

export interface WriteRequest {
  kind: WriteKind;
  target: { id: string; label: string };
  key: string;
  /** The row the view showed, to point out a holder change since the last refresh. */
  shown?: LockRow;
  /** Set when the row on screen is not live (Redis did not answer the last refresh): the write is refused with this reason. */
  staleReason?: string;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));


function confirmDetail(request: WriteRequest, lock: LockRow, token: string, ttlMs: number | undefined): string {
  const ttl = lock.pttl === -1 ? 'none: this lock never expires' : `${humanDuration(lock.pttl)} (${lock.pttl} ms), read just now`;
  const lines = [
    `Connection: ${request.target.label}`,
    `Key: ${shown(lock.key)}`,
    `Holder: ${shown(lock.holder.label)} (${lock.holder.format})`,
    `TTL now: ${ttl}`,
    `Token: ${shown(token)}`,
  ];
  if (ttlMs !== undefined) lines.push(`New TTL: ${humanDuration(ttlMs)} (${ttlMs} ms), counted from when it is set`);
  if (request.shown && request.shown.holder.token !== token) {
    lines.push('', 'The holder changed since the view was last refreshed: the values above are the current ones.');
  }
  lines.push(
    '',
    request.kind === 'release'
      ? 'The lock is deleted only if it still carries this token; otherwise nothing is removed.'
      : 'The TTL is set only if the lock still carries this token.',
  );
  return lines.join('\n');
}

export async function guardedWrite(
  request: WriteRequest,
  deps: { session: LockSession; writes: PanelSettings['writes']; ui: WriteUi },
): Promise<WriteOutcome> {
  const { kind } = request;
  const { ui } = deps;
  const name = shown(request.key);
  if (!deps.writes.allowed) {
    ui.warn(`Lockwise: ${kind} refused because ${deps.writes.reason}. Nothing was sent to Redis.`);
    return 'refused';
  }
  if (request.staleReason) {
    ui.warn(`Lockwise: ${kind} of ${name} is off: ${request.staleReason}. Nothing was sent to Redis.`);
    return 'refused';
  }
  try {
    const connection = deps.session.connectionFor(request.target.id);
    const lock = await connection.read(request.key);
    if (!lock) {
      ui.info(`Lockwise: ${name} is already gone; nothing to ${kind}.`);
      return 'gone';
    }
    const token = lock.holder.token;
    if (token === undefined) {
      ui.warn(`Lockwise: cannot ${kind} ${name}: no holder token could be read from its value.`);
      return 'refused';
    }
    const ttlMs = kind === 'extend' ? await ui.askTtlMs(lock) : undefined;
    if (kind === 'extend' && ttlMs === undefined) return 'cancelled';
    const action = kind === 'release' ? 'Release' : 'Extend';
    const confirmed = await ui.confirm(`${action} lock ${name}?`, confirmDetail(request, lock, token, ttlMs), action, kind === 'release');
    if (!confirmed) return 'cancelled';

    const result = kind === 'release' ? await connection.release(request.key, token) : await connection.extend(request.key, token, ttlMs!);
    switch (result.outcome) {
      case 'released':
        ui.info(`Lockwise: released ${name} (was held by ${shown(lock.holder.label)}).`);
        break;
      case 'extended':
        ui.info(`Lockwise: extended ${name} to ${humanDuration(ttlMs!)} (${ttlMs} ms).`);
        break;
      case 'token-changed':
        ui.warn(
          `Lockwise: ${name} is now held by ${shown(result.currentHolder.label)}, not by the holder you confirmed. ` +
            `Nothing was ${kind === 'release' ? 'removed' : 'extended'}.`,
        );
        break;
      case 'gone':
        ui.info(`Lockwise: ${name} was already gone; nothing to ${kind}.`);
        break;
    }
    return result.outcome;
  } catch (err) {
    ui.warn(`Lockwise: ${kind} of ${name} failed: ${shown(errorText(err))}`);
    return 'error';
  }
}
