// Pull diagnostics (`textDocument/diagnostic`, LSP 3.17) for editors that ask for them. Such an editor
// gets an open document's diagnostics only by pulling: pushing them too would show every finding twice
// (the editor keeps pushed and pulled ones apart), so for open documents the server then pushes only an
// empty list, which clears what the workspace scan pushed while the file was closed.
import {
  DocumentDiagnosticReportKind,
  type Connection,
  type DocumentDiagnosticReport,
  type InitializeParams,
} from 'vscode-languageserver/node';
import { toDiagnostics } from './diagnostics';
import type { LiveDocuments } from './documents';

/**
 * Pull when the client supports it, unless it asked for push in initializationOptions
 * (`{ "diagnosticMode": "push" }`; the VS Code client does, to keep its one diagnostic collection).
 */
export function usesPullDiagnostics(params: InitializeParams): boolean {
  const options = params.initializationOptions as { diagnosticMode?: unknown } | null | undefined;
  return !!params.capabilities.textDocument?.diagnostic && options?.diagnosticMode !== 'push';
}

export function registerPullDiagnostics(connection: Connection, live: LiveDocuments): void {
  connection.languages.diagnostics.on(async (params): Promise<DocumentDiagnosticReport> => {
    const uri = params.textDocument.uri;
    const result = await live.current(uri);
    return { kind: DocumentDiagnosticReportKind.Full, items: result ? toDiagnostics(uri, result.text, result.analysis.findings) : [] };
  });
}
