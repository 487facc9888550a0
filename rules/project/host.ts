// How the project layer reads files, the way TypeScript's compiler takes a CompilerHost: the CLI
// passes the file system, the language server its open documents over the file system, tests an
// in-memory map. The project layer never touches the file system itself.
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { readSourceFile } from './source-text';

/** A folder's entries by name: its files and its sub-folders. */
export interface FolderListing {
  files: string[];
  folders: string[];
}

export interface ProjectHost {
  /** The file's text, or undefined when it cannot be read. */
  readFile(path: string): string | undefined;
  fileExists(path: string): boolean;
  /** The folder's entries; undefined when it cannot be listed. Without it, nothing is searched for by walking. */
  listFolder?(dir: string): FolderListing | undefined;
}

function listWithFs(dir: string): FolderListing | undefined {
  try {
    const listing: FolderListing = { files: [], folders: [] };
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // Links are not followed: a link to a parent folder would make the walk endless.
      if (entry.isFile()) listing.files.push(entry.name);
      else if (entry.isDirectory()) listing.folders.push(entry.name);
    }
    return listing;
  } catch {
    return undefined;
  }
}

export const fileSystemHost: ProjectHost = {
  readFile: readSourceFile,
  fileExists(path) {
    try {
      return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
    } catch {
      return false;
    }
  },
  listFolder: listWithFs,
};

/** Texts given by the caller first (open documents, files already read), the fallback host for the rest. */
export function overlayHost(texts: { get(path: string): string | undefined }, fallback: ProjectHost): ProjectHost {
  return {
    readFile: (path) => texts.get(path) ?? fallback.readFile(path),
    fileExists: (path) => texts.get(path) !== undefined || fallback.fileExists(path),
    listFolder: fallback.listFolder && ((dir) => fallback.listFolder?.(dir)),
  };
}

/** An in-memory project (tests, and single-file tools given their neighbours). */
export function memoryHost(files: Record<string, string>): ProjectHost {
  const map = new Map(Object.entries(files));
  const listFolder = (dir: string): FolderListing | undefined => {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    const files = new Set<string>();
    const folders = new Set<string>();
    for (const path of map.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) files.add(rest);
      else folders.add(rest.slice(0, slash));
    }
    return files.size + folders.size > 0 ? { files: [...files], folders: [...folders] } : undefined;
  };
  return { readFile: (path) => map.get(path), fileExists: (path) => map.has(path), listFolder };
}

/**
 * A host that reads each file once and each folder's listing once (a `lockwise check` run: files do
 * not change under it). Resolving a specifier probes up to twenty names; one listing per folder
 * answers them all. A name is found as listed, so on a case-insensitive disk a specifier must spell
 * the file's case, as TypeScript's forceConsistentCasingInFileNames asks.
 */
export function snapshotHost(fallback: ProjectHost = fileSystemHost): ProjectHost {
  const texts = new Map<string, string | undefined>();
  const listings = new Map<string, { files: Set<string>; links: Set<string>; folders: string[] } | null>();
  const listing = (dir: string) => {
    let entries = listings.get(dir);
    if (entries === undefined) {
      try {
        entries = { files: new Set(), links: new Set(), folders: [] };
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.isFile()) entries.files.add(entry.name);
          else if (entry.isSymbolicLink()) entries.links.add(entry.name);
          else if (entry.isDirectory()) entries.folders.push(entry.name);
        }
      } catch {
        entries = null; // no such folder (a probe of `x/index.ts` where x is a file), or unreadable
      }
      listings.set(dir, entries);
    }
    return entries;
  };
  return {
    readFile(path) {
      if (!texts.has(path)) texts.set(path, fallback.readFile(path));
      return texts.get(path);
    },
    fileExists(path) {
      const entries = listing(dirname(path));
      const name = basename(path);
      // A link may name a folder: only its target says.
      return !!entries && (entries.files.has(name) || (entries.links.has(name) && fallback.fileExists(path)));
    },
    listFolder(dir) {
      const entries = listing(dir);
      return entries ? { files: [...entries.files], folders: entries.folders } : undefined;
    },
  };
}
