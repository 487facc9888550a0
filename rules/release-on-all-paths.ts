// After a successful acquire, every path out of the function must release: an exception from awaited
// work, or an early return, must not leave the lock held until its TTL (or forever without one).
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, contains, descendantsOfKind, identifiersNamed, isAncestor, spanOf, type Node } from './engine/nodes';
import { escapes, isGuard, releaseCoverage, releasesLock, releasesOf } from './engine/paths';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import { fallsBackWhenBusy } from './engine/busy-path';
import type { Rule } from './rule';
import { indentOf, removeStatement } from './fixes/text';
import type { Fix } from './types';
import { describeKey, namesRateLimit } from './engine/keys';
import { unsettledWork } from './engine/unsettled-work';
import { rxValueGap, type RxGap } from './engine/rx-chain';
import { thenChainGap, type ThenGap } from './engine/then-chain';

/** The names a declaration binds, through destructuring (`const { id, rest: [first] } = ...`). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

/**
 * Wraps the statements between the acquire (and its guard) and the release in try/finally. When names
 * declared there are used after the release, the rest of the block (up to its return) goes into the
 * try too; other releases of the lock inside the try go, since the finally now releases on every path.
 */
function fix(model: LockModel, acquire: Acquire, skipped: Node): Fix | string {
  // The release to move into the finally: the last one in the acquire's own block, else the one skipped.
  const siblings = releasesOf(model, acquire)
    .map((r) => ancestorWhere<ts.ExpressionStatement>(r.call, ts.isExpressionStatement))
    .filter((st) => !!st && st.parent === acquire.statement.parent);
  const releaseStatement: Node = siblings[siblings.length - 1] ?? skipped;
  const block = releaseStatement.parent;
  if (!ts.isBlock(block) || !ts.isExpressionStatement(releaseStatement)) {
    return 'No automatic fix: the release is not a statement of its own in a block; move it into a finally block by hand.';
  }
  const statements = block.statements;
  const at = statements.indexOf(releaseStatement);
  let start = statements.indexOf(acquire.statement as ts.Statement);
  if (start >= 0) {
    start++;
    if (statements[start] && isGuard(statements[start], acquire) && start < at) start++;
  } else if (!isAncestor(acquire.statement, block)) {
    return 'No automatic fix: the acquire and the release are in different blocks; put the work between them in try { } finally { release }.';
  } else start = 0;
  let between = statements.slice(start, at);
  // Names declared inside the new try block must not be used after it: then the rest goes in too.
  const declared = new Set(between.flatMap((s) => descendantsOfKind<ts.VariableDeclaration>(s, ts.SyntaxKind.VariableDeclaration).flatMap((d) => boundNames(d.name))));
  const after = statements.slice(at + 1);
  if (after.some((s) => identifiersNamed(s, declared).length > 0)) between = [...between, ...after];
  if (between.length === 0) return 'No automatic fix: nothing runs between the acquire and the release.';

  const text = block.getSourceFile().text;
  const first = between[0];
  const last = between[between.length - 1];
  // The early releases inside the new try block: `await del(key); return;` is covered by the finally.
  const early = releasesOf(model, acquire)
    .map((r) => ancestorWhere<ts.ExpressionStatement>(r.call, ts.isExpressionStatement))
    .filter((st): st is ts.ExpressionStatement => !!st && st !== releaseStatement && st.getStart() >= first.getStart() && st.end <= last.end && ts.isBlock(st.parent));
  const end = Math.max(last.end, releaseStatement.end);
  const cuts = end > releaseStatement.end ? [...early, releaseStatement] : early;
  let body = text.slice(first.getStart(), last.end);
  for (const st of [...cuts].sort((a, b) => b.getStart() - a.getStart())) {
    const cut = removeStatement(st);
    body = body.slice(0, Math.max(0, cut.start - first.getStart())) + body.slice(cut.end - first.getStart());
  }
  body = body.replace(/\s+$/, '');
  const indent = indentOf(first);
  const templates = (s: Node) => [...descendantsOfKind(s, ts.SyntaxKind.TemplateExpression), ...descendantsOfKind(s, ts.SyntaxKind.NoSubstitutionTemplateLiteral)];
  const multilineTemplate = between.some((s) => templates(s).some((d) => d.getText().includes('\n')));
  const inner = multilineTemplate ? body : body.replace(/\n(?=[ \t]*\S)/g, '\n  ');
  const tryText = `try {\n${indent}  ${inner}\n${indent}} finally {\n${indent}  ${releaseStatement.getText()}\n${indent}}`;
  return { title: 'Release in a finally block', isPreferred: true, edits: [{ start: first.getStart(), end, newText: tryText }] };
}

/** How the messages name the lock: its key, else the object that holds it. */
function lockName(acquire: Acquire): string {
  return acquire.key ? describeKey(acquire.key) : (acquire.owner ?? 'the lock');
}

/** How long a skipped release leaves the lock held. */
function heldFor(acquire: Acquire): string {
  return acquire.hasTtl || acquire.laterExpire ? 'until its TTL runs out, blocking every other worker' : 'forever, since it has no TTL';
}

