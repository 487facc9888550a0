// Where a rule has no safe fix for the code, the editor says so (a disabled action with the reason:
// "Auto Fix" shows it, menus that list disabled actions fade it) instead of offering nothing; and every
// finding offers its rule's documentation.
import { CodeActionKind, type CodeAction } from 'vscode-languageserver/node';
import type { Finding } from '../../../rules/types';
import { SHOW_RULE_DOC_COMMAND } from '../protocol';
import type { ActionContext } from './context';

export function noFixActions(context: ActionContext, findings: readonly Finding[]): CodeAction[] {
  return findings
    .filter((f) => f.fixes.length === 0 && f.noFix)
    .map((f) => ({
      title: `No automatic fix for ${f.rule}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [context.diagnostic(f)],
      // Preferred: "Auto Fix" (and a fix-on-keypress binding) then shows the reason instead of nothing.
      isPreferred: true,
      disabled: { reason: f.noFix! },
    }));
}

export function ruleDocActions(context: ActionContext, findings: readonly Finding[]): CodeAction[] {
  const rules = [...new Set(findings.map((f) => f.rule))];
  return rules.map((rule) => ({
    title: `Show rule documentation: ${rule}`,
    kind: CodeActionKind.QuickFix,
    diagnostics: findings.filter((f) => f.rule === rule).map((f) => context.diagnostic(f)),
    command: { title: `Show rule documentation: ${rule}`, command: SHOW_RULE_DOC_COMMAND, arguments: [rule] },
  }));
}
