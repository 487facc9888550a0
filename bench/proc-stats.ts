// Process figures from /proc (Linux only; undefined elsewhere) for the server benches.
import { readFileSync } from 'node:fs';

/** Peak and current resident set of a process. */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a process's main thread so far, in ms (user + system, in clock ticks of 10 ms). On a
 * shared machine it moves far less than wall time: it leaves out the time spent waiting for a core.
 */
export function mainThreadCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
