// `lockwise <command> ...`: dispatches to one module per command. Exit codes are the command's own;
// 2 is reserved for usage and internal errors everywhere.
import type { Command } from './command';

// Each entry loads its module lazily: `lockwise check` never pays for loading the Redis client.
// Modules export `command: Command`.
const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => (await import('./commands/check')).command,
  extend: async () => (await import('./commands/extend')).command,
  locks: async () => (await import('./commands/locks')).command,
  release: async () => (await import('./commands/release')).command,
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
  const command = await load();
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`lockwise: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 2;
  },
);
