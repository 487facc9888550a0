// Starts the Lockwise language server (dist/server.js) over node IPC and keeps the one client
// instance, so that commands and the Redis Locks view can reach the server across restarts.
import { Uri, type Diagnostic, type ExtensionContext, type LogOutputChannel } from 'vscode';
import { LanguageClient, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { ruleDocCommandUri } from './rule-doc-links';
import {
  CHECK_WORKSPACE_REQUEST,
  LOCK_SITES_REQUEST,
  SCAN_PROGRESS_NOTIFICATION,
  type ScanProgress,
  type CheckWorkspaceResult,
  type LockSitesParams,
  type LockSitesResult,
} from '../../server/src/protocol';

/** The client id: vscode-languageclient reads the `lockwise.trace.server` setting through it. */
export const CLIENT_ID = 'lockwise';

export const LANGUAGES = ['typescript', 'javascript', 'typescriptreact', 'javascriptreact'];

let client: LanguageClient | undefined;

function create(context: ExtensionContext, output: LogOutputChannel): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    // Matches "Attach to Server" in .vscode/launch.json.
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: 'file', language },
      { scheme: 'untitled', language },
    ]),
    outputChannel: output,
    // Pushed diagnostics only (one collection, as before the server learnt pull diagnostics); the
    // server then also offers "Show rule documentation", which runs this extension's command.
    initializationOptions: { diagnosticMode: 'push', ruleDocCommand: true },
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => next(uri, diagnostics.map(linkRuleDocToPreview)),
    },
  };
  return new LanguageClient(CLIENT_ID, 'Lockwise', serverOptions, clientOptions);
}

/** The code link opens the bundled doc as a markdown preview (rule-doc-links.ts says why). */
function linkRuleDocToPreview(diagnostic: Diagnostic): Diagnostic {
  const code = diagnostic.code;
  if (typeof code !== 'object') return diagnostic;
  const target = ruleDocCommandUri(diagnostic.source, code.value);
  if (target) diagnostic.code = { value: code.value, target: Uri.parse(target) };
  return diagnostic;
}

/** Told when the server starts, runs, stops or fails to start, and how far a workspace scan is. */
export interface StateListener {
  setState(state: 'starting' | 'running' | 'stopped' | 'failed', failure?: string): void;
  setScan(progress: ScanProgress): void;
}

export async function startLanguageClient(context: ExtensionContext, output: LogOutputChannel, status: StateListener): Promise<void> {
  const current = (client = create(context, output));
  current.onDidChangeState((e) => {
    if (client === current) status.setState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
  });
  status.setState('starting');
  try {
    await current.start();
    current.onNotification(SCAN_PROGRESS_NOTIFICATION, (progress: ScanProgress) => status.setScan(progress));
  } catch (err) {
    status.setState('failed', err instanceof Error ? err.message : String(err));
    throw err;
  }
}

export async function restartLanguageClient(context: ExtensionContext, output: LogOutputChannel, status: StateListener): Promise<void> {
  await stopLanguageClient();
  await startLanguageClient(context, output, status);
}

export async function stopLanguageClient(): Promise<void> {
  const previous = client;
  client = undefined;
  // dispose() also frees a client whose server failed to start or crashed for good.
  await previous?.dispose();
}

function running(): LanguageClient {
  if (!client?.isRunning()) throw new Error('The Lockwise language server is not running.');
  return client;
}

/** Every lock acquisition site the server knows of (the Redis Locks view uses it). */
export function lockSites(params: LockSitesParams = {}): Promise<LockSitesResult> {
  return running().sendRequest<LockSitesResult>(LOCK_SITES_REQUEST, params);
}

/** Scans the workspace now; resolves when the scan is over. */
export function checkWorkspace(): Promise<CheckWorkspaceResult> {
  return running().sendRequest<CheckWorkspaceResult>(CHECK_WORKSPACE_REQUEST, {});
}
