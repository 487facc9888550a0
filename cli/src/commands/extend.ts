// `lockwise extend <key> --token <t> --ttl <ms>`: sets a new TTL only while the lock still holds <t>.
// Exit codes as for release: 0 extended, 3 token changed, 4 gone, 2 usage or connection error.
import type { Command } from '../command';
import { CONNECTION_HELP, positiveInt, UsageError } from '../connection-args';
import { runGuarded } from './release';

const HELP = `Usage: lockwise extend <key> --token <token> --ttl <ms> [options]

Sets the lock's time to live to <ms> only if it still holds <token>,
atomically (one Lua script). For a redis-semaphore zset the member's acquire
time is refreshed too, as the library's own refresh does.

Options:
  --token <token>      the token the lock must still hold (required)
  --ttl <ms>           the new time to live in milliseconds (required)
  --json               print the audit record as JSON
  -h, --help           show this help

${CONNECTION_HELP}

Exit codes: 0 extended, 3 token changed (nothing changed), 4 already gone,
2 usage or connection error.
`;

export const command: Command = {
  summary: 'set a new TTL on a lock only if it still holds the given token',
  run: (argv) =>
    runGuarded(
      {
        name: 'extend',
        help: HELP,
        extraOptions: { ttl: { type: 'string' } },
        prepare: (values) => {
          const ttl = positiveInt('ttl', values.ttl as string | undefined);
          if (ttl === undefined) throw new UsageError('--ttl <ms> is required: the new time to live');
          return (conn, key, token) => conn.extend(key, token, ttl);
        },
      },
      argv,
    ),
};
