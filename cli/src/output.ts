// The report goes out through fs.writeSync, not process.stdout/stderr: creating those streams loads
// about twenty of Node's stream modules, a noticeable part of the start of a check that has nothing to
// report. A pipe that cannot take more right now (EAGAIN: its reader set it non-blocking and is slow)
// gets the rest, and everything after it, through the stream as before, so the order is kept.
// A reader that went away (`lockwise check | head`: EPIPE) gets nothing more; the command still ends
// with its own exit code, so a pipeline with pipefail still sees the findings.
import { fstatSync, writeSync } from 'node:fs';

const streamed = new Set<number>();
const closed = new Set<number>();
const streamOf = (fd: 1 | 2) => (fd === 1 ? process.stdout : process.stderr);

const readerGone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'EPIPE';

export function write(fd: 1 | 2, text: string): void {
  if (!text || closed.has(fd)) return;
  let rest = Buffer.from(text);
  while (rest.length && !streamed.has(fd)) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if (readerGone(err)) return void closed.add(fd);
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      streamed.add(fd);
      streamOf(fd).on('error', (e) => {
        if (!readerGone(e)) throw e;
        closed.add(fd);
      });
    }
  }
  if (rest.length) streamOf(fd).write(rest);
}

/** Whether `fd` is a terminal; only a character device can be one, so a pipe or file is decided without the stream. */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return streamOf(fd).isTTY === true;
}
