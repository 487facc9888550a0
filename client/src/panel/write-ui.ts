// The VS Code side of Release Lock / Extend Lock: a modal confirmation, an input box for the TTL,
// and one notification for the result (a reply to the user's own action, never a repeated pop-up).
import * as vscode from 'vscode';
import type { LockRow } from '../locks/types';
import type { WriteUi } from './guarded-write';

const DEFAULT_EXTEND_MS = 30_000;

export const vscodeWriteUi: WriteUi = {
  async confirm(message, detail, action) {
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
    return choice === action;
  },

  async askTtlMs(lock: LockRow) {
    // Suggest the longest TTL seen for this holder: what its owner asked for, as far as Redis can tell.
    const suggested = lock.peakPttl && lock.peakPttl > 0 ? lock.peakPttl : DEFAULT_EXTEND_MS;
    const text = await vscode.window.showInputBox({
      title: `Extend ${lock.key}`,
      prompt: 'New TTL in milliseconds (counted from now)',
      value: String(suggested),
      validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'A whole number of milliseconds, greater than 0'),
    });
    return text === undefined ? undefined : Number(text.trim());
  },

  info(message) {
    void vscode.window.showInformationMessage(message);
  },

  warn(message) {
    void vscode.window.showWarningMessage(message);
  },
};
