// textDocument/codeAction: the findings under the requested range give their fixes and a
// "disable for this line" each; a recognised lock region under it gives "Convert to withLock".
import { CodeActionKind, type CodeAction, type CodeActionParams } from 'vscode-languageserver/node';
import { lineStarts, positionToOffset } from '../../../rules/positions';
import type { LiveDocuments } from '../documents';
import { ActionContext, type EditSupport } from './context';
import { disableRuleActions } from './disable-rule';
import { ruleFixActions } from './rule-fixes';

function wants(only: string[] | undefined, kind: string): boolean {
  return !only || only.some((o) => kind === o || kind.startsWith(`${o}.`));
}

export async function provideCodeActions(
  params: CodeActionParams,
  live: LiveDocuments,
  support: EditSupport,
): Promise<CodeAction[]> {
  const result = await live.current(params.textDocument.uri);
  if (!result) return [];
  const context = new ActionContext(result, support);
  const starts = lineStarts(context.text);
  const from = positionToOffset(starts, params.range.start, context.text.length);
  const to = Math.max(from, positionToOffset(starts, params.range.end, context.text.length));
  const findings = result.analysis.findings.filter((f) => f.span.start <= to && f.span.end >= from);

  const only = params.context.only;
  const actions: CodeAction[] = [];
  if (wants(only, CodeActionKind.QuickFix)) {
    actions.push(...ruleFixActions(context, findings), ...disableRuleActions(context, findings));
  }
  return actions;
}
