// Release Lock / Extend Lock, vscode-free: refuse early when writes are off, re-read the lock, show
// key, holder, TTL and token in a modal confirmation, then run the core's guarded (compare-token)
// operation with exactly the token the user saw, and say precisely what happened.
import { formatTtl } from '../locks';
import type { GuardedResult, LockRow } from '../locks/types';
import type { LockSession } from './lock-session';
import type { PanelSettings } from './settings';

export type WriteKind = 'release' | 'extend';
export type WriteOutcome = GuardedResult['outcome'] | 'cancelled' | 'refused' | 'error';

/** The user-facing side, implemented with VS Code dialogs (and scripted in tests). */
export interface WriteUi {
  /** A modal question; true only when the user picked `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
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
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

function confirmDetail(request: WriteRequest, lock: LockRow, token: string, ttlMs: number | undefined): string {
  const ttl = lock.pttl === -1 ? 'none: this lock never expires' : `${formatTtl(lock.pttl)} (${lock.pttl} ms)`;
  const lines = [
    `Connection: ${request.target.label}`,
    `Key: ${lock.key}`,
    `Holder: ${lock.holder.label} (${lock.holder.format})`,
    `TTL: ${ttl}`,
    `Token: ${token}`,
  ];
  if (ttlMs !== undefined) lines.push(`New TTL: ${ttlMs} ms`);
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
  const { kind, key } = request;
  const { ui } = deps;
  if (!deps.writes.allowed) {
    ui.warn(`Lockwise: ${kind} refused because ${deps.writes.reason}. Nothing was sent to Redis.`);
    return 'refused';
  }
  try {
    const connection = deps.session.connectionFor(request.target.id);
    const lock = await connection.read(key);
    if (!lock) {
      ui.info(`Lockwise: ${key} is already gone; nothing to ${kind}.`);
      return 'gone';
    }
    const token = lock.holder.token;
    if (token === undefined) {
      ui.warn(`Lockwise: cannot ${kind} ${key}: no holder token could be read from its value.`);
      return 'refused';
    }
    const ttlMs = kind === 'extend' ? await ui.askTtlMs(lock) : undefined;
    if (kind === 'extend' && ttlMs === undefined) return 'cancelled';
    const action = kind === 'release' ? 'Release' : 'Extend';
    const confirmed = await ui.confirm(`${action} lock ${key}?`, confirmDetail(request, lock, token, ttlMs), action);
    if (!confirmed) return 'cancelled';

    const result = kind === 'release' ? await connection.release(key, token) : await connection.extend(key, token, ttlMs!);
    switch (result.outcome) {
      case 'released':
        ui.info(`Lockwise: released ${key} (was held by ${lock.holder.label}).`);
        break;
      case 'extended':
        ui.info(`Lockwise: extended ${key} to ${ttlMs} ms.`);
        break;
      case 'token-changed':
        ui.warn(
          `Lockwise: ${key} is now held by ${result.currentHolder.label}, not by the holder you confirmed. ` +
            `Nothing was ${kind === 'release' ? 'removed' : 'extended'}.`,
        );
        break;
      case 'gone':
        ui.info(`Lockwise: ${key} was already gone; nothing to ${kind}.`);
        break;
    }
    return result.outcome;
  } catch (err) {
    ui.warn(`Lockwise: ${kind} of ${key} failed: ${errorText(err)}`);
    return 'error';
  }
}
