// Lock listing speed and server impact on a private redis-server holding 10,000 lock keys among
// 1,000,000 keys (990,000 filler keys from DEBUG POPULATE):
//  1. Lockwise's full listing of lock:* (SCAN + pipelined TYPE/PTTL/value/fence reads) against
//     `redis-cli --scan --pattern 'lock:*'` alone, measured in the same run (target: at most 2x). redis-cli 7.0
//     sends SCAN without COUNT (the server's default, 10), so a stricter baseline is printed too: a bare
//     SCAN MATCH lock:* COUNT 1000 loop (Lockwise's default COUNT), keys only, from this process.
//  2. The longest single command Lockwise sent, from SLOWLOG with slowlog-log-slower-than 0 (target < 10 ms).
// Also printed: the default four patterns (each pattern is one full SCAN of the keyspace).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { openLockConnection, type ListOptions, type LockConnection } from '../client/src/locks/index';
import { startRedis, type RedisProcess } from '../test/helpers/redis-server';

const TOTAL_KEYS = 1_000_000;
const LOCK_KEYS = 10_000;
/** Every tenth lock has a fencing counter beside it. */
const FENCE_KEYS = LOCK_KEYS / 10;
const RUNS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (v: number) => `${v.toFixed(0)} ms`;

async function seed(admin: Redis): Promise<void> {
  await admin.call('DEBUG', 'POPULATE', String(TOTAL_KEYS - LOCK_KEYS - FENCE_KEYS), 'filler', '32');
  for (let start = 0; start < LOCK_KEYS; start += 1000) {
    const p = admin.pipeline();
    for (let i = start; i < start + 1000; i++) {
      const key = `lock:bench:${i}`;
      // Roughly the mix a busy deployment shows: mostly string tokens, some Redisson hashes and
      // semaphores, a few locks without expiry, and fencing counters beside some locks.
      if (i % 20 === 0) p.hset(key, `${randomUUID()}:${i}`, '1').pexpire(key, 600_000);
      else if (i % 20 === 1) p.zadd(key, Date.now(), randomUUID()).pexpire(key, 600_000);
      else if (i % 50 === 2) p.set(key, 'legacy');
      else p.set(key, `lw1:host-${i % 7}:${1000 + i}:${randomBytes(16).toString('hex')}`, 'PX', 600_000);
      if (i % 10 === 3) p.set(`{${key}}:fence`, String(i));
    }
    await p.exec();
  }
}

function redisCliScan(port: number): Promise<{ ms: number; keys: number }> {
  return new Promise((resolve, reject) => {
    const args = ['-p', String(port), '--scan', '--pattern', 'lock:*'];
    const started = performance.now();
    const child = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let keys = 0;
    child.stdout.on('data', (d: Buffer) => {
      for (const byte of d) if (byte === 10) keys++;
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - started, keys }) : reject(new Error(`redis-cli exited ${code}`))));
  });
}

async function bareScan(client: Redis): Promise<{ ms: number; keys: number }> {
  const started = performance.now();
  let cursor = '0';
  let keys = 0;
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', 'lock:*', 'COUNT', 1000);
    cursor = next;
    keys += batch.length;
  } while (cursor !== '0');
  return { ms: performance.now() - started, keys };
}

async function timeListing(conn: LockConnection, options: ListOptions): Promise<{ ms: number; rows: number; scanned: number }> {
  const started = performance.now();
  const result = await conn.list(options);
  if (result.partial) throw new Error(`listing was partial: ${JSON.stringify(result.errors)}`);
  return { ms: performance.now() - started, rows: result.rows.length, scanned: result.scanned };
}

