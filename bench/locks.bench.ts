// Lock listing speed and server impact on a private redis-server holding 10,000 lock keys among
// 1,000,000 keys (filler keys from DEBUG POPULATE; every tenth lock has a fencing counter beside it):
//  1. SCAN COUNT sizing: for several COUNTs, a keys-only SCAN MATCH lock:* walk with every command in the
//     slow log: the longest single SCAN (target < 5 ms) and the walk's wall time.
//  2. The floor: an ioredis scanStream (SCAN MATCH lock:* COUNT <the listing's>) that GETs every key it
//     finds, one pipeline per batch, the next SCAN not waiting for it. Lockwise's listing of lock:* (first
//     listing, and a refresh that knows the previous rows) against it, wall and CPU of this process
//     (target <= 1.2x). Also printed: the keys-only scanStream and `redis-cli --scan`.
//  3. Commands per lock key, from INFO commandstats, for the floor and for each listing (the listing sends
//     only SCAN and one read-only script (EVAL_RO, then EVALSHA_RO) per batch; the commands run inside its
//     scripts are counted too).
//  4. The longest single command the listing sent, from SLOWLOG (target < 5 ms), with the floor's and
//     redis-cli's own longest on the same server as the measure of this machine's scheduling noise.
// Also printed: the default four patterns (each pattern is one full SCAN of the keyspace).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { DEFAULT_COUNT, openLockConnection, type ListOptions, type ListResult, type LockConnection } from '../client/src/locks/index';
import { startRedis, type RedisProcess } from '../test/helpers/redis-server';
import { commandCounts } from '../test/helpers/command-stats';
import { formatCounts, longest, percentileMicros, slowlogOf, type SlowEntry } from './redis-stats';

const TOTAL_KEYS = 1_000_000;
const LOCK_KEYS = 10_000;
/** Every tenth lock has a fencing counter beside it. */
const FENCE_KEYS = LOCK_KEYS / 10;
const RUNS = 5;
const SCAN_COUNTS = [1000, 2000, 5000, 10_000, 20_000];
const TARGET_RATIO = 1.2;
const TARGET_COMMAND_MS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (v: number) => `${v.toFixed(0)} ms`.padStart(7);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

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

interface Cost {
  ms: number;
  cpuMs: number;
}

/** Wall time and this process's CPU time (user + system) of one run, after a full GC. */
async function measure<T>(work: () => Promise<T>): Promise<Cost & { result: T }> {
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms: wall, cpuMs: (used.user + used.system) / 1000, result };
}

function redisCliScan(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', ['-p', String(port), '--scan', '--pattern', 'lock:*'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let keys = 0;
    child.stdout.on('data', (d: Buffer) => {
      for (const byte of d) if (byte === 10) keys++;
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(keys) : reject(new Error(`redis-cli exited ${code}`))));
  });
}

/** A scanStream of lock:*; with `get`, one pipeline of GETs per batch that the next SCAN does not wait for. */
function scanStream(client: Redis, count: number, get: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = client.scanStream({ match: 'lock:*', count });
    const reads: Promise<unknown>[] = [];
    let keys = 0;
    stream.on('data', (batch: string[]) => {
      keys += batch.length;
      if (!get || !batch.length) return;
      const pipeline = client.pipeline();
      for (const key of batch) pipeline.get(key);
      reads.push(pipeline.exec());
    });
    stream.once('error', reject);
    stream.once('end', () => Promise.all(reads).then(() => resolve(keys), reject));
  });
}

async function listOrThrow(conn: LockConnection, options: ListOptions): Promise<ListResult> {
  const result = await conn.list(options);
  if (result.partial) throw new Error(`listing was partial: ${JSON.stringify(result.errors)}`);
  if (result.rows.length !== LOCK_KEYS) throw new Error(`listed ${result.rows.length} rows, expected ${LOCK_KEYS}`);
  if (result.rows.filter((r) => r.fence).length !== FENCE_KEYS) throw new Error('not every fence was found');
  return result;
}

