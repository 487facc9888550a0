// `lockwise extend <key> --token <t> --ttl <ms>`: sets a new TTL only while the lock still holds <t>.
// Exit codes as for release: 0 extended, 3 token changed, 4 gone, 2 usage or connection error.
import type { Command } from '../command';
import { CONNECTION_HELP, positiveInt, UsageError } from '../connection-args';
import { runGuarded } from './release';

/** Longest --ttl accepted without --allow-long-ttl: a lock held for more than a day is a lock someone forgot. */
export const MAX_TTL_MS = 24 * 60 * 60 * 1000;

const HELP = `Usage: lockwise extend <key> --token <token> --ttl <ms> [options]

Sets the lock's time to live to <ms> only if it still holds <token>,
atomically (one Lua script). For a redis-semaphore zset the member's acquire
time is refreshed too, as the library's own refresh does.

Options:
  --token <token>      the token the lock must still hold (required)
  --ttl <ms>           the new time to live in milliseconds (required), at most
                       86400000 (24 h)
  --allow-long-ttl     accept a --ttl over 24 h (up to Redis's own limit)
  --json               print the audit record as JSON
  -h, --help           show this help

${CONNECTION_HELP}

Exit codes: 0 extended, 3 token changed (nothing changed), 4 already gone,
2 usage or connection error, a --ttl over the bound, or a token that is not
a holder (nothing changed).
`;

export const command: Command = {
  summary: 'set a new TTL on a lock only if it still holds the given token',
  run: (argv) =>
    runGuarded(
      {
        name: 'extend',
        help: HELP,
        extraOptions: { ttl: { type: 'string' }, 'allow-long-ttl': { type: 'boolean' } },
        prepare: (values) => {
          const ttl = positiveInt('ttl', values.ttl as string | undefined);
          if (ttl === undefined) throw new UsageError('--ttl <ms> is required: the new time to live');
          if (ttl > MAX_TTL_MS && values['allow-long-ttl'] !== true) {
            throw new UsageError(`--ttl ${values.ttl} is over 24 hours (${MAX_TTL_MS} ms); a TTL that long all but removes the expiry. Add --allow-long-ttl if you mean it`);
          }
          return (conn, key, token) => conn.extend(key, token, ttl);
        },
      },
      argv,
    ),
};
