// Entry of the Redis Locks view: builds the session (Redis side, via the lock core), the scheduler,
// the tree, the status bar item and the commands, and keeps them in step with settings, workspace
// trust, secret changes and the view's visibility.
import * as vscode from 'vscode';
import { formatAuditLine, openLockConnection } from '../locks';
import type { LockSitesProvider } from './go-to-code';
import { registerHistoryDocuments } from './history-document';
import { ContextKey, VIEW_ID, type PanelState } from './ids';
import { scanGlobsFromSites } from './lock-sites-match';
import { LockSession } from './lock-session';
import { LockTreeProvider } from './lock-tree-provider';
import { registerPanelCommands, setContext } from './panel-commands';
import type { PanelView } from './panel-state';
import { RedisPasswords } from './redis-passwords';
import { RefreshScheduler } from './refresh-scheduler';
import { readPanelSettings, settingsNotices, SETTINGS_SECTION, type PanelSettings } from './settings';
import { statusText } from './status-text';

export interface LockPanelOptions {
  /** The language client's `lockwise/lockSites` call; without it, Go to Code and code globs are off. */
  lockSites?: LockSitesProvider;
  /** The extension's one output channel: the audit records of releases and extends go there. */
  output: vscode.LogOutputChannel;
}

const DEBOUNCE_MS = 200;
const TICK_MS = 1000;

function readSettings(): PanelSettings {
  return readPanelSettings(vscode.workspace.getConfiguration(SETTINGS_SECTION), vscode.workspace.isTrusted);
}

export function activateLockPanel(context: vscode.ExtensionContext, options: LockPanelOptions): void {
  const { lockSites, output } = options;
  let settings = readSettings();
  let filter = '';
  let userDisconnected = false;

  const passwords = new RedisPasswords(context.secrets);
  const provider = new LockTreeProvider();
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const status = vscode.window.createStatusBarItem('lockwise.redisStatus', vscode.StatusBarAlignment.Left, 10);
  status.name = 'Lockwise Redis';
  status.command = `${VIEW_ID}.focus`;

  const view = (): PanelView => ({ connections: session.views(), filter, notices: settingsNotices(settings), heldLongMs: settings.heldLongMs });

  const render = () => {
    const state: PanelState = !session.isConfigured ? 'unconfigured' : session.isActive ? 'active' : 'idle';
    setContext(ContextKey.PanelState, state);
    setContext(ContextKey.Filtered, filter !== '');
    // An empty tree lets the view's welcome content (connect / configure) show.
    if (state === 'active') provider.update(view());
    else provider.clear();
    treeView.description = filter ? `filter: ${filter}` : undefined;
    const data = statusText(session.views(), session.isActive);
    if (!data) return status.hide();
    status.text = data.text;
    status.tooltip = data.tooltip;
    status.backgroundColor = data.severity ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    status.show();
  };

  const session = new LockSession(settings, {
    open: openLockConnection,
    password: (targetId) => passwords.get(targetId),
    extraPatterns: lockSites
      ? async () => scanGlobsFromSites((await lockSites()).sites, settings.list.patterns)
      : undefined,
    audit: (record) => output.info(formatAuditLine(record)),
    onChange: render,
  });

  const scheduler = new RefreshScheduler({
    intervalMs: settings.refreshMs,
    debounceMs: DEBOUNCE_MS,
    tickMs: TICK_MS,
    refresh: (reasons) => session.refresh(reasons),
    tick: () => {
      provider.tick();
      if (session.retryDue(Date.now())) scheduler.request('reconnect');
    },
  });

  const onVisible = (visible: boolean) => {
    // Opening the view is the request to browse; after an explicit Disconnect it waits for Connect.
    if (visible && !session.isActive && !userDisconnected && session.isConfigured) {
      session.connect();
      scheduler.request('connect');
    }
    scheduler.setVisible(visible);
  };

  const applySettings = async () => {
    settings = readSettings();
    await session.configure(settings);
    scheduler.setInterval(settings.refreshMs);
    scheduler.request('settings');
  };

  context.subscriptions.push(
    registerHistoryDocuments(),
    provider,
    treeView,
    status,
    ...registerPanelCommands({
      session,
      scheduler,
      provider,
      treeView,
      passwords,
      lockSites,
      settings: () => settings,
      view,
      filter: {
        get: () => filter,
        set: (text) => {
          filter = text.trim();
          render();
        },
      },
      setUserDisconnected: (value) => (userDisconnected = value),
    }),
    treeView.onDidChangeVisibility((e) => onVisible(e.visible)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) void applySettings();
    }),
    // Trust can only be granted while running (revoking reloads the window): re-read with the workspace's values.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void applySettings()),
    passwords.onDidChange((targetId) => {
      void session.reset(targetId).then(() => scheduler.request('manual'));
    }),
    { dispose: () => scheduler.dispose() },
    { dispose: () => void session.dispose() },
  );

  render();
  if (treeView.visible) onVisible(true);
}
