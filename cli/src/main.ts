// `lockwise <command> ...`: dispatches to one module per command. Exit codes are the command's own;
// 2 is reserved for usage and internal errors everywhere.
import { join } from 'node:path';
import { requireWithCodeCache, type CachedModule } from './code-cache';
import type { Command } from './command';
import { command as lsp } from './commands/lsp';

// Each entry loads its command's bundle on demand (esbuild.mjs turns these requires into requires of
// dist/cli-check.js and dist/cli-redis.js): `check` never loads the Redis clients, the Redis commands
// never load TypeScript, and `--help` loads neither. `require`, not `import()`: an imported CommonJS
// file goes through Node's ES module loader, which first scans all of it for its export names.
// `check` is loaded with a V8 code cache, as its worker loads the analyzer: a tenth of the start of a
// check with nothing to analyse is compiling its bundle.
type RedisCommands = typeof import('./commands/redis');
let cached: CachedModule<typeof import('./commands/check')> | undefined;
const COMMANDS: Record<string, () => Command> = {
  check: () => (cached = requireWithCodeCache(join(__dirname, 'cli-check.js'))).exports.command,
  extend: () => (require('./commands/redis') as RedisCommands).extend,
  locks: () => (require('./commands/redis') as RedisCommands).locks,
  lsp: () => lsp,
  release: () => (require('./commands/redis') as RedisCommands).release,
};

function usage(): string {
  const lines = Object.keys(COMMANDS)
    .sort()
    .map((name) => `  lockwise ${name}`);
  return ['Usage: lockwise <command> [options]', '', 'Commands:', ...lines, '', 'Run `lockwise <command> --help` for its options.'].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    console.log(process.env.LOCKWISE_VERSION);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`lockwise: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const code = await load().run(rest);
  cached?.saveCache();
  return code;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`lockwise: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 2;
  },
);
