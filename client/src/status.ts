// The language status item (the `{}` in the status bar next to the language): whether the server runs,
// this file's findings, a workspace scan in progress ("checking workspace 250/3,245"), a server that
// failed; with a link to the output.
import { DiagnosticSeverity, languages, LanguageStatusSeverity, window, type Disposable, type LanguageStatusItem, type TextEditor } from 'vscode';
import type { ScanProgress } from '../../server/src/protocol';
import { LANGUAGES } from './language-client';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export class LockwiseStatus implements Disposable {
  private readonly item: LanguageStatusItem;
  private readonly subscriptions: Disposable[] = [];
  private state: ServerState = 'starting';
  private checking = false;
  private scan?: ScanProgress;
  private failure?: string;

  constructor(showOutputCommand: string) {
    this.item = languages.createLanguageStatusItem('lockwise.status', LANGUAGES);
    this.item.name = 'Lockwise';
    this.item.command = { title: 'Show Output', command: showOutputCommand };
    this.subscriptions.push(
      window.onDidChangeActiveTextEditor(() => this.render()),
      languages.onDidChangeDiagnostics((e) => {
        const active = window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some((u) => u.toString() === active)) this.render();
      }),
    );
    this.render();
  }

  setState(state: ServerState, failure?: string): void {
    this.state = state;
    this.failure = failure;
    this.render();
  }

  setChecking(checking: boolean): void {
    this.checking = checking;
    this.render();
  }

  setScan(progress: ScanProgress): void {
    this.scan = progress.finished ? undefined : progress;
    this.render();
  }

  private findingsIn(editor: TextEditor | undefined): { errors: number; others: number } | undefined {
    if (!editor) return undefined;
    const mine = languages.getDiagnostics(editor.document.uri).filter((d) => d.source === 'lockwise');
    const errors = mine.filter((d) => d.severity === DiagnosticSeverity.Error).length;
    return { errors, others: mine.length - errors };
  }

  private render(): void {
    const item = this.item;
    item.busy = this.state === 'starting' || this.checking || !!this.scan;
    item.severity = this.state === 'failed' ? LanguageStatusSeverity.Error : this.state === 'stopped' ? LanguageStatusSeverity.Warning : LanguageStatusSeverity.Information;
    if (this.state !== 'running') {
      item.text = `Lockwise: ${this.state === 'failed' ? 'server failed' : `server ${this.state}`}`;
      item.detail = this.failure ?? (this.state === 'starting' ? 'starting the language server' : 'restart it with "Lockwise: Restart Server"');
      return;
    }
    const found = this.findingsIn(window.activeTextEditor);
    const total = found ? found.errors + found.others : 0;
    const scan = this.scan;
    item.text = scan
      ? `Lockwise: checking workspace ${scan.total > 0 ? `${scan.done.toLocaleString('en-US')}/${scan.total.toLocaleString('en-US')}` : '(listing files)'}`
      : this.checking ? 'Lockwise: checking workspace' : found ? `Lockwise: ${total === 0 ? 'no lock problems' : `${total} lock problem${total === 1 ? '' : 's'}`}` : 'Lockwise';
    item.detail = found && total > 0 ? `${found.errors} error${found.errors === 1 ? '' : 's'}, ${found.others} other in this file` : 'language server running';
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
