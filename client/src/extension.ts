// The extension's entry: wiring only. The language server does the linting; the language client
// module owns its lifecycle; commands here are thin.
import { commands, window, type ExtensionContext, type LogOutputChannel } from 'vscode';
import { checkWorkspace, lockSites, restartLanguageClient, startLanguageClient, stopLanguageClient } from './language-client';
import { activateLockPanel } from './panel/activate';

export const COMMANDS = {
  restartServer: 'lockwise.restartServer',
  checkWorkspace: 'lockwise.checkWorkspace',
} as const;

function reportFailure(output: LogOutputChannel, what: string) {
  return (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    output.error(`${what} failed: ${message}`);
    void window.showErrorMessage(`Lockwise: ${what} failed: ${message}`, 'Show Output').then((choice) => {
      if (choice) output.show(true);
    });
  };
}

export async function activate(context: ExtensionContext): Promise<void> {
  const output = window.createOutputChannel('Lockwise', { log: true });
  context.subscriptions.push(output);

  context.subscriptions.push(
    commands.registerCommand(COMMANDS.restartServer, () =>
      restartLanguageClient(context, output).catch(reportFailure(output, 'restarting the server')),
    ),
    commands.registerCommand(COMMANDS.checkWorkspace, async () => {
      // Open Problems first so findings show up as the scan publishes them.
      await commands.executeCommand('workbench.actions.view.problems');
      await window.withProgress({ location: { viewId: 'workbench.panel.markers.view' } }, () =>
        checkWorkspace().then(
          (r) => output.info(`Check Workspace: ${r.files} files, ${r.findings} findings in ${r.durationMs} ms.`),
          reportFailure(output, 'checking the workspace'),
        ),
      );
    }),
  );

  activateLockPanel(context, { lockSites });
  await startLanguageClient(context, output).catch(reportFailure(output, 'starting the server'));
}

export function deactivate(): Promise<void> {
  return stopLanguageClient();
}
