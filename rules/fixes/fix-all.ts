// Fix-all: applies the preferred fix of every finding in a file, in passes, as ESLint does: each pass
// takes the fixes that do not overlap an earlier one of the same pass, then the file is analysed again
// (a fix that needs another's result, such as a token variable, finds it there). Used by the CLI's
// `check --fix` and the language server's `source.fixAll.lockwise`.
import { analyzeText, type AnalyzeOptions } from '../analyze';
import type { Finding, Fix, TextEdit } from '../types';

export interface FixAllOptions extends AnalyzeOptions {
  /** Only fixes marked safe to apply unattended (Fix.unattended); default true. */
  unattendedOnly?: boolean;
}

export interface FixAllResult {
  text: string;
  /** How many fixes were applied. */
  applied: number;
  /** The findings left in the fixed text. */
  remaining: Finding[];
}

const MAX_PASSES = 10;

/** Edits sorted from the end, identical insertions (an import two fixes add) kept once. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  const seen = new Set<string>();
  for (const edit of [...edits].sort((a, b) => b.start - a.start || b.end - a.end)) {
    const key = `${edit.start}:${edit.end}:${edit.newText}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out = out.slice(0, edit.start) + edit.newText + out.slice(edit.end);
  }
  return out;
}

/**
 * The span a fix rewrites, from its first to its last replacing edit. Pure insertions (an import, a
 * script constant, a token declaration) do not count, so two fixes that both add an import can share
 * a pass; two that rewrite overlapping code cannot.
 */
function reach(fix: Fix): { start: number; end: number } | undefined {
  const replacing = fix.edits.filter((e) => e.end > e.start);
  if (replacing.length === 0) return undefined;
  return { start: Math.min(...replacing.map((e) => e.start)), end: Math.max(...replacing.map((e) => e.end)) };
}

function chosenFix(finding: Finding, unattendedOnly: boolean): Fix | undefined {
  const fix = finding.fixes.find((f) => f.isPreferred) ?? finding.fixes[0];
  return fix && (!unattendedOnly || fix.unattended) ? fix : undefined;
}

/** The edits of one pass: the chosen fixes that do not reach into each other. */
export function passEdits(findings: readonly Finding[], unattendedOnly: boolean): { edits: TextEdit[]; fixes: number } {
  const taken: Array<{ start: number; end: number }> = [];
  const edits: TextEdit[] = [];
  let fixes = 0;
  for (const finding of findings) {
    const fix = chosenFix(finding, unattendedOnly);
    if (!fix) continue;
    const span = reach(fix);
    if (span && taken.some((t) => t.start < span.end && span.start < t.end)) continue;
    const insertions = fix.edits.filter((e) => e.end === e.start);
    // Two different insertions at one offset would land in an order no one chose: leave it to the next pass.
    if (insertions.some((i) => edits.some((e) => e.start === i.start && e.end === i.end && e.newText !== i.newText))) continue;
    if (span) taken.push(span);
    edits.push(...fix.edits);
    fixes++;
  }
  return { edits, fixes };
}

export function fixAll(fileName: string, text: string, options: FixAllOptions = {}): FixAllResult {
  const unattendedOnly = options.unattendedOnly ?? true;
  let current = text;
  let applied = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const { findings } = analyzeText(fileName, current, { ...options, fixes: true });
    const { edits, fixes } = passEdits(findings, unattendedOnly);
    if (fixes === 0) return { text: current, applied, remaining: findings };
    current = applyEdits(current, edits);
    applied += fixes;
  }
  return { text: current, applied, remaining: analyzeText(fileName, current, { ...options, fixes: false }).findings };
}
