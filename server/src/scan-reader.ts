// How the workspace scan reads a file from disk: its size first, so that a file over the size limit is
// never read. Tests pass an instrumented reader to see what is read.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface ScanReader {
  /** The file's text; undefined, and not read, when it is larger than `maxBytes`. Throws when it cannot be read. */
  read(path: string, maxBytes: number): string | undefined;
}

/**
 * Synchronous, on the main thread, like the analysis that follows it (which reads imported modules and
 * configs the same way): a file in the page cache takes microseconds. Asynchronous reads cost four
 * thread-pool round trips a file (open, fstat, read, close), each waking a pool thread and then the main
 * thread; on the bench corpus (4,234 files) that was about 90 ms more main-thread CPU a scan, 70 of
 * them in the kernel, and some 20,000 preemptions of the main thread by the pool.
 */
export const diskReader: ScanReader = {
  read(path, maxBytes) {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > maxBytes) return undefined;
      const buffer = Buffer.allocUnsafe(size);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, size, 0));
    } finally {
      closeSync(fd);
    }
  },
};
