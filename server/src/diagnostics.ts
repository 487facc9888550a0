// Findings (offsets) -> LSP diagnostics (positions), the way the style guide wants them: source
// "lockwise", the rule id as code with a link to its doc, related information for the other half.
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver/node';
import { lineStarts, offsetToPosition } from '../../rules/positions';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ruleDocUrl } from '../../rules/rule';
import { pathToUri } from './uris';
import type { Finding, Severity, Span } from '../../rules/types';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export const SOURCE = 'lockwise';

// The rule docs ship next to the bundle (rules/*.md in the .vsix and the repository), so the link works
// offline and in a fork; the web page is the fallback for a server run from elsewhere.
const LOCAL_DOCS = join(__dirname, '..', 'rules');
const hrefs = new Map<string, string>();

export function ruleDocHref(rule: string): string {
  let href = hrefs.get(rule);
  if (!href) {
    const local = join(LOCAL_DOCS, `${rule}.md`);
    hrefs.set(rule, (href = existsSync(local) ? pathToUri(local) : ruleDocUrl(rule)));
  }
  return href;
}

/** Converts offsets of one text; computes the line table once. */
export class PositionMap {
  private readonly starts: number[];
  constructor(private readonly text: string) {
    this.starts = lineStarts(text);
  }
  range(span: Span): Range {
    const clamp = (o: number) => Math.max(0, Math.min(o, this.text.length));
    return { start: offsetToPosition(this.starts, clamp(span.start)), end: offsetToPosition(this.starts, clamp(span.end)) };
  }
}

export function toDiagnostics(uri: string, text: string, findings: readonly Finding[]): Diagnostic[] {
  if (findings.length === 0) return [];
  const positions = new PositionMap(text);
  return findings.map((f) => toDiagnostic(uri, positions, f));
}

export function toDiagnostic(uri: string, positions: PositionMap, f: Finding): Diagnostic {
  const diagnostic: Diagnostic = {
    range: positions.range(f.span),
    severity: f.baselined ? DiagnosticSeverity.Hint : SEVERITY[f.severity],
    source: SOURCE,
    code: f.rule,
    codeDescription: { href: ruleDocHref(f.rule) },
    message: f.baselined ? `${f.message} (In the baseline.)` : f.message,
  };
  if (f.related.length > 0) {
    diagnostic.relatedInformation = f.related.map((r) => ({
      // A project helper's place in its own file, or the other half of the problem in this one.
      location: r.file && r.range
        ? { uri: pathToUri(r.file), range: { start: { line: r.range.line, character: r.range.character }, end: { line: r.range.endLine, character: r.range.endCharacter } } }
        : { uri, range: positions.range(r.span) },
      message: r.message,
    }));
  }
  return diagnostic;
}

/**
 * The file's diagnostics, plus, when the analyzer failed on it, one at the top of the file saying so:
 * a file Lockwise could not analyse must not look like a file with nothing wrong.
 */
export function analysisDiagnostics(uri: string, text: string, analysis: { findings: readonly Finding[]; failed?: boolean; notAnalysed?: string }): Diagnostic[] {
  const diagnostics = toDiagnostics(uri, text, analysis.findings);
  if (!analysis.failed) return diagnostics;
  return [
    {
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      severity: DiagnosticSeverity.Warning,
      source: SOURCE,
      message: `Lockwise could not analyse this file (${analysis.notAnalysed ?? 'the analyzer failed'}), so it shows no lock findings for it. Its nesting may be too deep; \`lockwise check\` reports the same file under "errors".`,
    },
    ...diagnostics,
  ];
}

/** A problem with a config file: shown on the file's first line, since parsing already failed. */
export function configProblemDiagnostic(message: string): Diagnostic {
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Error,
    source: SOURCE,
    message,
  };
}
