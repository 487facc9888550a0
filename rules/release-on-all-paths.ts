// After a successful acquire, every path out of the function must release: an exception from awaited
// work, or an early return, must not leave the lock held until its TTL (or forever without one).
import { ts } from './engine/typescript';
import type { Acquire } from './engine/model';
import { descendantsOfKind, identifiersNamed, isAncestor, nameOf, spanOf, type Node } from './engine/nodes';
import { isGuard, releaseCoverage } from './engine/paths';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import type { Rule } from './rule';
import { indentOf } from './fixes/text';
import type { Fix } from './types';
import { describeKey } from './engine/keys';

/** Wraps the statements between the acquire (and its guard) and the release in try/finally. */
function fix(acquire: Acquire, releaseStatement: Node): Fix | undefined {
  const block = releaseStatement.parent;
  if (!ts.isBlock(block) || !ts.isExpressionStatement(releaseStatement)) return undefined;
  const statements = block.statements;
  const end = statements.indexOf(releaseStatement);
  let start = statements.indexOf(acquire.statement as ts.Statement);
  if (start >= 0) {
    start++;
    if (statements[start] && isGuard(statements[start], acquire) && start < end) start++;
  } else if (!isAncestor(acquire.statement, block)) {
    return undefined;
  } else start = 0;
  const between = statements.slice(start, end);
  if (between.length === 0) return undefined;

  // Names declared inside the new try block must not be used after it.
  const declared = new Set(between.flatMap((s) => descendantsOfKind<ts.VariableDeclaration>(s, ts.SyntaxKind.VariableDeclaration).map((d) => nameOf(d) ?? d.name.getText())));
  const usedAfter = statements.slice(end + 1).some((s) => identifiersNamed(s, declared).length > 0);
  if (usedAfter) return undefined;

  const text = block.getSourceFile().text;
  const first = between[0];
  const indent = indentOf(first);
  const body = text.slice(first.getStart(), between[between.length - 1].end);
  const templates = (s: Node) => [...descendantsOfKind(s, ts.SyntaxKind.TemplateExpression), ...descendantsOfKind(s, ts.SyntaxKind.NoSubstitutionTemplateLiteral)];
  const multilineTemplate = between.some((s) => templates(s).some((d) => d.getText().includes('\n')));
  const inner = multilineTemplate ? body : body.replace(/\n(?=[ \t]*\S)/g, '\n  ');
  return {
    title: 'Release in a finally block',
    isPreferred: true,
    edits: [{
      start: first.getStart(),
      end: releaseStatement.end,
      newText: `try {\n${indent}  ${inner}\n${indent}} finally {\n${indent}  ${releaseStatement.getText()}\n${indent}}`,
    }],
  };
}

export const releaseOnAllPaths: Rule = {
  id: 'release-on-all-paths',
  defaultSeverity: 'warning',
  summary: 'After a successful acquire, an exception or early return skips the release, leaving the lock held.',
  check({ model, report }) {
    const gaps = new Map<Node, { acquire: Acquire; gap: NonNullable<ReturnType<typeof releaseCoverage>> }>();
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock' || acquire.kind === 'routine') continue;
      if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) continue;
      const gap = releaseCoverage(model, acquire);
      // A retry that acquires again before the same release is one lock: report the acquire nearest it.
      if (gap && (gaps.get(gap.release.call)?.acquire.call.pos ?? -1) < acquire.call.pos) gaps.set(gap.release.call, { acquire, gap });
    }
    for (const { acquire, gap } of gaps.values()) {
      const key = acquire.key ? describeKey(acquire.key) : (acquire.owner ?? 'the lock');
      const exitText = gap.exit.node.getText().split('\n')[0].slice(0, 60);
      const cause = gap.exit.kind === 'return' ? `the early \`${exitText}\`` : `an exception from \`${exitText}\``;
      const held = acquire.hasTtl || acquire.laterExpire ? 'until its TTL runs out, blocking every other worker' : 'forever, since it has no TTL';
      report({
        span: spanOf(acquire.call),
        message: `After ${key} is acquired, ${cause} leaves the function without reaching the release, so the lock stays held ${held}. Release in a finally block.`,
        related: [
          { span: spanOf(gap.exit.node), message: gap.exit.kind === 'return' ? 'returns without releasing' : 'can throw before the release' },
          { span: spanOf(gap.release.call), message: 'the release it skips' },
        ],
        fix: () => fix(acquire, gap.statement),
      });
    }
  },
};