async function countSizing(admin: Redis, client: Redis): Promise<void> {
  console.log(`\nSCAN COUNT sizing: keys-only SCAN MATCH lock:* walks of ${TOTAL_KEYS.toLocaleString('en')} keys, every SCAN in the slow log:`);
  for (const count of SCAN_COUNTS) {
    let wall = 0;
    const scans = await slowlogOf(admin, async () => (wall = (await measure(() => scanStream(client, count, false))).ms));
    const top = longest(scans).micros / 1000;
    const at = (p: number) => (percentileMicros(scans, p) / 1000).toFixed(3);
    console.log(
      `  COUNT ${String(count).padStart(5)}: ${String(scans.length).padStart(4)} SCANs, walk ${ms(wall)}, SCAN median ${at(0.5)} ms, p99 ${at(0.99)} ms, longest ${top.toFixed(3)} ms${count === DEFAULT_COUNT ? "  <- the listing's COUNT" : ''}`,
    );
  }
}

const line = (label: string, cost: Cost, floor?: Cost) =>
  `  ${label.padEnd(58)} wall ${ms(cost.ms)}${floor ? ` (${(cost.ms / floor.ms).toFixed(2)}x)` : '        '}  CPU ${ms(cost.cpuMs)}${floor ? ` (${(cost.cpuMs / floor.cpuMs).toFixed(2)}x)` : ''}`;

const medianCost = (costs: Cost[]): Cost => ({ ms: median(costs.map((c) => c.ms)), cpuMs: median(costs.map((c) => c.cpuMs)) });

function describeLongest(label: string, entries: SlowEntry[]): string {
  const top = longest(entries);
  const over = entries.filter((e) => e.micros > TARGET_COMMAND_MS * 1000).length;
  return `  ${label}: ${entries.length} commands, longest ${(top.micros / 1000).toFixed(3)} ms (${top.args.slice(0, 6).join(' ')}), p99 ${(percentileMicros(entries, 0.99) / 1000).toFixed(3)} ms, ${over} over ${TARGET_COMMAND_MS} ms`;
}

