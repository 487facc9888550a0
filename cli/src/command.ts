/** One `lockwise <name>` subcommand; `run` resolves to the process exit code. */
export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}
