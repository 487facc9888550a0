// Applies a WorkspaceEdit the way an editor would: text edits against the original text (all at
// once, so their ranges refer to the same text), versioned document edits checked against the
// version the test holds, file creations.
import assert from 'node:assert/strict';
import type { TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';

function offsetOf(text: string, position: { line: number; character: number }): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    assert.ok(next >= 0, `edit position line ${position.line} is past the end of the text`);
    offset = next + 1;
  }
  return offset + position.character;
}

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const resolved = edits
    .map((e) => ({ start: offsetOf(text, e.range.start), end: offsetOf(text, e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  for (let i = 1; i < resolved.length; i++) {
    assert.ok(resolved[i].end <= resolved[i - 1].start, 'overlapping edits');
  }
  let out = text;
  for (const e of resolved) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

export interface EditTarget {
  /** uri -> current text; created files are added. */
  texts: Map<string, string>;
  /** uri -> version the editor holds (open documents). */
  versions?: Map<string, number>;
}

/** Applies `edit` to `target` in place; returns the URIs it created. */
export function applyWorkspaceEdit(edit: WorkspaceEdit, target: EditTarget): string[] {
  const created: string[] = [];
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const text = target.texts.get(uri);
    assert.ok(text !== undefined, `edit for unknown ${uri}`);
    target.texts.set(uri, applyTextEdits(text, edits));
  }
  for (const change of edit.documentChanges ?? []) {
    if ('kind' in change) {
      assert.equal(change.kind, 'create', `unexpected resource operation ${change.kind}`);
      assert.ok(!target.texts.has(change.uri) || change.options?.overwrite || change.options?.ignoreIfExists, `${change.uri} exists`);
      if (!target.texts.has(change.uri)) target.texts.set(change.uri, '');
      created.push(change.uri);
      continue;
    }
    const { uri, version } = change.textDocument;
    const text = target.texts.get(uri);
    assert.ok(text !== undefined, `edit for unknown ${uri}`);
    if (version !== null && target.versions?.has(uri)) assert.equal(version, target.versions.get(uri), `stale edit for ${uri}`);
    target.texts.set(uri, applyTextEdits(text, change.edits as TextEdit[]));
  }
  return created;
}
