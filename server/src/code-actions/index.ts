// textDocument/codeAction: the findings under the requested range give their fixes (or why there is
// none), a "disable for this line" and their rule's doc; a recognised lock region under it gives
// "Convert to withLock"; `source.fixAll.lockwise` gives the unattended fixes of the whole file.
import { CodeActionKind, type CodeAction, type CodeActionParams } from 'vscode-languageserver/node';
import { lineStarts, positionToOffset } from '../../../rules/positions';
import type { Finding } from '../../../rules/types';
import type { LiveDocuments } from '../documents';
import { ActionContext, type EditSupport } from './context';
import { convertToWithLockActions } from './convert-to-with-lock';
import { disableRuleActions } from './disable-rule';
import { FIX_ALL_KIND, fixAllAction } from './fix-all';
import { noFixActions, ruleDocActions } from './no-fix';
import { ruleFixActions } from './rule-fixes';
import { planHelper } from './with-lock-helper';

// Editors ask for code actions on every cursor move; finding regions takes a parse, so it is only
// done where an acquire call could be, or when refactorings were asked for explicitly.
const ACQUIRE_CALL = /(?:set|setnx|setNX|SET|SETNX|acquire|lock)\s*\(/;

function wants(only: string[] | undefined, kind: string): boolean {
  return !only || only.some((o) => kind === o || kind.startsWith(`${o}.`));
}

export async function provideCodeActions(
  params: CodeActionParams,
  live: LiveDocuments,
  support: EditSupport,
): Promise<CodeAction[]> {
  const only = params.context.only;
  // Source actions only when asked for by kind ("Fix All", codeActionsOnSave), never on a cursor move.
  if (only?.some((o) => FIX_ALL_KIND.startsWith(o) && o.startsWith(CodeActionKind.Source))) {
    const result = await live.current(params.textDocument.uri);
    const action = result && result.analysis.findings.length > 0 ? fixAllAction(new ActionContext(result, support), result.scope) : undefined;
    return action ? [action] : [];
  }
  const result = await live.current(params.textDocument.uri);
  if (!result) return [];
  const context = new ActionContext(result, support);
  const starts = lineStarts(context.text);
  const from = positionToOffset(starts, params.range.start, context.text.length);
  const to = Math.max(from, positionToOffset(starts, params.range.end, context.text.length));
  const under = (f: Finding) => f.span.start <= to && f.span.end >= from;
  // Diagnostics are analysed without fixes; the first action asked for on a finding computes them.
  const findings = result.analysis.findings.some(under) ? live.findingsWithFixes(result).filter(under) : [];

  const actions: CodeAction[] = [];
  if (wants(only, CodeActionKind.QuickFix)) {
    actions.push(...ruleFixActions(context, findings));
    if (support.disabledActions) actions.push(...noFixActions(context, findings));
    actions.push(...disableRuleActions(context, findings));
    if (support.ruleDocCommand) actions.push(...ruleDocActions(context, findings));
  }
  const explicit = only?.some((o) => CodeActionKind.RefactorRewrite.startsWith(o)) ?? false;
  const lines = context.text.slice(starts[params.range.start.line] ?? from, starts[params.range.end.line + 1] ?? context.text.length);
  if (wants(only, CodeActionKind.RefactorRewrite) && (explicit || ACQUIRE_CALL.test(lines))) {
    const regions = live.regionsOf(result);
    if (regions.length > 0) {
      const { path, folder, settings, config } = result.scope;
      const plan = planHelper(path, context.text, folder, settings.withLockHelperPath, config.server ?? 'redis');
      actions.push(...convertToWithLockActions(context, regions, { start: from, end: to }, plan));
    }
  }
  return actions;
}
