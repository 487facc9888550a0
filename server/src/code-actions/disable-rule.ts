// "Disable <rule> for this line": a `// lockwise-disable-next-line <rule>` comment above the finding's
// line, indented like it. When the line above already disables other rules, the rule is added there.
import { CodeActionKind, type CodeAction } from 'vscode-languageserver/node';
import type { Finding } from '../../../rules/types';
import type { ActionContext } from './context';

const EXISTING_DIRECTIVE = /^[ \t]*\/\/\s*lockwise-disable-next-line\b/;

export function disableRuleActions(context: ActionContext, findings: readonly Finding[]): CodeAction[] {
  const seen = new Set<string>();
  const actions: CodeAction[] = [];
  for (const finding of findings) {
    const line = context.positions.range(finding.span).start.line;
    const key = `${finding.rule}@${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    actions.push({
      title: `Disable ${finding.rule} for this line`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [context.diagnostic(finding)],
      edit: context.editDocument([disableEdit(context, line, finding.rule)]),
    });
  }
  return actions;
}

function disableEdit(context: ActionContext, line: number, rule: string) {
  const above = line > 0 ? context.lineText(line - 1) : '';
  if (EXISTING_DIRECTIVE.test(above)) {
    // A bare directive would already silence every rule, so this one names rules: add ours to the list.
    const position = { line: line - 1, character: above.trimEnd().length };
    return { range: { start: position, end: position }, newText: `, ${rule}` };
  }
  const indent = /^[ \t]*/.exec(context.lineText(line))?.[0] ?? '';
  const start = { line, character: 0 };
  return { range: { start, end: start }, newText: `${indent}// lockwise-disable-next-line ${rule}${context.eol}` };
}
