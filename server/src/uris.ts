// File paths <-> URIs. The server publishes diagnostics for files the editor has not opened, so their
// URIs must be spelled the way VS Code spells them (it percent-encodes everything but A-Z a-z 0-9 - . _ ~
// and lower-cases Windows drive letters), or one file would show up twice in the Problems view.
import { fileURLToPath } from 'node:url';

const EXTENSION_BY_LANGUAGE: Record<string, string> = {
  typescript: '.ts',
  typescriptreact: '.tsx',
  javascript: '.js',
  javascriptreact: '.jsx',
};

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function pathToUri(path: string): string {
  let p = path.replace(/\\/g, '/');
  let drive = '';
  const driveMatch = /^([A-Za-z]):(\/|$)/.exec(p);
  if (driveMatch) {
    drive = `/${driveMatch[1].toLowerCase()}%3A`;
    p = p.slice(2);
  }
  return `file://${drive}${p.split('/').map(encodeSegment).join('/')}`;
}

/** The file system path of a `file:` URI; undefined for other schemes (untitled:, vscode-notebook-cell:...). */
export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/**
 * The name the analyzer sees: it picks the parser by extension. An untitled buffer has none, so its
 * language decides.
 */
export function analysisFileName(uri: string, languageId: string): string {
  const path = uriToPath(uri);
  if (path) return path;
  return `untitled${EXTENSION_BY_LANGUAGE[languageId] ?? '.ts'}`;
}
