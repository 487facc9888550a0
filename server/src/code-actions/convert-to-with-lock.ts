// "Convert to withLock" (refactor.rewrite): replaces a recognised acquire ... critical section ...
// release region with `await withLock(client, key, { ttlMs }, async (signal) => { ... })`, adds the
// import, and creates the helper from the template when the project has none, all in one edit.
import { ts } from 'ts-morph';
import {
  CodeActionKind,
  type CodeAction,
  type CreateFile,
  type TextDocumentEdit,
  type TextEdit,
} from 'vscode-languageserver/node';
import type { LockRegion } from '../../../rules/regions';
import type { Span } from '../../../rules/types';
import type { ActionContext } from './context';
import type { HelperPlan } from './with-lock-helper';

export const CONVERT_TITLE = 'Convert to withLock';

/** `import { withLock } from '<specifier>';` (or a require) after the last import, or before the first statement. */
function importEdit(context: ActionContext, specifier: string, commonJs: boolean): TextEdit {
  const file = ts.createSourceFile('input.tsx', context.text, ts.ScriptTarget.Latest, false);
  const isRequire = (s: ts.Statement) => ts.isVariableStatement(s) && s.declarationList.declarations.every((d) => !!d.initializer && /^require\(/.test(d.initializer.getText(file)));
  const imports = file.statements.filter((s) => ts.isImportDeclaration(s) || (commonJs && isRequire(s)));
  const quote = /\b(?:from|require\()\s*"/.test(context.text) && !/\b(?:from|require\()\s*'/.test(context.text) ? '"' : "'";
  const line = commonJs ? `const { withLock } = require(${quote}${specifier}${quote});` : `import { withLock } from ${quote}${specifier}${quote};`;
  const last = imports[imports.length - 1];
  if (last) {
    const at = context.positions.range({ start: last.getEnd(), end: last.getEnd() }).start;
    return { range: { start: at, end: at }, newText: `${context.eol}${line}` };
  }
  const first = file.statements[0];
  const directive = first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression);
  const offset = !first ? context.text.length : directive ? first.getEnd() : first.getStart(file);
  const at = context.positions.range({ start: offset, end: offset }).start;
  return { range: { start: at, end: at }, newText: directive ? `${context.eol}${line}` : `${line}${context.eol}${context.eol}` };
}

function touches(region: LockRegion, range: Span): boolean {
  return region.acquireSpan.start <= range.end && region.acquireSpan.end >= range.start;
}

export function convertToWithLockActions(
  context: ActionContext,
  regions: readonly LockRegion[],
  range: Span,
  plan: HelperPlan | undefined,
): CodeAction[] {
  const here = regions.filter((r) => touches(r, range));
  if (here.length === 0) return [];
  const refusal = !plan
    ? 'Cannot convert to withLock: the file is not in a workspace folder, where the helper would go.'
    : plan.create && !context.support.createFiles
      ? 'Cannot convert to withLock: this editor cannot create the helper file.'
      : undefined;
  const refused = here.filter((r) => r.reason || refusal);
  const disabled: CodeAction[] = context.support.disabledActions
    ? refused.map((r) => ({ title: here.length > 1 ? `${CONVERT_TITLE} (${r.keyText})` : CONVERT_TITLE, kind: CodeActionKind.RefactorRewrite, disabled: { reason: r.reason ?? refusal! } }))
    : [];
  if (!plan || refusal) return disabled;
  return [...disabled, ...here.filter((r) => !r.reason).map((region) => {
    const edits: TextEdit[] = [{ range: context.positions.range(region.span), newText: region.newText }];
    if (plan.specifier) edits.unshift(importEdit(context, plan.specifier, plan.commonJs === true));
    const edit = context.editDocument(edits);
    if (plan.create) {
      // No ignoreIfExists: if the file appeared meanwhile, the editor refuses the edit instead of
      // writing the template into it.
      const create: CreateFile = { kind: 'create', uri: plan.create.uri };
      const fill: TextDocumentEdit = {
        textDocument: { uri: plan.create.uri, version: null },
        edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: plan.create.text }],
      };
      edit.documentChanges = [create, fill, ...(edit.documentChanges ?? [])];
    }
    return {
      title: here.length > 1 ? `${CONVERT_TITLE} (${region.keyText})` : CONVERT_TITLE,
      kind: CodeActionKind.RefactorRewrite,
      edit,
    };
  })];
}
