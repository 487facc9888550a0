// `--format pretty` (the default): findings grouped by file, each with a code frame that underlines
// the span, the related locations, optionally the fixes as a small diff, then a summary line.
import { escapeControlChars } from '../../../client/src/locks/display-text';
import { offsetToPosition } from '../../../rules/positions';
import type { Finding, Fix, Severity, Span } from '../../../rules/types';
import { lineStartsOf, lineText, rangeOf, relatedPlace, severityCounts, type CheckReport, type CheckedFile } from './report';

export interface PrettyOptions {
  color: boolean;
  showFixes: boolean;
  /** Where a rule's doc is on this machine (the docs ship with the CLI), for the list after the findings. */
  docPath?: (rule: string) => string | undefined;
}

type Paint = (text: string) => string;
interface Palette {
  bold: Paint;
  dim: Paint;
  severity: Record<Severity, Paint>;
  added: Paint;
  removed: Paint;
}

const sgr = (open: number, close: number): Paint => (text) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain: Paint = (text) => text;
const COLORS: Palette = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  severity: { error: sgr(31, 39), warning: sgr(33, 39), info: sgr(36, 39) },
  added: sgr(32, 39),
  removed: sgr(31, 39),
};
const NO_COLORS: Palette = {
  bold: plain,
  dim: plain,
  severity: { error: plain, warning: plain, info: plain },
  added: plain,
  removed: plain,
};

/** Lines of a multi-line span shown before "... more lines". */
const MAX_SPAN_LINES = 4;
/** Long lines (minified code) are cut to a window around the span. */
const MAX_LINE_WIDTH = 160;
const CONTEXT_BEFORE_SPAN = 40;
/** Lines per side of one fix hunk. */
const MAX_HUNK_LINES = 10;

export function formatPretty(report: CheckReport, options: PrettyOptions): string {
  const paint = options.color ? COLORS : NO_COLORS;
  const out: string[] = [];
  for (const file of report.files) {
    out.push(paint.bold(escapeControlChars(file.name)));
    for (const finding of file.findings) out.push(...findingLines(file, finding, paint, options.showFixes, report.cwd), '');
  }
  const rules = [...new Set(report.files.flatMap((f) => f.findings.map((x) => x.rule)))].sort();
  const docs = rules.map((rule) => [rule, options.docPath?.(rule)] as const).filter((d): d is readonly [string, string] => !!d[1]);
  if (docs.length > 0) {
    out.push(paint.bold('Rule docs:'));
    for (const [rule, path] of docs) out.push(`  ${rule}: ${path}`);
    out.push('');
  }
  for (const kind of ['error', 'skipped'] as const) {
    const problems = report.problems.filter((p) => p.kind === kind);
    if (problems.length === 0) continue;
    out.push(paint.bold(kind === 'error' ? 'Could not check:' : 'Skipped:'));
    // File names are data: a name holding an escape sequence must not drive the terminal.
    for (const p of problems) out.push(`  ${escapeControlChars(p.file)}: ${escapeControlChars(p.message)}`);
    out.push('');
  }
  out.push(...summary(report, paint));
  return `${out.join('\n')}\n`;
}

function findingLines(file: CheckedFile, finding: Finding, paint: Palette, showFixes: boolean, cwd: string): string[] {
  const { line, column } = rangeOf(file, finding.span);
  const color = paint.severity[finding.severity];
  const lines = [`  ${line}:${column}  ${color(finding.severity)}  ${finding.message}  ${paint.dim(finding.rule)}`];
  lines.push(...codeFrame(file, finding.span, color, paint).map((l) => `    ${l}`));
  for (const related of finding.related) {
    const at = relatedPlace(file, related, cwd);
    const where = at.file === file.name ? `${at.line}:${at.column}` : `${at.file}:${at.line}:${at.column}`;
    lines.push(`    ${paint.dim(where)}  ${related.message}`);
  }
  if (showFixes) {
    for (const fix of finding.fixes) lines.push(...fixLines(file, fix, paint).map((l) => `    ${l}`));
    if (finding.noFix) lines.push(`    ${paint.dim(finding.noFix)}`);
  }
  return lines;
}

/** The span's lines with one line of context either side, the span underlined with carets. */
function codeFrame(file: CheckedFile, span: Span, color: Paint, paint: Palette): string[] {
  const starts = lineStartsOf(file);
  const start = offsetToPosition(starts, span.start);
  let end = offsetToPosition(starts, Math.max(span.start, span.end));
  // A span ending at the start of a line ends, visibly, at the end of the line before.
  if (end.line > start.line && end.character === 0) {
    end = { line: end.line - 1, character: lineText(file, end.line - 1).length };
  }
  const lastShown = Math.min(end.line, start.line + MAX_SPAN_LINES - 1);
  const first = Math.max(0, start.line - 1);
  const last = Math.min(starts.length - 1, lastShown + 1);
  const width = String(last + 1).length;
  const frame: string[] = [];
  for (let line = first; line <= last; line++) {
    const inSpan = line >= start.line && line <= lastShown;
    const raw = lineText(file, line);
    const from = line === start.line ? start.character : 0;
    const to = line === end.line ? end.character : raw.length;
    const shown = clip(raw, inSpan ? from : 0, inSpan ? to : 0);
    const marker = line === start.line ? color('>') : ' ';
    frame.push(`${marker} ${paint.dim(`${String(line + 1).padStart(width)} |`)} ${shown.text}`);
    if (inSpan) {
      const carets = '^'.repeat(Math.max(1, shown.to - shown.from));
      frame.push(`  ${paint.dim(`${' '.repeat(width)} |`)} ${' '.repeat(shown.from)}${color(carets)}`);
    }
    if (line === lastShown && end.line > lastShown) {
      frame.push(`  ${paint.dim(`${' '.repeat(width)} |`)} ${paint.dim(`... ${end.line - lastShown} more lines`)}`);
      break;
    }
  }
  return frame;
}

