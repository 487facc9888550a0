// `lockwise locks`: what is locked right now, by whom, for how long. A table in a terminal (`--watch`
// redraws it in place until Ctrl-C) or JSON rows. Exit codes: 0 listed, 1 listed but partial because a
// Cluster master failed, 2 usage or connection error.
import { parseArgs } from 'node:util';
import { escapeControlChars as shown, formatTtl, openLockConnection, type ListOptions, type ListResult, type LockConnection, type LockRow } from '../../../client/src/locks/index';
import { DEFAULT_HELD_LONG_MS, LockHistory, type LockEvent } from '../../../client/src/locks/history';
import type { Command } from '../command';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFromArgs, positiveInt } from '../connection-args';

const HELP = `Usage: lockwise locks [options]

Lists the Redis locks held right now: key, type, time to live, state, holder
(decoded where the value shows it: Lockwise, redis-semaphore, Redisson,
python-redis-lock, pottery, JSON; else "token" or plain) and fencing counter. Uses SCAN on every
master (never KEYS) and only reads.

Options:
  --pattern <glob>     SCAN MATCH pattern, repeatable
                       (default: lock:* mutex:* semaphore:* redlock:*)
  --count <n>          SCAN COUNT hint (default 1000)
  --limit <n>          stop after n locks and flag the result partial (default 5000)
  --pause <ms>         pause between SCAN batches, for very large keyspaces
  --json               print JSON rows {key, type, pttl, holder, raw, state, fence?}
  --watch              refresh in place until Ctrl-C; with --json, print one event
                       per line (NDJSON): seen, acquired, holder-changed, renewed,
                       held-long, expired, released, error
  --interval <s>       seconds between refreshes with --watch (default 2)
  --held-long <min>    with --watch --json: minutes the same holder may keep a lock
                       before a held-long event (default 10)
  -h, --help           show this help

${CONNECTION_HELP}

States: held, expiring (at most 20% of the longest TTL seen, or under 2 s),
no-expiry (PTTL -1: never frees itself; see the require-ttl rule), renewed
(TTL went up since the last refresh: a watchdog is alive), gone.

Exit codes: 0 listed (also when --limit cut it short, which is said), 1 listed
but a Cluster master could not be read (partial), 2 usage or connection error.
`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  pattern: { type: 'string', multiple: true },
  count: { type: 'string' },
  limit: { type: 'string' },
  pause: { type: 'string' },
  json: { type: 'boolean' },
  watch: { type: 'boolean' },
  interval: { type: 'string' },
  'held-long': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function table(rows: LockRow[]): string[] {
  // Keys, types, labels and fences come from Redis: escaped, so a value cannot drive the terminal.
  const cells = rows.map((r) => [shown(r.key), shown(r.type), formatTtl(r.pttl), r.state === 'no-expiry' ? 'NO EXPIRY' : r.state, clip(shown(r.holder.label), 48), r.fence ? shown(r.fence.value) : '']);
  const header = ['KEY', 'TYPE', 'TTL', 'STATE', 'HOLDER', 'FENCE'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...cells.map(line)];
}

function render(result: ListResult, target: string): string {
  const live = result.rows.filter((r) => r.state !== 'gone');
  const lines = result.rows.length ? table(result.rows) : ['No locks matched.'];
  lines.push('', `${live.length} lock${live.length === 1 ? '' : 's'} on ${shown(target)}`);
  if (result.partial) lines.push(`partial: ${result.scanned} keys scanned${result.errors.length ? '' : ' (row limit reached; narrow --pattern or raise --limit)'}`);
  for (const e of result.errors) lines.push(shown(`error on ${e.node}: ${e.message}`));
  const stuck = live.filter((r) => r.state === 'no-expiry').length;
  if (stuck) lines.push(`${stuck} lock${stuck === 1 ? ' has' : 's have'} no expiry and will never free ${stuck === 1 ? 'itself' : 'themselves'} (rule require-ttl).`);
  return lines.join('\n');
}

