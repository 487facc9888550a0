// The extension's entry: wiring only. The language server does the linting; the language client
// module owns its lifecycle; commands here are thin.
import { commands, window, type ExtensionContext, type LogOutputChannel } from 'vscode';
import { checkWorkspace, lockSites, restartLanguageClient, startLanguageClient, stopLanguageClient } from './language-client';
import { activateLockPanel } from './panel/activate';
import { showRuleDocumentation } from './rule-docs';
import { LockwiseStatus } from './status';

export const COMMANDS = {
  restartServer: 'lockwise.restartServer',
  checkWorkspace: 'lockwise.checkWorkspace',
  showOutput: 'lockwise.showOutput',
  showRuleDocumentation: 'lockwise.showRuleDocumentation',
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
  const status = new LockwiseStatus(COMMANDS.showOutput);
  context.subscriptions.push(output, status);

  context.subscriptions.push(
    commands.registerCommand(COMMANDS.restartServer, () =>
      restartLanguageClient(context, output, status).catch(reportFailure(output, 'restarting the server')),
    ),
    commands.registerCommand(COMMANDS.showOutput, () => output.show(true)),
    commands.registerCommand(COMMANDS.showRuleDocumentation, (rule: unknown) =>
      showRuleDocumentation(context, rule).catch(reportFailure(output, 'opening the rule documentation')),
    ),
    commands.registerCommand(COMMANDS.checkWorkspace, async () => {
      // Open Problems first so findings show up as the scan publishes them.
      await commands.executeCommand('workbench.actions.view.problems');
      status.setChecking(true);
      await window
        .withProgress({ location: { viewId: 'workbench.panel.markers.view' } }, () => checkWorkspace())
        .then((r) => {
          const summary = `Lockwise checked ${r.files} files in ${(r.durationMs / 1000).toFixed(1)} s: ${r.findings} finding${r.findings === 1 ? '' : 's'}.`;
          output.info(summary);
          void window.showInformationMessage(summary, 'Open Problems').then((choice) => {
            if (choice) void commands.executeCommand('workbench.actions.view.problems');
          });
        }, reportFailure(output, 'checking the workspace'))
        .then(() => status.setChecking(false));
    }),
  );

  activateLockPanel(context, { lockSites, output });
  await startLanguageClient(context, output, status).catch(reportFailure(output, 'starting the server'));
}

export function deactivate(): Promise<void> {
  return stopLanguageClient();
}