/**
 * One line as displayed: tabs as two spaces, cut to a window around [from, to) when too long.
 * Returns the span's display columns within the returned text.
 */
function clip(raw: string, from: number, to: number): { text: string; from: number; to: number } {
  let windowStart = 0;
  let windowEnd = raw.length;
  if (raw.length > MAX_LINE_WIDTH) {
    windowStart = Math.max(0, Math.min(from - CONTEXT_BEFORE_SPAN, raw.length - MAX_LINE_WIDTH));
    windowEnd = Math.min(raw.length, windowStart + MAX_LINE_WIDTH);
  }
  const prefix = windowStart > 0 ? '…' : '';
  const suffix = windowEnd < raw.length ? '…' : '';
  const display = (offset: number): number => {
    const clamped = Math.min(Math.max(offset, windowStart), windowEnd);
    const before = raw.slice(windowStart, clamped);
    return prefix.length + before.length + (before.match(/\t/g)?.length ?? 0);
  };
  const text = prefix + raw.slice(windowStart, windowEnd).replace(/\t/g, '  ') + suffix;
  return { text, from: display(from), to: display(to) };
}

/** A fix as hunks of removed and added lines: edits close together share one hunk. */
function fixLines(file: CheckedFile, fix: Fix, paint: Palette): string[] {
  const lines = [`${paint.bold('fix:')} ${fix.title}${fix.isPreferred ? paint.dim(' (preferred)') : ''}`];
  const starts = lineStartsOf(file);
  const edits = [...fix.edits].sort((a, b) => a.start - b.start);
  const hunks: { first: number; last: number; edits: typeof edits }[] = [];
  for (const edit of edits) {
    const first = offsetToPosition(starts, edit.start).line;
    const last = offsetToPosition(starts, edit.end).line;
    const open = hunks.at(-1);
    if (open && first <= open.last + 2) {
      open.last = Math.max(open.last, last);
      open.edits.push(edit);
    } else {
      hunks.push({ first, last, edits: [edit] });
    }
  }
  for (const hunk of hunks) {
    const regionStart = starts[hunk.first];
    const regionEnd = starts[hunk.last] + lineText(file, hunk.last).length;
    let after = '';
    let cursor = regionStart;
    for (const edit of hunk.edits) {
      after += file.text.slice(cursor, edit.start) + edit.newText;
      cursor = Math.max(cursor, edit.end);
    }
    after += file.text.slice(cursor, Math.max(cursor, regionEnd));
    const before = file.text.slice(regionStart, regionEnd);
    lines.push(paint.dim(`@@ line ${hunk.first + 1}`));
    lines.push(...capped(before, '- ', paint.removed, paint), ...capped(after, '+ ', paint.added, paint));
  }
  return lines;
}

function capped(text: string, sign: string, color: Paint, paint: Palette): string[] {
  const lines = text.split(/\r?\n|\r/);
  const shown = lines.slice(0, MAX_HUNK_LINES).map((l) => color(sign + l.replace(/\t/g, '  ')));
  if (lines.length > MAX_HUNK_LINES) shown.push(paint.dim(`  ... ${lines.length - MAX_HUNK_LINES} more lines`));
  return shown;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function summary(report: CheckReport, paint: Palette): string[] {
  const counts = severityCounts(report);
  const total = counts.error + counts.warning + counts.info;
  const skipped = report.problems.filter((p) => p.kind === 'skipped').length;
  const failed = new Set(report.problems.filter((p) => p.kind === 'error').map((p) => p.file)).size;
  const head =
    total === 0
      ? paint.bold(failed ? `No problems found, but ${plural(failed, 'file')} could not be checked.` : 'No problems found.')
      : paint.severity[counts.error ? 'error' : counts.warning ? 'warning' : 'info'](
          paint.bold(
            `${plural(total, 'problem')} (${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.info} info) in ${plural(report.files.length, 'file')}`,
          ),
        );
  const stats = [`${plural(report.filesScanned, 'file')} scanned`, `${report.filesAnalyzed} parsed`];
  if (skipped) stats.push(`${skipped} skipped`);
  if (failed) stats.push(paint.severity.error(`${failed} could not be checked`));
  stats.push(`${(report.durationMs / 1000).toFixed(2)} s`);
  const lines = [head, paint.dim(stats.join(', '))];
  const b = report.baseline;
  if (b?.written !== undefined) lines.push(`Baseline ${b.file}: wrote ${plural(b.written, 'entry').replace(/entrys$/, 'entries')}.`);
  else if (b) {
    const stale = b.stale === 0 ? 'every entry still matches' : `${plural(b.stale, 'entry').replace(/entrys$/, 'entries')} no longer ${b.stale === 1 ? 'matches' : 'match'} (run --update-baseline to drop ${b.stale === 1 ? 'it' : 'them'})`;
    lines.push(`Baseline ${b.file}: ${plural(b.suppressed, 'finding')} suppressed, ${stale}.`);
  }
  return lines;
}
