// What every code-action builder needs about the analysed document: positions for its offsets, its
// lines, and edits pinned to the version the findings came from (a stale action is then refused by
// the editor instead of corrupting newer text).
import type { ClientCapabilities, Diagnostic, TextEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import { lineStarts } from '../../../rules/positions';
import type { Finding } from '../../../rules/types';
import { PositionMap, toDiagnostic } from '../diagnostics';
import type { DocumentResult } from '../documents';

export interface EditSupport {
  /** The client takes versioned `documentChanges`. */
  documentChanges: boolean;
  /** ... including file creation (needed to add the withLock helper). */
  createFiles: boolean;
  /** The client shows disabled code actions with their reason. */
  disabledActions: boolean;
  /** The client has the command that opens a rule's doc (initializationOptions.ruleDocCommand). */
  ruleDocCommand: boolean;
}

export function editSupport(capabilities: ClientCapabilities, initializationOptions?: unknown): EditSupport {
  const edit = capabilities.workspace?.workspaceEdit;
  return {
    documentChanges: edit?.documentChanges === true,
    createFiles: edit?.documentChanges === true && (edit.resourceOperations ?? []).includes('create'),
    disabledActions: capabilities.textDocument?.codeAction?.disabledSupport === true,
    ruleDocCommand: (initializationOptions as { ruleDocCommand?: unknown } | undefined)?.ruleDocCommand === true,
  };
}

export class ActionContext {
  readonly uri: string;
  readonly text: string;
  readonly positions: PositionMap;
  readonly eol: string;
  private readonly starts: number[];

  constructor(
    readonly result: DocumentResult,
    readonly support: EditSupport,
  ) {
    this.uri = result.document.uri;
    this.text = result.text;
    this.positions = new PositionMap(this.text);
    this.starts = lineStarts(this.text);
    this.eol = this.text.includes('\r\n') ? '\r\n' : '\n';
  }

  lineText(line: number): string {
    const start = this.starts[line] ?? this.text.length;
    const end = line + 1 < this.starts.length ? this.starts[line + 1] : this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$|\r$/, '');
  }

  diagnostic(finding: Finding): Diagnostic {
    return toDiagnostic(this.uri, this.positions, finding);
  }

  /** Edits to this document only. */
  editDocument(edits: TextEdit[]): WorkspaceEdit {
    if (!this.support.documentChanges) return { changes: { [this.uri]: edits } };
    return { documentChanges: [{ textDocument: { uri: this.uri, version: this.result.version }, edits }] };
  }
}
