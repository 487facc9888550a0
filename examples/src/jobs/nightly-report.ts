// The nightly sales report and the search index rebuild: long jobs that must run on one worker
// at a time, locked with redlock v5. The report keeps extending a lock it no longer holds, the
// rebuild ignores the signal that says its lock is gone, and acquiring waits forever.
import type { Redis } from 'ioredis';
import Redlock from 'redlock';

export interface ReportSource {
  regions(): Promise<string[]>;
  salesFor(region: string, day: string): Promise<number>;
}

export interface ReportSink {
  write(day: string, totals: Map<string, number>): Promise<void>;
}

export interface SearchIndex {
  dropStaging(): Promise<void>;
  indexAll(): Promise<number>;
  swapStagingToLive(): Promise<void>;
}

export function createRedlock(redis: Redis): Redlock {
  // Every job waits for its lock however long the previous run takes.
  return new Redlock([redis], { retryCount: -1, retryDelay: 500, retryJitter: 200 });
}

export async function buildNightlyReport(redlock: Redlock, source: ReportSource, sink: ReportSink, day: string): Promise<void> {
  const lock = await redlock.acquire([`lock:report:${day}`], 60_000);
  try {
    const totals = new Map<string, number>();
    for (const region of await source.regions()) {
      totals.set(region, await source.salesFor(region, day));
      // One region can take most of a minute: push the expiry out before the next one.
      await lock.extend(60_000);
    }
    await sink.write(day, totals);
  } finally {
    await lock.release();
  }
}

export async function rebuildSearchIndex(redlock: Redlock, index: SearchIndex): Promise<number> {
  return redlock.using(['lock:search-index'], 30_000, async () => {
    await index.dropStaging();
    const count = await index.indexAll();
    await index.swapStagingToLive();
    return count;
  });
}