async function main(): Promise<void> {
  let server: RedisProcess | undefined;
  let admin: Redis | undefined;
  let client: Redis | undefined;
  let conn: LockConnection | undefined;
  try {
    server = await startRedis({ args: ['--enable-debug-command', 'yes'] });
    admin = new Redis(server.port, '127.0.0.1');
    client = new Redis(server.port, '127.0.0.1', { connectionName: 'floor' });
    const seedStart = performance.now();
    await seed(admin);
    console.log(`seeded ${await admin.dbsize()} keys (${LOCK_KEYS} lock keys, ${FENCE_KEYS} with a fence key) in ${ms(performance.now() - seedStart).trim()}`);
    conn = await openLockConnection({ url: server.url });

    await countSizing(admin, client);

    const locksOnly: ListOptions = { patterns: ['lock:*'], rowCap: 2 * LOCK_KEYS };
    const costs = { floor: [] as Cost[], keysOnly: [] as Cost[], cli: [] as number[], first: [] as Cost[], refresh: [] as Cost[] };
    let previous = (await listOrThrow(conn, locksOnly)).rows; // warm-up
    for (let run = 0; run < RUNS; run++) {
      const floor = await measure(() => scanStream(client!, DEFAULT_COUNT, true));
      const keysOnly = await measure(() => scanStream(client!, DEFAULT_COUNT, false));
      const cli = await measure(() => redisCliScan(server!.port));
      if (floor.result !== LOCK_KEYS || keysOnly.result !== LOCK_KEYS || cli.result !== LOCK_KEYS) throw new Error('a baseline missed keys');
      costs.floor.push(floor);
      costs.keysOnly.push(keysOnly);
      costs.cli.push(cli.ms);
      costs.first.push(await measure(() => listOrThrow(conn!, locksOnly)));
      const refresh = await measure(() => listOrThrow(conn!, { ...locksOnly, previous }));
      costs.refresh.push(refresh);
      previous = refresh.result.rows;
    }
    const floor = medianCost(costs.floor);
    const first = medianCost(costs.first);
    const refresh = medianCost(costs.refresh);
    console.log(`\nListing lock:* among ${TOTAL_KEYS.toLocaleString('en')} keys at COUNT ${DEFAULT_COUNT} (median of ${RUNS}; wall, and CPU of this process; ratio to the floor):`);
    console.log(line('floor: scanStream + GET of every key, pipelined per batch', floor));
    console.log(line('scanStream, keys only', medianCost(costs.keysOnly), floor));
    console.log(`  ${"redis-cli --scan --pattern 'lock:*' (COUNT 10; its CPU not here)".padEnd(58)} wall ${ms(median(costs.cli))} (${(median(costs.cli) / floor.ms).toFixed(2)}x)`);
    console.log(line('lockwise list, first listing', first, floor));
    console.log(line('lockwise list, refresh with the previous rows', refresh, floor));
    for (const [name, c] of [['first listing', first], ['refresh', refresh]] as const) {
      console.log(`  ${name}: target <= ${TARGET_RATIO}x: wall ${verdict(c.ms <= TARGET_RATIO * floor.ms)}, CPU ${verdict(c.cpuMs <= TARGET_RATIO * floor.cpuMs)}`);
    }

    console.log(`\nCommands for one listing (INFO commandstats, ${LOCK_KEYS} lock keys):`);
    console.log(`  floor:         ${formatCounts(await commandCounts(admin, () => scanStream(client!, DEFAULT_COUNT, true)), LOCK_KEYS)}`);
    console.log(`  first listing: ${formatCounts(await commandCounts(admin, () => listOrThrow(conn!, locksOnly)), LOCK_KEYS)}`);
    console.log(`  refresh:       ${formatCounts(await commandCounts(admin, () => listOrThrow(conn!, { ...locksOnly, previous })), LOCK_KEYS)}`);

    // redis-cli's and the floor's own commands, logged the same way, show what this machine's scheduling noise produces.
    console.log(`\nServer impact (SLOWLOG of every command; target: no single command of the listing over ${TARGET_COMMAND_MS} ms):`);
    const mine = (await slowlogOf(admin, () => listOrThrow(conn!, locksOnly))).filter((e) => e.client === 'lockwise');
    const mineRefresh = (await slowlogOf(admin, () => listOrThrow(conn!, { ...locksOnly, previous }))).filter((e) => e.client === 'lockwise');
    const floorEntries = (await slowlogOf(admin, () => scanStream(client!, DEFAULT_COUNT, true))).filter((e) => e.client === 'floor');
    const cliEntries = await slowlogOf(admin, () => redisCliScan(server!.port));
    console.log(describeLongest('lockwise first listing', mine));
    console.log(describeLongest('lockwise refresh      ', mineRefresh));
    console.log(describeLongest('floor                 ', floorEntries));
    console.log(describeLongest('redis-cli --scan      ', cliEntries));
    const worst = Math.max(longest(mine).micros, longest(mineRefresh).micros) / 1000;
    console.log(`  longest single listing command ${worst.toFixed(3)} ms: target < ${TARGET_COMMAND_MS} ms ${verdict(worst < TARGET_COMMAND_MS)}`);

    const defaults = await measure(() => conn!.list({ rowCap: 2 * LOCK_KEYS }));
    console.log(`\nDefault 4 patterns (4 keyspace walks): wall ${ms(defaults.ms).trim()}, CPU ${ms(defaults.cpuMs).trim()}, ${defaults.result.rows.length} rows, ${defaults.result.scanned} keys returned by SCAN`);
  } finally {
    await conn?.close();
    client?.disconnect();
    admin?.disconnect();
    await server?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
