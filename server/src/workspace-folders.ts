// The open workspace folders (multi-root): which folder a file belongs to decides its settings scope.
import { sep } from 'node:path';
import type { WorkspaceFolder } from 'vscode-languageserver/node';
import { uriToPath } from './uris';

export interface Folder {
  uri: string;
  path: string;
  name: string;
}

export class WorkspaceFolders {
  private folders: Folder[] = [];

  set(list: readonly WorkspaceFolder[]): void {
    this.folders = [];
    this.add(list);
  }

  add(list: readonly WorkspaceFolder[]): void {
    for (const f of list) {
      const path = uriToPath(f.uri);
      if (path && !this.folders.some((x) => x.uri === f.uri)) this.folders.push({ uri: f.uri, path, name: f.name });
    }
    // Longest path first, so a nested folder wins over its parent in folderOf.
    this.folders.sort((a, b) => b.path.length - a.path.length);
  }

  remove(list: readonly WorkspaceFolder[]): void {
    this.folders = this.folders.filter((f) => !list.some((r) => r.uri === f.uri));
  }

  all(): readonly Folder[] {
    return this.folders;
  }

  folderOf(path: string | undefined): Folder | undefined {
    if (!path) return undefined;
    return this.folders.find((f) => path === f.path || path.startsWith(f.path.endsWith(sep) ? f.path : f.path + sep));
  }
}
