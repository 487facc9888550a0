// Custom LSP messages shared by the server and the VS Code client (names and types), and the client
// command that the server's code actions run.

/** The VS Code client's command that opens a rule's bundled doc (offered when initializationOptions.ruleDocCommand). */
export const SHOW_RULE_DOC_COMMAND = 'lockwise.showRuleDocumentation';

export const LOCK_SITES_REQUEST = 'lockwise/lockSites';

export interface LockSitesParams {
  /** Limit to one workspace folder URI; default all folders. */
  folderUri?: string;
}

/** One place in the workspace's code that acquires a lock. */
export interface LockSite {
  uri: string;
  /** 0-based LSP range of the acquire call. */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** The key expression as written, e.g. "`lock:order:${id}`". */
  keyText: string;
  /** The key turned into a Redis glob, e.g. "lock:order:*" ("*" when nothing is known). */
  keyGlob: string;
  /** How it acquires: 'set-nx', 'setnx', 'redlock', 'semaphore', 'with-lock', 'lua', 'helper'. */
  kind: string;
  /** Lockwise findings at this site (rule id + message). */
  findings: { rule: string; message: string }[];
  /** The TTL as written, with its unit ("30000 ms", "30 s"); absent when the acquire sets none. */
  ttlText?: string;
  /** The token expression as written (where the lock value comes from). */
  tokenText?: string;
  /** Where this lock is released in the same function (0-based LSP ranges in `uri`). */
  releases?: LockSite['range'][];
}

export interface LockSitesResult {
  sites: LockSite[];
  /** True while the first workspace scan is still running: files not reached yet are missing. */
  partial?: boolean;
}

/** Runs the workspace scan now (cancelling one in progress) and answers when it is over. */
export const CHECK_WORKSPACE_REQUEST = 'lockwise/checkWorkspace';

export interface CheckWorkspaceResult {
  /** Source files visited. */
  files: number;
  /** Findings in them (files open in the editor count with their text on disk). */
  findings: number;
  /** Files skipped: too large, ignored by config, or the analyzer failed on them. */
  notAnalysed: number;
  durationMs: number;
  /** True when a newer scan or the user cancelled this one before it finished. */
  cancelled: boolean;
}

/** Server -> client during a workspace scan (the language status item shows "checking 250/3,245"). */
export const SCAN_PROGRESS_NOTIFICATION = 'lockwise/scanProgress';

export interface ScanProgress {
  /** Files analysed so far. */
  done: number;
  /** Files to analyse; 0 while they are still being listed. */
  total: number;
  /** The scan is over (finished or cancelled). */
  finished: boolean;
}
