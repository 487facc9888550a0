// What one `lockwise check` run found, in the shape every output format reads.
import { lineStarts, offsetToPosition } from '../../../rules/positions';
import type { Finding, Severity, Span } from '../../../rules/types';

export interface CheckedFile {
  /** Relative to the current folder with '/' separators: what every format prints. */
  name: string;
  text: string;
  /** Only files with findings are kept in a report. */
  findings: Finding[];
}

/** A file that was not (fully) checked: skipped on purpose, or failed (unreadable, analyzer or rule crash). */
export interface RunProblem {
  file: string;
  message: string;
  kind: 'skipped' | 'error';
}

export interface CheckReport {
  cwd: string;
  files: CheckedFile[];
  problems: RunProblem[];
  filesScanned: number;
  filesAnalyzed: number;
  durationMs: number;
  /** `check --fix` / `--fix-dry-run`: fixes applied (or that would be), and the diff of a dry run. */
  fixes?: { applied: number; written: boolean; diff: string };
}

/** 1-based lines and columns (UTF-16 units); the end column is exclusive, as in SARIF. */
export interface Range {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

const startsCache = new WeakMap<CheckedFile, number[]>();

export function lineStartsOf(file: CheckedFile): number[] {
  let starts = startsCache.get(file);
  if (!starts) {
    starts = lineStarts(file.text);
    startsCache.set(file, starts);
  }
  return starts;
}

export function rangeOf(file: CheckedFile, span: Span): Range {
  const starts = lineStartsOf(file);
  const start = offsetToPosition(starts, span.start);
  const end = offsetToPosition(starts, Math.max(span.start, span.end));
  return { line: start.line + 1, column: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 };
}

/** The text of a 0-based line, without its line break. */
export function lineText(file: CheckedFile, line: number): string {
  const starts = lineStartsOf(file);
  const end = line + 1 < starts.length ? starts[line + 1] : file.text.length;
  return file.text.slice(starts[line], end).replace(/\r?\n$|\r$/, '');
}

export function severityCounts(report: CheckReport): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const file of report.files) for (const f of file.findings) counts[f.severity]++;
  return counts;
}
