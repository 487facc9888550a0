// Quick fixes the rules provide, one action per fix, tied to the diagnostic they fix. The safe fix
// carries isPreferred so "Fix" in the editor picks it; none is applied on save (they change lock semantics).
import { CodeActionKind, type CodeAction } from 'vscode-languageserver/node';
import type { Finding } from '../../../rules/types';
import type { ActionContext } from './context';

export function ruleFixActions(context: ActionContext, findings: readonly Finding[]): CodeAction[] {
  return findings.flatMap((finding) =>
    finding.fixes.map((fix) => {
      const action: CodeAction = {
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [context.diagnostic(finding)],
        edit: context.editDocument(
          fix.edits.map((e) => ({ range: context.positions.range(e), newText: e.newText })),
        ),
      };
      if (fix.isPreferred) action.isPreferred = true;
      return action;
    }),
  );
}
