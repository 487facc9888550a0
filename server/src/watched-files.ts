// Files changed on disk (by git, a formatter, another editor): source files are re-analysed one by
// one; a changed lockwise.config.json, package.json or .gitignore can change what applies to every
// file, so it triggers a full rescan. A changed tsconfig.json, package.json (workspaces, `imports`),
// pnpm-workspace.yaml or lerna.json can change where every import leads: the project model resolves
// again from scratch before that rescan. A Lua script a module reads beside itself (readFileSync) is
// part of that module's meaning: the files that read it are analysed again.
import { basename } from 'node:path';
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type Connection,
  type DidChangeWatchedFilesParams,
} from 'vscode-languageserver/node';
import { CONFIG_FILE } from '../../rules/config';
import { isSourceFile } from './file-walker';
import { uriToPath } from './uris';
import type { WorkspaceScan } from './workspace-scan';

// The baseline's default name: a rewritten baseline changes what every file shows.
const CONFIG_NAMES = new Set([CONFIG_FILE, 'package.json', '.gitignore', 'lockwise-baseline.json']);
const RESOLUTION_NAMES = ['tsconfig*.json', 'jsconfig*.json', 'package.json', 'pnpm-workspace.yaml', 'lerna.json'];
const RESOLUTION_FILE = /^(?:[tj]sconfig(?:\.[\w.-]+)?\.json|package\.json|pnpm-workspace\.yaml|lerna\.json)$/;
const SCRIPT_FILE = /\.lua$/i;

export function registerWatchedFiles(connection: Connection): Promise<unknown> {
  return connection.client.register(DidChangeWatchedFilesNotification.type, {
    watchers: [
      { globPattern: '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}' },
      { globPattern: `**/{${[...new Set([...CONFIG_NAMES, ...RESOLUTION_NAMES])].join(',')}}` },
      { globPattern: '**/*.lua' },
    ],
  });
}

export interface WatchedFileHandlers {
  configChanged(): void;
  /** Module specifiers may lead elsewhere now: forget every resolution. */
  resolutionChanged(): void;
  scan: WorkspaceScan;
  /** A source file was created or deleted: imports may resolve to other files now. */
  filesMoved(path: string): void;
  /** A script read beside a module was created, changed or deleted. */
  scriptChanged(path: string): void;
}

export async function handleWatchedFiles(params: DidChangeWatchedFilesParams, on: WatchedFileHandlers): Promise<void> {
  const paths = params.changes.map((c) => ({ type: c.type, path: uriToPath(c.uri) }));
  const resolution = paths.some((c) => c.path && RESOLUTION_FILE.test(basename(c.path)));
  if (resolution) on.resolutionChanged();
  if (resolution || paths.some((c) => c.path && CONFIG_NAMES.has(basename(c.path)))) {
    on.configChanged(); // the rescan covers the source files of this batch too
    return;
  }
  for (const { type, path } of paths) {
    if (!path) continue;
    if (SCRIPT_FILE.test(path)) {
      on.scriptChanged(path);
      continue;
    }
    if (type === FileChangeType.Deleted) on.scan.removeUnder(path);
    else if (isSourceFile(path)) await on.scan.fileChanged(path);
    if (type !== FileChangeType.Changed) on.filesMoved(path);
  }
}
