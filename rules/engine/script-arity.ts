// Release scripts that never run as written, so the lock is only ever freed by its TTL: a node-redis
// `eval(script, { arguments: [key, token] })` with no `keys` while the script reads KEYS[1] (nil, and
// `redis.call('get', nil)` is an error), an ioredis `eval(script, 0, key, token)` counting too few keys,
// or node-redis' options object handed to an ioredis client (sent as the number of keys: rejected).
import type { RedisCommand } from './commands';

/** The highest `KEYS[n]` the script reads. */
function keysRead(lua: string): number {
  let highest = 0;
  for (const m of lua.matchAll(/\bKEYS\s*\[\s*(\d+)\s*\]/g)) highest = Math.max(highest, Number(m[1]));
  return highest;
}

/**
 * Marks the compare-and-delete scripts of `commands` that fail on every call. `ioredisClient` says
 * whether the file's client is ioredis (asked only for a script written in node-redis' form).
 */
export function markMisfitScripts(commands: readonly RedisCommand[], ioredisClient: () => boolean): void {
  for (const command of commands) {
    const script = command.script;
    if (!script?.lua || !script.traits?.deletes || script.traits.acquires || command.wrapped) continue;
    const read = keysRead(script.lua);
    if (script.keysCounted && read > script.keys.length) {
      const passed = script.keys.length === 0 ? 'no keys' : script.keys.length === 1 ? 'one key' : `${script.keys.length} keys`;
      script.misfit = `the script reads KEYS[${read}], but the call passes ${passed}, so KEYS[${read}] is nil and \`redis.call\` with it is an error`;
    } else if (command.style === 'node-redis' && ioredisClient()) {
      script.misfit = `the client is ioredis, whose eval takes the number of keys after the script (\`eval(script, 1, key, token)\`): the options object written here in node-redis' form is sent as that number, and Redis rejects the call`;
    }
  }
}
