// The VS Code side of Release Lock / Extend Lock: the confirmation, an input box for the TTL, and one
// notification for the result (a reply to the user's own action, never a repeated pop-up).
import * as vscode from 'vscode';
import { escapeControlChars } from '../locks/display-text';
import type { LockRow } from '../locks/types';
import type { WriteUi } from './guarded-write';
import { humanDuration, parseTtlInput } from './ttl-input';

const DEFAULT_EXTEND_MS = 30_000;

/**
 * Release asks with a quick pick whose first, preselected entry is Cancel: a modal dialog always
 * focuses its action button, so Enter there would delete the lock.
 */
async function confirmDestructive(message: string, detail: string, action: string): Promise<boolean> {
  const lines = detail.split('\n').filter((line) => line.trim() !== '');
  const cancel: vscode.QuickPickItem = { label: 'Cancel', description: 'keep the lock (Enter)' };
  const go: vscode.QuickPickItem = { label: action, description: lines.at(-1), detail: lines.slice(0, -1).join(' · ') };
  const picked = await vscode.window.showQuickPick([cancel, go], {
    title: message,
    placeHolder: `Enter keeps the lock; choose "${action}" to go ahead`,
    ignoreFocusOut: true,
  });
  return picked === go;
}

export const vscodeWriteUi: WriteUi = {
  async confirm(message, detail, action, destructive) {
    if (destructive) return confirmDestructive(message, detail, action);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
    return choice === action;
  },

  async askTtlMs(lock: LockRow) {
    // Suggest the longest TTL seen for this holder: what its owner asked for, as far as Redis can tell.
    const suggested = lock.peakPttl && lock.peakPttl > 0 ? lock.peakPttl : DEFAULT_EXTEND_MS;
    const now = lock.pttl >= 0 ? `TTL now ${humanDuration(lock.pttl)}` : 'no TTL now';
    const text = await vscode.window.showInputBox({
      title: `Extend ${escapeControlChars(lock.key)}`,
      prompt: `New TTL counted from now (${now}): 30s, 10m, 1h, 1h30m; a bare number is milliseconds`,
      value: humanDuration(Math.round(suggested / 1000) * 1000 || suggested).replace(/ /g, ''),
      validateInput: (v) => {
        const parsed = parseTtlInput(v);
        if ('error' in parsed) return parsed.error;
        return { message: `${humanDuration(parsed.ms)} (${parsed.ms} ms)`, severity: vscode.InputBoxValidationSeverity.Info };
      },
    });
    if (text === undefined) return undefined;
    const parsed = parseTtlInput(text);
    return 'ms' in parsed ? parsed.ms : undefined;
  },

  info(message) {
    void vscode.window.showInformationMessage(message);
  },

  warn(message) {
    void vscode.window.showWarningMessage(message);
  },
};
