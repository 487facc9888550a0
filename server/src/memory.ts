// Keeps the workspace scan's resident memory near what the server actually holds. Each analysis
// builds a syntax tree and drops it; nothing stays alive between files, but V8 grows its heap lazily
// and a scan would otherwise peak far above the live set (about 320 MB against 210 MB on the bench
// corpus). Collecting whenever the heap has grown by GROWTH_BYTES since the last collection bounds
// the peak. Live editing uses it too (documents.ts), once a document's diagnostics are sent: 2,000
// random edits otherwise took the server from 150 MB to a 345 MB peak, almost all of it garbage V8 had
// not collected yet (about 50 MB of the heap is live). While more changes are waiting it allows twice
// the growth, so a collection rarely delays the next keystroke's diagnostics. The collector is
// reached the documented way: the --expose-gc flag set at run time, read from a fresh context.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const GROWTH_BYTES = 48 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc: unknown = runInNewContext('gc');

const used = () => getHeapStatistics().used_heap_size;
let afterLastCollection = used();

/** Call between analyses: collects when the heap grew past the allowance. */
export function collectIfGrown(allowance = GROWTH_BYTES): void {
  if (typeof gc !== 'function' || used() - afterLastCollection < allowance) return;
  gc();
  afterLastCollection = used();
}