const jsonRows = (rows: LockRow[]) => rows.map(({ key, type, pttl, holder, raw, state, fence }) => (fence ? { key, type, pttl, holder, raw, state, fence } : { key, type, pttl, holder, raw, state }));

function warnPartial(result: ListResult): void {
  if (!result.partial) return;
  console.error(`lockwise locks: partial: ${result.scanned} keys scanned`);
  for (const e of result.errors) console.error(`lockwise locks: ${shown(`error on ${e.node}: ${e.message}`)}`);
}

/** --held-long in minutes; fractions are allowed (0.5 = 30 s). */
function heldLongOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_HELD_LONG_MS;
  const minutes = Number(text);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--held-long must be a number of minutes above 0, not "${text}"`);
  return minutes * 60_000;
}

/** One NDJSON line per event; the JSON keeps every value exact (no escaping beyond JSON's own). */
function eventLine(event: LockEvent, target: string): string {
  const { time, kind, ...rest } = event;
  return JSON.stringify({ time: new Date(time).toISOString(), event: kind, target, ...rest });
}

async function watch(conn: LockConnection, list: ListOptions, json: boolean, intervalMs: number, heldLongMs: number): Promise<number> {
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (stop = r));
  let running = true;
  process.once('SIGINT', () => {
    running = false;
    stop();
  });
  const tty = process.stdout.isTTY === true;
  let previous: LockRow[] | undefined;
  const history = new LockHistory(heldLongMs);
  while (running) {
    let frame: string;
    try {
      const result = await conn.list({ ...list, previous });
      previous = result.rows;
      frame = json
        ? history.observe(result, Date.now()).map((e) => `${eventLine(e, conn.target)}\n`).join('')
        : `${render(result, conn.target)}\nrefreshed ${new Date().toLocaleTimeString()}; Ctrl-C to stop\n`;
    } catch (err) {
      // Keep watching: the core reconnects with backoff and the next refresh tries again.
      const message = (err as Error).message;
      frame = json
        ? `${JSON.stringify({ time: new Date().toISOString(), event: 'error', target: conn.target, message })}\n`
        : `lockwise locks: ${shown(message)}\n`;
    }
    if (tty && !json) process.stdout.write(`\x1b[H\x1b[2J${frame}`);
    else process.stdout.write(frame);
    await Promise.race([stopped, new Promise((r) => setTimeout(r, intervalMs).unref())]);
  }
  return 0;
}

async function run(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  let list: ListOptions;
  let intervalMs: number;
  let heldLongMs: number;
  try {
    values = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false }).values;
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    list = { patterns: values.pattern, count: positiveInt('count', values.count), rowCap: positiveInt('limit', values.limit), pauseMs: positiveInt('pause', values.pause, true) };
    intervalMs = (positiveInt('interval', values.interval) ?? 2) * 1000;
    heldLongMs = heldLongOption(values['held-long']);
  } catch (err) {
    console.error(`lockwise locks: ${(err as Error).message}\nRun \`lockwise locks --help\` for the options.`);
    return 2;
  }

  let conn: LockConnection;
  try {
    conn = await openLockConnection(connectionFromArgs(values));
  } catch (err) {
    console.error(`lockwise locks: ${shown((err as Error).message)}`);
    return 2;
  }
  try {
    if (values.watch) return await watch(conn, list, values.json === true, intervalMs, heldLongMs);
    const result = await conn.list(list);
    if (values.json) {
      console.log(JSON.stringify(jsonRows(result.rows), null, 2));
      warnPartial(result);
    } else {
      console.log(render(result, conn.target));
    }
    return result.errors.length ? 1 : 0;
  } catch (err) {
    console.error(`lockwise locks: ${shown((err as Error).message)}`);
    return 2;
  } finally {
    await conn.close();
  }
}

export const command: Command = { summary: 'list the Redis locks held right now', run };
