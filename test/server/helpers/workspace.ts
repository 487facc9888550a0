// Throw-away workspace folders on disk for the server tests, under test/.tmp so that module
// resolution from them walks up to the repository's node_modules (ioredis, redis types...). Each is
// a repository root of its own (a .git folder), as a real workspace is: otherwise this repository's
// .gitignore, which ignores test/.tmp, would hide every file from the server's scan.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const TMP = join(import.meta.dirname, '..', '..', '.tmp');

export interface TempWorkspace {
  path: string;
  uri: string;
  name: string;
  file(rel: string): string;
  uriOf(rel: string): string;
  write(rel: string, text: string): string;
  remove(): void;
}

export function tempWorkspace(prefix: string, files: Record<string, string> = {}): TempWorkspace {
  mkdirSync(TMP, { recursive: true });
  const path = mkdtempSync(join(TMP, `${prefix}-`));
  mkdirSync(join(path, '.git'));
  const ws: TempWorkspace = {
    path,
    uri: pathToFileURL(path).href,
    name: prefix,
    file: (rel) => join(path, rel),
    uriOf: (rel) => pathToFileURL(join(path, rel)).href,
    write(rel, text) {
      const file = join(path, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return pathToFileURL(file).href;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
  for (const [rel, text] of Object.entries(files)) ws.write(rel, text);
  return ws;
}
