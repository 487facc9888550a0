// What one `lockwise check` run found, in the shape every output format reads.
import { lineStarts, offsetToPosition } from '../../../rules/positions';
import { relative, sep } from 'node:path';
import type { Finding, RelatedLocation, Severity, Span } from '../../../rules/types';

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

/** What `--baseline` did: findings it suppressed, entries that matched nothing, entries written. */
export interface BaselineSummary {
  file: string;
  suppressed: number;
  stale: number;
  /** Set by --update-baseline. */
  written?: number;
}

export interface CheckReport {
  cwd: string;
  files: CheckedFile[];
  baseline?: BaselineSummary;
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

/** Where a related location is: in the finding's own file, or (a project helper) in another. */
export function relatedPlace(file: CheckedFile, related: RelatedLocation, cwd: string): Range & { file: string } {
  if (related.file && related.range) {
    const rel = relative(cwd, related.file) || '.';
    const r = related.range;
    return { file: sep === '/' ? rel : rel.split(sep).join('/'), line: r.line + 1, column: r.character + 1, endLine: r.endLine + 1, endColumn: r.endCharacter + 1 };
  }
  return { file: file.name, ...rangeOf(file, related.span) };
}
