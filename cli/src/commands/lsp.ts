// `lockwise lsp [--stdio]`: the language server the VS Code extension bundles, for any LSP editor. It is
// dist/server.js itself (also the `lockwise-language-server` bin), loaded from beside this CLI.
import { join } from 'node:path';
import type { Command } from '../command';

const HELP = `Usage: lockwise lsp [--stdio]

Starts the Lockwise language server on standard input and output (the default,
and the only transport editors need). Settings come from workspace/configuration
(section "lockwise") or from initializationOptions; see the README for Neovim,
Helix, Zed and Sublime Text.
`;

export const command: Command = {
  summary: 'start the language server for any LSP editor (stdio)',
  run(argv) {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(HELP);
      return Promise.resolve(0);
    }
    require(join(__dirname, 'server.js'));
    // The server ends the process itself on the LSP `exit` notification.
    return new Promise<number>(() => {});
  },
};
