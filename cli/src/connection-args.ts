// Connection flags shared by `lockwise locks`, `release` and `extend`, turned into the lock core's
// ConnectionOptions. The password only ever comes from $REDIS_PASSWORD or the URL and is never printed.
import type { ParseArgsConfig } from 'node:util';
import type { ConnectionOptions } from '../../client/src/locks/types';

export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  cluster: { type: 'string' },
  sentinel: { type: 'string' },
  name: { type: 'string' },
  user: { type: 'string' },
  db: { type: 'string' },
  tls: { type: 'boolean' },
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-servername': { type: 'string' },
  insecure: { type: 'boolean' },
  'connect-timeout': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const CONNECTION_HELP = `Connection (one of --url, --cluster, --sentinel; default $REDIS_URL, else redis://127.0.0.1:6379):
  --url <url>                  redis://[user@]host[:port][/db], or rediss://... for TLS
  --cluster <host:port,...>    Redis Cluster seed nodes (every master is scanned)
  --sentinel <host:port,...>   Sentinel addresses, with --name
  --name <master>              the master name the sentinels monitor
  --user <name>                ACL user name
  --db <n>                     database number
  --tls                        use TLS (implied by rediss:// and the --tls-* options)
  --tls-ca <file>              CA certificate to verify the server with
  --tls-cert <file>            client certificate (with --tls-key)
  --tls-key <file>             client private key
  --tls-servername <name>      name the server certificate must carry (SNI)
  --insecure                   do NOT verify the server certificate (never in production)
  --connect-timeout <ms>       default 5000
The password is read from $REDIS_PASSWORD (or the URL); it is never printed.`;

export class UsageError extends Error {}

type ConnectionValues = { [K in keyof typeof CONNECTION_OPTIONS]?: (typeof CONNECTION_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

export function positiveInt(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) throw new UsageError(`--${name} must be a whole number${allowZero ? '' : ' above 0'}, not "${text}"`);
  return n;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function connectionFromArgs(values: ConnectionValues, env: NodeJS.ProcessEnv = process.env): ConnectionOptions {
  const chosen = [values.url, values.cluster, values.sentinel].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('give only one of --url, --cluster and --sentinel');
  if (values.sentinel && !values.name) throw new UsageError('--sentinel needs --name <master>');
  if (values.name && !values.sentinel) throw new UsageError('--name only goes with --sentinel');

  const options: ConnectionOptions = {};
  if (values.cluster) options.cluster = list(values.cluster);
  else if (values.sentinel) options.sentinel = { sentinels: list(values.sentinel), name: values.name! };
  else options.url = values.url ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379';

  if (values.user) options.username = values.user;
  if (env.REDIS_PASSWORD) options.password = env.REDIS_PASSWORD;
  const db = positiveInt('db', values.db, true);
  if (db !== undefined) options.db = db;
  const timeout = positiveInt('connect-timeout', values['connect-timeout']);
  if (timeout !== undefined) options.connectTimeoutMs = timeout;

  const wantsTls = values.tls || values.insecure || values['tls-ca'] || values['tls-cert'] || values['tls-key'] || values['tls-servername'];
  if (wantsTls) {
    options.tls = {
      enabled: true,
      caFile: values['tls-ca'],
      certFile: values['tls-cert'],
      keyFile: values['tls-key'],
      servername: values['tls-servername'],
      rejectUnauthorized: !values.insecure,
    };
  }
  return options;
}
