// Every identifier the panel shares with package.json, in one vscode-free place so a test can
// cross-check the manifest against the code (commands, view, context values, context keys).

export const VIEW_CONTAINER_ID = 'lockwise';
export const VIEW_ID = 'lockwise.locks';

/** Panel commands; all are `lockwise.<verbNoun>` under the "Lockwise" category. */
export enum Command {
  Refresh = 'lockwise.refreshLocks',
  Connect = 'lockwise.connectRedis',
  Disconnect = 'lockwise.disconnectRedis',
  Filter = 'lockwise.filterLocks',
  ClearFilter = 'lockwise.clearLockFilter',
  GoToCode = 'lockwise.goToLockCode',
  CopyToken = 'lockwise.copyLockToken',
  CopySnapshot = 'lockwise.copyLockSnapshot',
  Release = 'lockwise.releaseLock',
  Extend = 'lockwise.extendLock',
  SetPassword = 'lockwise.setRedisPassword',
  ShowHistory = 'lockwise.showLockHistory',
}

/**
 * The one enum for every tree item's contextValue; package.json `when` clauses match these exactly.
 * Locks that can be written carry a distinct value so the write commands only appear on them.
 */
export enum ContextValue {
  Connection = 'lockwise.connection',
  ConnectionDown = 'lockwise.connectionDown',
  Group = 'lockwise.group',
  Lock = 'lockwise.lock',
  LockWritable = 'lockwise.lockWritable',
  /** A lock row from a listing that could not be refreshed: Release/Extend are shown disabled. */
  LockStale = 'lockwise.lockStale',
  Message = 'lockwise.message',
}

/** `setContext` keys used by viewsWelcome and menus. */
export enum ContextKey {
  /** 'unconfigured' | 'idle' | 'active': which welcome text the empty view shows. */
  PanelState = 'lockwise.locks.panelState',
  Filtered = 'lockwise.locks.filtered',
}

/** Values of ContextKey.PanelState: no connection configured, not browsing, browsing. */
export const PANEL_STATES = ['unconfigured', 'idle', 'active'] as const;
export type PanelState = (typeof PANEL_STATES)[number];