export const releaseOnAllPaths: Rule = {
  id: 'release-on-all-paths',
  defaultSeverity: 'warning',
  summary: 'After a successful acquire, an exception or early return skips the release, leaving the lock held.',
  check({ model, report }) {
    const gaps = new Map<Node, { acquire: Acquire; gap: NonNullable<ReturnType<typeof releaseCoverage>> }>();
    const chained = new Map<Node, { acquire: Acquire; gap: ThenGap }>();
    const streamed = new Map<Node, { acquire: Acquire; gap: RxGap }>();
    for (const acquire of model.acquires) {
      if (acquire.kind === 'redlock-using' || acquire.kind === 'with-lock' || acquire.kind === 'routine') continue;
      if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) continue;
      // A cooldown window (`sandbox-<id>-restored-cooldown`) is meant to stay: only a give-up path clears it.
      if (acquire.key && namesRateLimit(acquire.key)) continue;
      // A stampede damper left held only makes the next caller fill without it, as a busy one does anyway.
      if (fallsBackWhenBusy(model, acquire)) continue;
      const gap = releaseCoverage(model, acquire);
      if (!gap) {
        // Callbacks included: a release in a `.then` of the work is in a function of its own.
        const releases = model.releases.filter((r) => contains(acquire.fn, r.call) && releasesLock(acquire, r));
        const escaped = escapes(acquire, releases.map((r) => r.call));
        const chain = escaped ? undefined : thenChainGap(model, acquire, releases);
        if (chain && !chained.has(chain.release.call)) chained.set(chain.release.call, { acquire, gap: chain });
        const stream = escaped || chain ? undefined : rxValueGap(model, acquire, releases);
        if (stream && !streamed.has(stream.release.call)) streamed.set(stream.release.call, { acquire, gap: stream });
      }
      // A retry that acquires again before the same release is one lock: report the acquire nearest it.
      if (gap && (gaps.get(gap.release.call)?.acquire.call.pos ?? -1) < acquire.call.pos) gaps.set(gap.release.call, { acquire, gap });
    }
    for (const { acquire, gap } of gaps.values()) {
      const key = lockName(acquire);
      const exitText = gap.exit.node.getText().split('\n')[0].slice(0, 60);
      const cause = gap.exit.kind === 'exception' ? `an exception from \`${exitText}\`` : `the early \`${exitText}\``;
      const leaves = gap.exit.kind === 'jump' ? 'leaves this round of the loop' : 'leaves the function';
      const held = heldFor(acquire);
      report({
        span: spanOf(acquire.call),
        message: `After ${key} is acquired, ${cause} ${leaves} without reaching the release, so the lock stays held ${held}. Release in a finally block.`,
        related: [
          { span: spanOf(gap.exit.node), message: gap.exit.kind === 'return' ? 'returns without releasing' : gap.exit.kind === 'jump' ? 'jumps past the release' : 'can throw before the release' },
          { span: spanOf(gap.release.call), message: 'the release it skips' },
        ],
        fix: () => fix(model, acquire, gap.statement),
      });
    }
    for (const { acquire, gap } of chained.values()) {
      const key = lockName(acquire);
      const held = heldFor(acquire);
      report({
        span: spanOf(acquire.call),
        message: `After ${key} is acquired, it is released only in a \`.then\` of \`${gap.work.getText().split('\n')[0].slice(0, 60)}\`: when that work rejects, no \`.then\` runs and the lock stays held ${held}. Release in a \`.finally()\` on the chain (or await the work in try/finally).`,
        related: [
          { span: spanOf(gap.work), message: 'can reject before the release' },
          { span: spanOf(gap.release.call), message: 'the release it skips' },
        ],
        fix: () => 'No automatic fix: move the release into a .finally() at the end of the chain, or await the work inside try { } finally { release }.',
      });
    }
    for (const { acquire, gap } of streamed.values()) {
      const work = gap.work.getText().split('\n')[0].slice(0, 60);
      report({
        span: spanOf(acquire.call),
        message: `After ${lockName(acquire)} is acquired, it is released only in a \`${gap.operator}\` on the values of \`${work}\`: when that stream errors (the work threw), the operator never runs and the lock stays held ${heldFor(acquire)}. Release in \`finalize(() => ...)\` in the pipe, which runs on completion and on error alike.`,
        related: [
          { span: spanOf(gap.work), message: 'can error before the release' },
          { span: spanOf(gap.release.call), message: 'the release it skips' },
        ],
        fix: () => 'No automatic fix: move the release into finalize(() => ...) at the end of the pipe.',
      });
    }
    const reported = new Set<Node>();
    for (const acquire of model.acquires) {
      for (const { call, release, how } of unsettledWork(model, acquire)) {
        if (reported.has(call)) continue;
        reported.add(call);
        const key = lockName(acquire);
        const work = call.getText().split('\n')[0].slice(0, 60);
        const what = how === 'return'
          ? `\`return ${work}\` hands the work's promise back without waiting for it, so the finally releases the lock on ${key} at once,`
          : `\`${work}\` starts the work and its promise is awaited only after the release, so the lock on ${key} is released`;
        report({
          span: spanOf(call),
          message: `${what} while the work still runs: another worker can take the lock and run alongside it. Await the work before the release.`,
          related: [{ span: spanOf(release.call), message: 'the release that runs before the work ends' }],
          fix: () => ({ title: 'Await the work before the finally releases', isPreferred: true, edits: [{ start: call.getStart(), end: call.getStart(), newText: 'await ' }] }),
        });
      }
    }
  },
};

