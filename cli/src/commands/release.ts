// `lockwise release <key> --token <t>`: guarded release, one Lua script that deletes the lock only while
// it still holds <t>. Exit codes: 0 released, 3 token changed (prints who holds it now; nothing deleted),
// 4 already gone, 2 usage or connection error. `extend` shares this module's runner.
import { parseArgs } from 'node:util';
import { escapeControlChars as shown, formatAuditLine, openLockConnection, type AuditRecord, type GuardedResult, type LockConnection } from '../../../client/src/locks/index';
import type { Command } from '../command';
import { CONNECTION_HELP, CONNECTION_OPTIONS, connectionFromArgs, UsageError } from '../connection-args';

const EXIT = { done: 0, error: 2, tokenChanged: 3, gone: 4 } as const;

const TOKEN_HELP = `The token is the value you saw (lockwise locks shows it): the whole string
value for string locks, the holder field <client-uuid>:<thread-id> for a
Redisson hash (<client-uuid>:<thread-id>:write for a read-write lock's
writer), the member for a redis-semaphore zset. For a Redisson read-write
lock only that holder is freed, as Redisson's own unlock does it (its
timeout keys, the lock's expiry, the unlock message when it was the last);
"mode" or any other field that is not a holder is refused (exit 2).`;

const RELEASE_HELP = `Usage: lockwise release <key> --token <token> [options]

Deletes the lock only if it still holds <token>, atomically (one Lua script).
Redisson waiters get the unlock message; python-redis-lock waiters get their
signal. If someone else holds the lock now, nothing is deleted and the new
holder is printed.

${TOKEN_HELP}

Options:
  --token <token>      the token the lock must still hold (required)
  --json               print the audit record as JSON
  -h, --help           show this help

${CONNECTION_HELP}

Exit codes: 0 released, 3 token changed (nothing deleted), 4 already gone,
2 usage or connection error, or a token that is not a holder (nothing changed).
`;

type Values = Record<string, string | boolean | string[] | undefined>;

interface GuardedSpec {
  name: 'release' | 'extend';
  help: string;
  extraOptions: Record<string, { type: 'string' | 'boolean' }>;
  /** Checks the command's own options before connecting (throws UsageError) and returns the operation. */
  prepare(values: Values): (conn: LockConnection, key: string, token: string) => Promise<GuardedResult>;
}

function describe(key: string, record: AuditRecord, result: GuardedResult): string {
  const others = 'remainingHolders' in result && result.remainingHolders ? `; ${result.remainingHolders} other holder${result.remainingHolders === 1 ? '' : 's'} still hold${result.remainingHolders === 1 ? 's' : ''} it` : '';
  switch (result.outcome) {
    case 'released':
      return `released ${key} (was held by ${record.oldHolder.label}${others})`;
    case 'extended':
      return `extended ${key} to ${record.ttlMs} ms (held by ${record.oldHolder.label}${others})`;
    case 'gone':
      return `${key} is already gone; nothing to do`;
    case 'token-changed':
      return `${key} is now held by ${result.currentHolder.label} (value ${result.currentRaw}); nothing was changed`;
  }
}

export async function runGuarded(spec: GuardedSpec, argv: string[]): Promise<number> {
  const options = { ...CONNECTION_OPTIONS, ...spec.extraOptions, token: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  let act: ReturnType<GuardedSpec['prepare']>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true });
    if (parsed.values.help) {
      console.log(spec.help);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new UsageError(`expected exactly one lock key, got ${parsed.positionals.length}`);
    if (!parsed.values.token) throw new UsageError('--token is required: the token the lock must still hold');
    act = spec.prepare(parsed.values as Values);
  } catch (err) {
    console.error(`lockwise ${spec.name}: ${shown((err as Error).message)}\nRun \`lockwise ${spec.name} --help\` for the options.`);
    return EXIT.error;
  }
  const key = parsed.positionals[0]!;

  let conn: LockConnection;
  try {
    conn = await openLockConnection(connectionFromArgs(parsed.values));
  } catch (err) {
    console.error(`lockwise ${spec.name}: ${shown((err as Error).message)}`);
    return EXIT.error;
  }
  let record: AuditRecord | undefined;
  conn.onAudit((r) => (record = r));
  try {
    const result = await act(conn, key, parsed.values.token);
    if (parsed.values.json) console.log(JSON.stringify(record, null, 2));
    // One line built from the key, holder labels and values Redis holds: escaped as a whole.
    else console.log(shown(describe(key, record!, result)));
    if (result.outcome === 'token-changed') return EXIT.tokenChanged;
    if (result.outcome === 'gone') return EXIT.gone;
    return EXIT.done;
  } catch (err) {
    if (parsed.values.json && record) console.log(JSON.stringify(record, null, 2));
    console.error(`lockwise ${spec.name}: ${shown(record ? formatAuditLine(record) : (err as Error).message)}`);
    return EXIT.error;
  } finally {
    await conn.close();
  }
}

export const command: Command = {
  summary: 'delete a lock only if it still holds the given token',
  run: (argv) => runGuarded({ name: 'release', help: RELEASE_HELP, extraOptions: {}, prepare: () => (conn, key, token) => conn.release(key, token) }, argv),
};