async function main(): Promise<void> {
  let server: RedisProcess | undefined;
  let admin: Redis | undefined;
  let conn: LockConnection | undefined;
  try {
    server = await startRedis({ args: ['--enable-debug-command', 'yes'] });
    admin = new Redis(server.port, '127.0.0.1');
    const seedStart = performance.now();
    await seed(admin);
    console.log(`seeded ${await admin.dbsize()} keys (${LOCK_KEYS} lock keys) in ${ms(performance.now() - seedStart)}`);
    conn = await openLockConnection({ url: server.url });

    const locksOnly: ListOptions = { patterns: ['lock:*'], rowCap: 2 * LOCK_KEYS };
    const cli10: number[] = [];
    const cli1000: number[] = [];
    const lw: number[] = [];
    let listed = 0;
    for (let run = 0; run < RUNS; run++) {
      const a = await redisCliScan(server.port);
      const b = await bareScan(admin);
      const c = await timeListing(conn, locksOnly);
      if (a.keys !== LOCK_KEYS || b.keys !== LOCK_KEYS) throw new Error(`the baselines found ${a.keys}/${b.keys} keys`);
      cli10.push(a.ms);
      cli1000.push(b.ms);
      lw.push(c.ms);
      listed = c.rows;
    }
    const defaults = await timeListing(conn, { rowCap: 2 * LOCK_KEYS });

    // Server impact: every command goes to the slow log, then the longest ones are read back. redis-cli's own
    // SCANs, logged the same way just before, show what this machine's scheduling noise alone produces.
    await admin.config('SET', 'slowlog-max-len', '500000');
    const slowlog = async (work: () => Promise<unknown>) => {
      await admin!.config('SET', 'slowlog-log-slower-than', '0');
      await admin!.slowlog('RESET');
      await work();
      await admin!.config('SET', 'slowlog-log-slower-than', '10000');
      const entries = (await admin!.slowlog('GET', '-1')) as [number, number, number, string[], string, string][];
      return entries.filter((e) => !/^(slowlog|config)$/i.test(e[3][0] ?? ''));
    };
    const cliEntries = await slowlog(() => redisCliScan(server!.port));
    const mine = (await slowlog(() => conn!.list(locksOnly))).filter((e) => e[5] === 'lockwise');
    const longestOf = (list: typeof mine) => list.reduce((x, y) => (y[2] > x[2] ? y : x));
    const longest = longestOf(mine);
    const micros = mine.map((e) => e[2]).sort((x, y) => x - y);
    const p99 = micros[Math.floor(micros.length * 0.99)]!;
    const byCommand = new Map<string, number>();
    for (const e of mine) byCommand.set(e[3][0]!.toUpperCase(), (byCommand.get(e[3][0]!.toUpperCase()) ?? 0) + 1);

    const ratio10 = median(lw) / median(cli10);
    const ratio1000 = median(lw) / median(cli1000);
    console.log(`\nListing lock:* among ${TOTAL_KEYS.toLocaleString('en')} keys (median of ${RUNS}):`);
    console.log(`  redis-cli --scan --pattern 'lock:*' (server COUNT 10, keys only)  ${ms(median(cli10))}`);
    console.log(`  bare SCAN MATCH lock:* COUNT 1000 (keys only)                 ${ms(median(cli1000))}`);
    console.log(`  lockwise list, TYPE/PTTL/value/fence for ${listed} rows            ${ms(median(lw))}`);
    console.log(`  ratio vs redis-cli --scan:       ${ratio10.toFixed(2)}x  (target <= 2x: ${ratio10 <= 2 ? 'met' : 'NOT met'})`);
    console.log(`  ratio vs bare SCAN COUNT 1000:   ${ratio1000.toFixed(2)}x`);
    console.log(`  default 4 patterns (4 keyspace walks):  ${ms(defaults.ms)}, ${defaults.rows} rows, ${defaults.scanned} keys returned by SCAN`);
    console.log(`\nServer impact (SLOWLOG, ${mine.length} commands from lockwise: ${[...byCommand].map(([k, v]) => `${k} ${v}`).join(', ')}):`);
    console.log(`  longest single command: ${(longest[2] / 1000).toFixed(3)} ms (${longest[3].slice(0, 6).join(' ')})  (target < 10 ms: ${longest[2] < 10_000 ? 'met' : 'NOT met'})`);
    console.log(`  p99 command: ${(p99 / 1000).toFixed(3)} ms; longest of redis-cli --scan's own ${cliEntries.length} SCANs, same server: ${(longestOf(cliEntries)[2] / 1000).toFixed(3)} ms`);
  } finally {
    await conn?.close();
    admin?.disconnect();
    await server?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
