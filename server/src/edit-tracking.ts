// Open documents that also say what each incremental change replaced, so that a kept syntax tree can
// be re-parsed across it. TextDocuments only reports that a document changed; the `update` of its
// configuration is the one place that sees the changes. Each change's range refers to the text the
// previous change left, so they are converted to offsets and applied one at a time.
import { ts } from 'ts-morph';
import type { TextDocumentsConfiguration } from 'vscode-languageserver/node';
import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { TextChange } from './document-tree';

/** A change in part of the text, or 'whole' when the editor sent the whole new text. */
export type Edit = TextChange | 'whole';

/** The configuration for `new TextDocuments(...)` that reports every change to `edited`, in order. */
export function editTracking(edited: (uri: string, edit: Edit) => void): TextDocumentsConfiguration<TextDocument> {
  return {
    create: (uri, languageId, version, content) => TextDocument.create(uri, languageId, version, content),
    update(document, changes, version) {
      for (const change of changes) {
        const edit = editOf(document, change);
        TextDocument.update(document, [change], version); // throws on a malformed change: then none is recorded
        edited(document.uri, edit);
      }
      return document;
    },
  };
}

/** The offsets TextDocument.update itself uses: positions clamped to the text, start and end in order. */
function editOf(document: TextDocument, change: TextDocumentContentChangeEvent): Edit {
  if (!('range' in change)) return 'whole';
  const a = document.offsetAt(change.range.start);
  const b = document.offsetAt(change.range.end);
  const start = Math.min(a, b);
  return ts.createTextChangeRange(ts.createTextSpan(start, Math.max(a, b) - start), change.text.length);
}
