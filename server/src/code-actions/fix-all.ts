// `source.fixAll.lockwise`: every fix marked safe unattended, in one edit, for "Fix All" and for
// `editor.codeActionsOnSave`. Fixes that change what the lock does are left for a person to read.
import { CodeActionKind, type CodeAction } from 'vscode-languageserver/node';
import { fixAll } from '../../../rules/fixes/fix-all';
import type { FileScope } from '../analysis';
import type { ActionContext } from './context';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.lockwise`;

/** The one edit that turns `before` into `after`: the changed middle, common head and tail kept. */
function middleEdit(before: string, after: string): { start: number; end: number; newText: string } {
  let head = 0;
  while (head < before.length && head < after.length && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { start: head, end: before.length - tail, newText: after.slice(head, after.length - tail) };
}

export function fixAllAction(context: ActionContext, scope: FileScope): CodeAction | undefined {
  const fixed = fixAll(scope.fileName, context.text, { config: scope.config, unattendedOnly: true });
  if (fixed.applied === 0) return undefined;
  const edit = middleEdit(context.text, fixed.text);
  return {
    title: 'Fix all Lockwise problems that are safe to fix unattended',
    kind: FIX_ALL_KIND,
    edit: context.editDocument([{ range: context.positions.range(edit), newText: edit.newText }]),
  };
}
