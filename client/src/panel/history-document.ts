// "Lockwise: Show Lock History": a read-only document (no save prompt) with what the view saw of one
// lock. From a row's context menu it shows that lock; from the palette it asks which one.
import * as vscode from 'vscode';
import { escapeControlChars } from '../locks/display-text';
import type { ConnectionView } from './panel-state';
import { historyText } from './history-text';

const SCHEME = 'lockwise-history';
const texts = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();

/** Registers the document provider for history documents. */
export function registerHistoryDocuments(): vscode.Disposable {
  return vscode.Disposable.from(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? 'This history is no longer available.\n',
    }),
  );
}

export async function showLockHistory(connections: ConnectionView[], lock?: { key: string; connectionId: string }): Promise<void> {
  const all = connections.flatMap((c) => (c.history?.all() ?? []).map((track) => ({ track, connection: c })));
  let pick = lock && all.find((t) => t.track.key === lock.key && t.connection.target.id === lock.connectionId);
  if (!pick) {
    if (all.length === 0) {
      void vscode.window.showInformationMessage('Lockwise: no lock history yet. It is kept while the Redis Locks view is open.');
      return;
    }
    const chosen = await vscode.window.showQuickPick(
      all.map((t) => ({
        label: escapeControlChars(t.track.key),
        description: `${t.track.ended ? 'gone' : escapeControlChars(t.track.holder.label)} · ${t.connection.target.label}`,
        entry: t,
      })),
      { title: 'Show the history of which lock?', matchOnDescription: true },
    );
    pick = chosen?.entry;
  }
  if (!pick) return;
  // One document per connection and key; its text is replaced each time it is shown.
  const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${escapeControlChars(pick.track.key).replace(/\//g, '∕')}.history`, query: encodeURIComponent(pick.connection.target.id) });
  texts.set(uri.toString(), historyText(pick.track, pick.connection.target.label, Date.now()));
  changed.fire(uri);
  await vscode.window.showTextDocument(uri, { preview: true });
}
