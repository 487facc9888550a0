// The correct counterpart of jobs/nightly-report.ts (redlock v5): a finite retry, the extended
// Lock kept, and a using() routine that stops as soon as its lock is lost.
import type { Redis } from 'ioredis';
import Redlock from 'redlock';
import type { ReportSink, ReportSource, SearchIndex } from '../jobs/nightly-report';

export function createBoundedRedlock(redis: Redis): Redlock {
  // About 10 s of trying, then ResourceLockedError: the scheduler runs the job again later.
  return new Redlock([redis], { retryCount: 20, retryDelay: 500, retryJitter: 200 });
}

export async function buildNightlyReportSafely(redlock: Redlock, source: ReportSource, sink: ReportSink, day: string): Promise<void> {
  let lock = await redlock.acquire([`lock:report:${day}`], 60_000);
  try {
    const totals = new Map<string, number>();
    for (const region of await source.regions()) {
      totals.set(region, await source.salesFor(region, day));
      // extend() returns a new Lock; the old one is expired and can no longer be released.
      lock = await lock.extend(60_000);
    }
    await sink.write(day, totals);
  } finally {
    await lock.release();
  }
}

export async function rebuildSearchIndexSafely(redlock: Redlock, index: SearchIndex): Promise<number> {
  return redlock.using(['lock:search-index'], 30_000, async (signal) => {
    await index.dropStaging();
    const count = await index.indexAll();
    // Swapping after the lock was lost could publish a half-built index over another run's.
    if (signal.aborted) throw signal.error ?? new Error('search index lock lost');
    await index.swapStagingToLive();
    return count;
  });
}
