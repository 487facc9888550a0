// The analysis of an open document, kept for its next edit. An edit that changed the analysed text only
// in blanks between top-level statements or between the members of a top-level class (outside comments,
// no line break added or removed) leaves every statement's tokens, and so the tree, the lock model, every
// rule's reasoning and the code messages quote, as they were: the findings are the previous ones with
// their offsets moved. That covers every keystroke inside a declaration that cannot hold lock code,
// because the lean parse blanks such declarations (engine/lock-text.ts). Any other edit is analysed afresh.
import { analyzeSource, changedSpan, type AnalyzeOptions } from './analyze';
import { applySuppressions } from './suppressions';
import { ts } from './engine/typescript';
import type { AnalysisResult, Finding, RelatedLocation, Span } from './types';

type Result = Omit<AnalysisResult, 'parsed'>;

interface Kept {
  /** The analysed tree's own text (a lean tree's has statements without lock code blanked). */
  text: string;
  config: AnalyzeOptions['config'];
  /** Before suppressions: a moved line break is no edit here, but a moved comment could be. */
  unsuppressed: Finding[];
  ruleFailures: Result['ruleFailures'];
}

/** Where an edit left the text: [start, oldEnd) of the old text became [start, start + inserted) of the new. */
interface Edit {
  start: number;
  oldEnd: number;
  delta: number;
}

const BLANKS = /^[ \t]*$/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

export class KeptAnalysis {
  private kept?: Kept;
  /** How many analyses were re-used and how many run afresh (the bench and the tests read them). */
  readonly stats = { reused: 0, fresh: 0 };

  /** The next analysis is a fresh one (the project's meaning of the file changed, or its tree was parsed anew). */
  forget(): void {
    this.kept = undefined;
  }

  /** The findings (without fixes) of `sourceFile`, re-used from the kept analysis where the edit allows. */
  analyze(sourceFile: ts.SourceFile, options: Omit<AnalyzeOptions, 'fixes' | 'only'>): Result {
    const kept = this.kept;
    const edit = kept && kept.config === options.config ? blankEdit(kept.text, sourceFile) : undefined;
    if (kept && edit) {
      this.stats.reused++;
      const unsuppressed = kept.unsuppressed.map((f) => moved(f, edit));
      this.kept = { ...kept, text: sourceFile.text, unsuppressed };
      return { findings: applySuppressions(sourceFile.text, unsuppressed), ruleFailures: kept.ruleFailures };
    }
    this.kept = undefined; // a throw below leaves nothing to re-use
    this.stats.fresh++;
    const result = analyzeSource(sourceFile, { ...options, fixes: false, suppress: false });
    // A project helper's place has a line and character, which a move in this file would have to follow:
    // findings with one are not kept (simpler than telling this file's places from another's).
    if (!result.findings.some((f) => f.related.some((r) => r.file))) {
      this.kept = { text: sourceFile.text, config: options.config, unsuppressed: result.findings, ruleFailures: result.ruleFailures };
    }
    return { findings: applySuppressions(sourceFile.text, result.findings), ruleFailures: result.ruleFailures };
  }
}

/** The edit from `before` to the tree's text when it only added or removed blanks between tokens; else undefined. */
function blankEdit(before: string, sourceFile: ts.SourceFile): Edit | undefined {
  const after = sourceFile.text;
  if (isJsxFile(sourceFile)) return undefined; // blanks in JSX text are content
  const { span, newLength } = changedSpan(before, after);
  const start = span.start;
  const oldEnd = start + span.length;
  const newEnd = start + newLength;
  if (!BLANKS.test(before.slice(start, oldEnd)) || !BLANKS.test(after.slice(start, newEnd))) return undefined;
  const edit = { start, oldEnd, delta: newEnd - oldEnd };
  if (edit.delta === 0 && oldEnd === start) return edit; // the same text
  // Blanks next to a blank only widen or narrow a gap; between two other characters they could join
  // or split a token (`a b` -> `ab`).
  if (!isBlank(after[start - 1]) && !isBlank(after[newEnd])) return undefined;
  return inTokensOrComment(sourceFile, start, newEnd) ? undefined : edit;
}

function isJsxFile(sourceFile: ts.SourceFile): boolean {
  return /\.[jt]sx$/i.test(sourceFile.fileName);
}

/**
 * Do the blanks at [from, to] of the tree's text lie in a token of a top-level statement, or of a member
 * of a top-level class, or in a comment? Between a function's tokens they would be no token's, but
 * messages quote code as written and rules test it with regular expressions; a statement or a class
 * member is never quoted whole (the lean parse blanks both for the same reason: engine/lock-text.ts).
 */
function inTokensOrComment(sourceFile: ts.SourceFile, from: number, to: number): boolean {
  const owns = (n: ts.Node) => n.pos <= from && to <= n.end && from < n.end;
  let owner: ts.Node | undefined = [...sourceFile.statements, sourceFile.endOfFileToken].find(owns);
  if (owner && ts.isClassDeclaration(owner) && to > owner.getStart(sourceFile)) owner = owner.members.find(owns);
  if (!owner || to > owner.getStart(sourceFile)) return true;
  // The blanks cannot hold a comment's first character, so they are in one only past its start.
  return (ts.getLeadingCommentRanges(sourceFile.text, owner.pos) ?? []).some((c) => c.pos < from && from < c.end);
}

function moved(finding: Finding, edit: Edit): Finding {
  return { ...finding, span: movedSpan(finding.span, edit), related: finding.related.map((r): RelatedLocation => ({ ...r, span: movedSpan(r.span, edit) })) };
}

/** Starts at or after the removed blanks move; ends move when they are past the edit's start. */
function movedSpan(span: Span, edit: Edit): Span {
  const start = span.start >= edit.oldEnd ? span.start + edit.delta : span.start;
  const end = span.end > edit.start ? span.end + edit.delta : span.end;
  return { start, end: Math.max(start, end) };
}
