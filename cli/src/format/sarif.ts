// `--format sarif`: SARIF 2.1.0 as GitHub code scanning ingests it. Every rule is listed with its help
// and documentation link; paths are relative to %SRCROOT% (the current folder); columns count UTF-16
// units, as the analyzer does; fingerprints ignore line numbers so alerts survive edits above them.
import { pathToFileURL } from 'node:url';
import { fingerprints } from '../../../rules/baseline';
import { ruleDocUrl } from '../../../rules/rule';
import type { RelatedLocation, Severity, Span } from '../../../rules/types';
import type { RuleInfo } from '../analyzer-manifest';
import { rangeOf, relatedPlace, type CheckReport, type CheckedFile } from './report';

const SRCROOT = '%SRCROOT%';
const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

export function formatSarif(report: CheckReport, rules: readonly RuleInfo[]): string {
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const results = report.files.flatMap((file) => {
    const prints = fingerprints(file.name, file.text, file.findings);
    return file.findings.map((f, i) => {
      const primary = location(file, f.span, report.cwd);
      return {
        ruleId: f.rule,
        ...(ruleIndex.has(f.rule) ? { ruleIndex: ruleIndex.get(f.rule) } : {}),
        level: LEVEL[f.severity],
        message: { text: f.message },
        locations: [primary],
        ...(f.related.length > 0
          ? { relatedLocations: f.related.map((r, i) => ({ id: i + 1, ...relatedLocation(file, r, report.cwd), message: { text: r.message } })) }
          : {}),
        partialFingerprints: { 'lockwiseFinding/v1': prints[i] },
        ...(f.fixes.length > 0
          ? {
              fixes: f.fixes.map((fix) => ({
                description: { text: fix.title },
                artifactChanges: [
                  {
                    artifactLocation: artifactFor(file.name, report.cwd),
                    replacements: fix.edits.map((edit) => ({
                      deletedRegion: region(file, edit),
                      insertedContent: { text: edit.newText },
                    })),
                  },
                ],
              })),
            }
          : {}),
      };
    });
  });

  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Lockwise',
            informationUri: 'https://github.com/lockwise/lockwise',
            ...(process.env.LOCKWISE_VERSION ? { semanticVersion: process.env.LOCKWISE_VERSION } : {}),
            rules: rules.map(ruleDescriptor),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: directoryUri(report.cwd) } },
        columnKind: 'utf16CodeUnits',
        results,
        ...(report.baseline ? { properties: { lockwiseBaseline: report.baseline } } : {}),
        invocations: [
          {
            executionSuccessful: !report.problems.some((p) => p.kind === 'error'),
            toolExecutionNotifications: report.problems.map((p) => ({
              level: p.kind === 'error' ? 'error' : 'note',
              message: { text: p.message },
              locations: [{ physicalLocation: { artifactLocation: artifactFor(p.file, report.cwd) } }],
            })),
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function ruleDescriptor(rule: RuleInfo) {
  const helpUri = ruleDocUrl(rule.id);
  return {
    id: rule.id,
    name: rule.id.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase()),
    shortDescription: { text: rule.summary },
    fullDescription: { text: rule.summary },
    help: { text: `${rule.summary}\n\nDocumentation: ${helpUri}`, markdown: `${rule.summary}\n\n[Documentation](${helpUri})` },
    helpUri,
    defaultConfiguration: { level: LEVEL[rule.defaultSeverity] },
    properties: { tags: ['correctness', 'concurrency', 'redis'], precision: 'high' },
  };
}

function directoryUri(dir: string): string {
  const href = pathToFileURL(dir).href;
  return href.endsWith('/') ? href : `${href}/`;
}

/** Files under the current folder are relative to %SRCROOT%; others (`../x`) get an absolute URI. */
function artifactFor(name: string, cwd: string): { uri: string; uriBaseId?: string } {
  if (name === '..' || name.startsWith('../')) return { uri: new URL(name, directoryUri(cwd)).href };
  return { uri: name.split('/').map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
}

function region(file: CheckedFile, span: Span) {
  const r = rangeOf(file, span);
  return { startLine: r.line, startColumn: r.column, endLine: r.endLine, endColumn: r.endColumn };
}

/** A related location, in the finding's file or in the project helper's. */
function relatedLocation(file: CheckedFile, related: RelatedLocation, cwd: string) {
  const { file: name, line, column, endLine, endColumn } = relatedPlace(file, related, cwd);
  return { physicalLocation: { artifactLocation: artifactFor(name, cwd), region: { startLine: line, startColumn: column, endLine, endColumn } } };
}

function location(file: CheckedFile, span: Span, cwd: string) {
  return { physicalLocation: { artifactLocation: artifactFor(file.name, cwd), region: region(file, span) } };
}
