// Editors start `lockwise-language-server` (or `lockwise lsp`) often without naming a transport; the
// server library would then refuse to start. Standard input/output is what every LSP editor speaks.
const TRANSPORT = /^--(?:stdio|node-ipc|socket=|pipe=)/;

/** Adds `--stdio` to `argv` when it names no transport; the VS Code client passes `--node-ipc`. */
export function defaultToStdio(argv: string[]): void {
  if (!argv.slice(2).some((a) => TRANSPORT.test(a))) argv.push('--stdio');
}
