// `--format json`: the machine-readable report, exactly the shape documented for `lockwise check`
// (version 1). Lines and columns are 1-based; `file` is relative to the current folder. One line, as
// ESLint's: indenting made a report of 9,000 findings 57% larger (16 MB) and 15-65% slower to format.
import { rangeOf, relatedPlace, type CheckReport } from './report';

export function formatJson(report: CheckReport): string {
  const findings = report.files.flatMap((file) =>
    file.findings.map((f) => ({
      file: file.name,
      rule: f.rule,
      severity: f.severity,
      ...rangeOf(file, f.span),
      message: f.message,
      related: f.related.map((r) => ({ ...relatedPlace(file, r, report.cwd), message: r.message })),
      ...(f.noFix ? { noFix: f.noFix } : {}),
      fixes: f.fixes.map((fix) => ({
        title: fix.title,
        unattended: fix.unattended === true,
        edits: fix.edits.map((edit) => ({ ...rangeOf(file, edit), newText: edit.newText })),
      })),
    })),
  );
  const document = {
    version: 1,
    filesScanned: report.filesScanned,
    filesAnalyzed: report.filesAnalyzed,
    durationMs: Math.round(report.durationMs),
    findings,
    errors: report.problems.map((p) => ({ file: p.file, message: p.message })),
    ...(report.baseline ? { baseline: report.baseline } : {}),
  };
  return `${JSON.stringify(document)}\n`;
}
