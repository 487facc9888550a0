// Source files read as text, the one way every reader decodes them (the CLI's walk, the project host),
// so that columns agree with the language server's.
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Larger files are not analysed (generated bundles); the walk says so, the project host reads none. */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

const utf8 = new TextDecoder();

/**
 * Most source is ASCII, which decodes as Latin-1 by a plain copy, several times faster than UTF-8.
 * Other text goes through TextDecoder, which drops a BOM as editors do and turns bad bytes into U+FFFD.
 */
export function decodeSource(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : utf8.decode(bytes);
}

/**
 * One buffer for every read, each file's bytes decoded before the next is read: a fresh buffer per
 * file (readFileSync) made reading the megabytes of modules a check imports three times slower.
 */
let readBuffer: Buffer | undefined;

/** The open file's bytes up to the size limit (a file grown past it since its size was read is cut there). */
export function readOpenFile(fd: number): Buffer {
  readBuffer ??= Buffer.allocUnsafeSlow(MAX_SOURCE_BYTES);
  let length = 0;
  for (let n; length < MAX_SOURCE_BYTES && (n = readSync(fd, readBuffer, length, MAX_SOURCE_BYTES - length, null)) > 0; ) length += n;
  return readBuffer.subarray(0, length);
}

/**
 * A regular file's text, or undefined when it is missing, not a file, over the limit or unreadable.
 * A missing file answers without an exception: package.json is looked for in every folder above each
 * analysed file, and a thrown ENOENT cost seven times the stat that finds nothing.
 */
export function readSourceFile(path: string): string | undefined {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > MAX_SOURCE_BYTES) return undefined;
    const fd = openSync(path, 'r');
    try {
      return decodeSource(readOpenFile(fd));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
