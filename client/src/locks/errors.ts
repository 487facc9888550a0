// Turns raw ioredis / socket / TLS errors into one explained error: what failed, then what to check.
// Every message passes through `redact` so no password ever reaches a log, a view or the terminal.

export type LockErrorKind =
  | 'config'
  | 'refused'
  | 'dns'
  | 'timeout'
  | 'auth'
  | 'noauth'
  | 'noperm'
  | 'tls'
  | 'disconnected'
  | 'cluster'
  | 'sentinel'
  | 'loading'
  | 'read-only'
  | 'unsupported'
  /** A guarded release/extend was given something that is not a holder of that lock. */
  | 'not-holder'
  | 'server';

export class LockwiseError extends Error {
  override readonly name = 'LockwiseError';
  constructor(
    readonly kind: LockErrorKind,
    /** What failed, in one sentence. */
    readonly what: string,
    /** What to check or do about it. */
    readonly check: string,
    /** The underlying error text (redacted), for logs. */
    readonly detail?: string,
  ) {
    super(check ? `${what} ${check}` : what);
  }
}

export interface ErrorContext {
  /** Where we were connecting, without credentials. */
  target: string;
  username?: string;
  /** Strings that must never appear in a message (the password). */
  secrets: readonly string[];
}

/** Removes every secret and any `user:password@` part of a URL from a text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(rediss?:\/\/[^:@/\s]*:)[^@\s]*@/gi, '$1***@');
  for (const secret of secrets) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}

interface ErrnoLike {
  code?: string;
  message?: string;
  hostname?: string;
  address?: string;
  port?: number;
  name?: string;
  lastNodeError?: unknown;
}

const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|SELF_SIGNED|DEPTH_ZERO|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_OSSL)/;
const TLS_TEXT = /\b(ssl|tls|certificate|self[- ]signed|wrong version number|packet length too long)\b/i;

export function explainError(err: unknown, ctx: ErrorContext): LockwiseError {
  if (err instanceof LockwiseError) return err;
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as ErrnoLike;
  // ioredis wraps a failed slot refresh; the node's own error says more.
  if (e.lastNodeError) return explainError(e.lastNodeError, ctx);
  const code = e.code ?? '';
  const detail = redact(e.message ?? String(err), ctx.secrets).trim().replace(/\.$/, '');
  const where = e.address ? `${e.address}${e.port ? `:${e.port}` : ''}` : ctx.target;
  const user = ctx.username ?? 'default';
  const make = (kind: LockErrorKind, what: string, check: string) => new LockwiseError(kind, what, check, detail);

  if (code === 'ECONNREFUSED') {
    return make('refused', `Connection refused by ${where}.`, 'Check that Redis is running there and that the host and port are right (and no firewall is in the way).');
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') {
    return make('dns', `Cannot resolve the host name "${e.hostname ?? ctx.target}".`, 'Check the host name in the URL or seed list, and your DNS or VPN.');
  }
  if (TLS_CODE.test(code) || TLS_TEXT.test(detail)) {
    return make('tls', `TLS connection to ${ctx.target} failed: ${detail}.`, 'Check the CA file, the server name (servername) the certificate was issued for, the client certificate if the server requires one, and that this port speaks TLS.');
  }
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(detail)) {
    return make('timeout', `Redis at ${ctx.target} did not answer in time.`, 'Check that the host and port are reachable from here, that the port speaks the protocol you chose (TLS or not), and that the server is not overloaded; raise the connect timeout if the network is slow.');
  }
  if (/WRONGPASS|invalid password|invalid username-password/i.test(detail)) {
    return make('auth', `Authentication failed for user "${user}" at ${ctx.target}.`, 'Check the user name and the password (REDIS_PASSWORD, or the password stored with "Lockwise: Set Redis Password").');
  }
  if (/^NOAUTH/i.test(detail)) {
    return make('noauth', `Redis at ${ctx.target} requires a password and none was sent.`, 'Set REDIS_PASSWORD (CLI) or run "Lockwise: Set Redis Password" (VS Code), and the user name if it is not "default".');
  }
  if (/^NOPERM/i.test(detail)) {
    const command = /run the '([^']+)' command/i.exec(detail)?.[1];
    const what = command
      ? `The Redis user "${user}" may not run ${command.toUpperCase()} (ACL).`
      : `The Redis user "${user}" was denied by an ACL rule: ${detail}.`;
    return make('noperm', what, 'Grant it in the ACL (see the least-privilege rules in the README), or use a user that has it.');
  }
  if (/DB index is out of range/i.test(detail)) {
    return make('config', `The database number does not exist on ${ctx.target}.`, "Use a number below the server's `databases` setting (16 by default).");
  }
  if (/^LOADING/i.test(detail)) {
    return make('loading', `Redis at ${ctx.target} is still loading its data set.`, 'Wait until it has finished starting, then refresh.');
  }
  if (/CLUSTERDOWN|slots cache|startup nodes|cluster isn't ready/i.test(detail)) {
    return make('cluster', `The Redis Cluster behind ${ctx.target} is not usable: ${detail}.`, 'Check the seed nodes and `CLUSTER INFO` on them (every slot must be served).');
  }
  if (/sentinel|no master/i.test(detail)) {
    return make('sentinel', `No sentinel gave the master address for ${ctx.target}: ${detail}.`, 'Check the sentinel addresses and the master name (`SENTINEL get-master-addr-by-name <name>`).');
  }
  if (e.name === 'MaxRetriesPerRequestError') {
    return make('disconnected', `Lost the connection to Redis at ${ctx.target} while a command was running.`, 'Lockwise reconnects with backoff; check that the server is up and reachable, then refresh.');
  }
  if (
    ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code) ||
    /connection is closed|stream isn't writeable|not connected|enableOfflineQueue/i.test(detail)
  ) {
    return make('disconnected', `Not connected to Redis at ${ctx.target} (${detail}).`, 'Lockwise reconnects with backoff; check that the server is up and reachable and whether it expects TLS (rediss://), then refresh.');
  }
  return make('server', `Redis at ${ctx.target} replied with an error: ${detail}.`, '');
}
