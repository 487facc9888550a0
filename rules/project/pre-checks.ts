// Text tests that decide, before any parse, which files without lock code of their own may still
// need the project-wide analysis. Cheap enough to run on every file of a workspace, and free of the
// parser, so \`lockwise check\`'s main thread can run them.
import { LOCK_NAME } from '../engine/lock-name';

const REDIS_CLIENT = /redis|valkey/i;
const COMMAND_CALL = /\.\s*(?:set|setnx|setNX|del|unlink|expire|pexpire|pExpire|eval|evalsha|evalSha|sendCommand)\s*\(/;
const IMPORT = /\bfrom\s*['"]|\b(?:require|import)\s*\(\s*['"]/;

/** A module that names a Redis client and calls a command method may wrap one for its callers. */
export function wrapsRedis(text: string): boolean {
  return REDIS_CLIENT.test(text) && COMMAND_CALL.test(text);
}

/**
 * A file that may call a project lock helper: it has a lock word (the helper's name, an import path
 * like \`./redis-lock\`, a \`lockKey\`) and imports something. Whether an import resolves to a module
 * with lock helpers is then asked of the project index (ProjectIndex.importsLockHelpers).
 */
export function mayCallLockHelpers(text: string): boolean {
  return LOCK_NAME.test(text) && IMPORT.test(text);
}
