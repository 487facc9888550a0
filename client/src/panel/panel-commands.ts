// Registers every panel command. Item commands receive the tree element (a node id); when run from a
// keybinding instead, they use the view's selection.
import * as vscode from 'vscode';
import type { LockRow } from '../locks/types';
import { goToLockCode, type LockSitesProvider } from './go-to-code';
import { guardedWrite, type WriteKind } from './guarded-write';
import { Command, ContextKey } from './ids';
import type { LockSession } from './lock-session';
import type { LockTreeProvider } from './lock-tree-provider';
import type { RedisPasswords } from './redis-passwords';
import type { RefreshScheduler } from './refresh-scheduler';
import type { PanelSettings } from './settings';
import { snapshotMarkdown } from './snapshot-markdown';
import type { PanelView } from './panel-state';
import { clockTime } from './ttl-text';
import { vscodeWriteUi } from './write-ui';
import { showLockHistory } from './history-document';

export interface PanelControls {
  session: LockSession;
  scheduler: RefreshScheduler;
  provider: LockTreeProvider;
  treeView: vscode.TreeView<string>;
  passwords: RedisPasswords;
  lockSites?: LockSitesProvider;
  settings(): PanelSettings;
  view(): PanelView;
  filter: { get(): string; set(text: string): void };
  /** Remembers that the user disconnected, so showing the view does not reconnect by itself. */
  setUserDisconnected(value: boolean): void;
}

interface LockTarget {
  row: LockRow;
  connectionId: string;
  /** The row is not live: when it was read. */
  staleSince?: number;
}

function lockOf(c: PanelControls, id: string | undefined): LockTarget | undefined {
  const node = c.provider.node(id ?? c.treeView.selection[0] ?? '');
  if (node?.kind !== 'lock') return undefined;
  return { row: node.row, connectionId: node.connectionId, staleSince: node.stale ? node.readAt : undefined };
}

function connect(c: PanelControls): void {
  c.setUserDisconnected(false);
  c.session.connect();
  c.scheduler.request('connect');
}

async function write(c: PanelControls, kind: WriteKind, id: string | undefined): Promise<void> {
  const lock = lockOf(c, id);
  if (!lock) return;
  const target = c.session.targets().find((t) => t.id === lock.connectionId);
  if (!target) return;
  const staleReason =
    lock.staleSince !== undefined
      ? `the row was read at ${clockTime(lock.staleSince)} and ${target.label} has not answered since; refresh once it is back`
      : undefined;
  await guardedWrite(
    { kind, target, key: lock.row.key, shown: lock.row, staleReason },
    { session: c.session, writes: c.settings().writes, ui: vscodeWriteUi },
  );
  c.scheduler.request('after-write');
}

async function setPassword(c: PanelControls, id: string | undefined): Promise<void> {
  const targets = c.session.targets();
  const node = id ? c.provider.node(id) : undefined;
  let target = node?.kind === 'connection' ? targets.find((t) => t.id === node.connection.target.id) : undefined;
  if (!target && targets.length === 1) target = targets[0];
  if (!target) {
    const picked = await vscode.window.showQuickPick(
      targets.map((t) => ({ label: t.label, description: t.kind, target: t })),
      { title: 'Set the Redis password for' },
    );
    target = picked?.target;
  }
  if (!target) return;
  const password = await vscode.window.showInputBox({
    title: `Redis password for ${target.label}`,
    prompt: "Kept in VS Code's secret storage, never in settings or logs. Leave empty to remove the stored password.",
    password: true,
    ignoreFocusOut: true,
  });
  if (password === undefined) return;
  if (password === '') await c.passwords.delete(target.id);
  else await c.passwords.set(target.id, password);
  // The secret-storage change event reconnects the target (in this window and any other).
}

export function registerPanelCommands(c: PanelControls): vscode.Disposable[] {
  const register = (command: Command, run: (id?: string) => unknown) => vscode.commands.registerCommand(command, run);
  return [
    register(Command.Refresh, () => (c.session.isActive ? c.scheduler.request('manual') : connect(c))),
    register(Command.Connect, () => connect(c)),
    register(Command.Disconnect, async () => {
      c.setUserDisconnected(true);
      await c.session.disconnect();
    }),
    register(Command.Filter, async () => {
      const text = await vscode.window.showInputBox({
        title: 'Filter Redis Locks',
        prompt: 'A Redis glob on keys (lock:order:*), or text matched against key, holder and state. Empty shows all.',
        value: c.filter.get(),
      });
      if (text !== undefined) c.filter.set(text);
    }),
    register(Command.ClearFilter, () => c.filter.set('')),
    register(Command.GoToCode, async (id) => {
      const lock = lockOf(c, id);
      if (lock) await goToLockCode(lock.row.key, c.lockSites);
    }),
    register(Command.CopyToken, async (id) => {
      const lock = lockOf(c, id);
      if (!lock) return;
      const token = lock.row.holder.token ?? lock.row.raw;
      await vscode.env.clipboard.writeText(token);
      vscode.window.setStatusBarMessage(`Lockwise: copied the token of ${lock.row.key}`, 3000);
    }),
    register(Command.CopySnapshot, async () => {
      await vscode.env.clipboard.writeText(snapshotMarkdown(c.view(), Date.now()));
      vscode.window.setStatusBarMessage('Lockwise: copied the Redis locks snapshot as Markdown', 3000);
    }),
    register(Command.Release, (id) => write(c, 'release', id)),
    register(Command.Extend, (id) => write(c, 'extend', id)),
    register(Command.SetPassword, (id) => setPassword(c, id)),
    register(Command.ShowHistory, async (id) => {
      const lock = lockOf(c, id);
      await showLockHistory(c.session.views(), lock && { key: lock.row.key, connectionId: lock.connectionId });
    }),
  ];
}

export function setContext(key: ContextKey, value: unknown): void {
  void vscode.commands.executeCommand('setContext', key, value);
}
