// The created withLock helper renews and releases the way the project's config "server" says: the
// template's SERVER line picks Lua scripts ('redis', every Redis and Valkey) or the server's native
// owner-checked commands ('redis-8.4', 'valkey-9'); the user can change that line later.
import type { ServerKind } from '../../../rules/config';

const SERVER_LINE = /^(const SERVER(?:: LockServer)? = )'redis';$/m;

/** The template (TypeScript, ES module or CommonJS text) with its SERVER line set to `server`. */
export function forServer(source: string, server: ServerKind): string {
  if (!SERVER_LINE.test(source)) throw new Error('the withLock template has no SERVER line');
  return source.replace(SERVER_LINE, `$1'${server}';`);
}
