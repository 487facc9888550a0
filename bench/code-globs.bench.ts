// Redis-side cost of one Redis Locks refresh as the workspace's code holds more key prefixes. Each
// SCAN pattern is a full walk of the keyspace; the globs taken from code are capped and merged
// (scanGlobsFromSites), so the cost of a refresh must be the same for 4 and for 500 code prefixes.
// Figures: INFO commandstats (calls and usec of every command the listing sent) after CONFIG RESETSTAT,
// on a private redis-server holding 100,000 keys. For contrast, the uncapped behaviour (one pattern per
// prefix) is measured with 50 prefixes.
import Redis from 'ioredis';
import { DEFAULT_PATTERNS, openLockConnection } from '../client/src/locks/index';
import { scanGlobsFromSites } from '../client/src/panel/lock-sites-match';
import type { LockSite } from '../server/src/protocol';
import { startRedis } from '../test/helpers/redis-server';

const KEYS = 100_000;
/** The median of RUNS refreshes is printed: the machine is shared and CPU time is noisy. */
const RUNS = 5;

/** Acquire sites whose key prefixes share no leading text ("p17x:job:*"), like a 500-function file's. */
const sites = (n: number): LockSite[] =>
  Array.from({ length: n }, (_, i) => ({ uri: 'file:///w/a.ts', range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, keyText: '', keyGlob: `p${i}x:job:*`, kind: 'set-nx', findings: [] }));

function commandStats(info: string): { calls: number; usec: number; scans: number } {
  let calls = 0;
  let usec = 0;
  let scans = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (m[1] === 'config' || m[1] === 'info') continue;
    calls += Number(m[2]);
    usec += Number(m[3]);
    if (m[1] === 'scan') scans += Number(m[2]);
  }
  return { calls, usec, scans };
}

async function main(): Promise<void> {
  const server = await startRedis({ args: ['--enable-debug-command', 'yes'] });
  const admin = new Redis(server.port, '127.0.0.1');
  try {
    await admin.call('DEBUG', 'POPULATE', String(KEYS), 'filler', '16');
    for (let i = 0; i < 100; i++) await admin.set(`lock:bench:${i}`, `tok-${i}`, 'PX', 600_000);
    const conn = await openLockConnection({ url: server.url });
    try {
      const measure = async (label: string, patterns: string[]) => {
        await conn.list({ patterns }); // warm-up: connection, INFO, CLIENT NO-TOUCH
        await admin.config('RESETSTAT');
        await conn.list({ patterns });
        const s = commandStats(await admin.info('commandstats'));
        console.log(`${label.padEnd(44)} ${String(patterns.length).padStart(3)} patterns  ${String(s.scans).padStart(6)} SCAN calls  ${String(s.calls).padStart(6)} commands  ${(s.usec / 1000).toFixed(1).padStart(8)} ms Redis CPU`);
        return s.usec;
      };
      console.log(`one refresh against ${KEYS.toLocaleString('en-US')} keys (INFO commandstats, median of ${RUNS}):`);
      const four = await measure('4 code prefixes (capped and merged)', [...DEFAULT_PATTERNS, ...scanGlobsFromSites(sites(4), DEFAULT_PATTERNS)]);
      const many = await measure('500 code prefixes (capped and merged)', [...DEFAULT_PATTERNS, ...scanGlobsFromSites(sites(500), DEFAULT_PATTERNS)]);
      const uncapped = await measure('50 code prefixes, uncapped (old behaviour)', [...DEFAULT_PATTERNS, ...sites(50).map((s) => s.keyGlob)]);
      console.log(`500 vs 4 prefixes: ${(many / four).toFixed(2)}x Redis CPU; uncapped, 50 prefixes already cost ${(uncapped / four).toFixed(1)}x`);
    } finally {
      await conn.close();
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
