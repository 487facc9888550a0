// Entry point of the analyzer: text in, findings out. Used by the CLI and the language server alike.
import { Project, ScriptKind, type SourceFile } from 'ts-morph';
import { emptyConfig, type LockwiseConfig } from './config';
import { buildModel, type LockModel } from './engine/model';
import { mightHoldLockCode } from './engine/prefilter';
import { allRules } from './index';
import type { Report, Rule } from './rule';
import { applySuppressions } from './suppressions';
import type { AnalysisResult, Finding, Severity } from './types';

export interface AnalyzeOptions {
  config?: LockwiseConfig;
  /** Run only these rules (by id); default all enabled ones. */
  only?: readonly string[];
}

const SCRIPT_KINDS: Record<string, ScriptKind> = {
  '.ts': ScriptKind.TS,
  '.mts': ScriptKind.TS,
  '.cts': ScriptKind.TS,
  '.tsx': ScriptKind.TSX,
  '.js': ScriptKind.JS,
  '.mjs': ScriptKind.JS,
  '.cjs': ScriptKind.JS,
  '.jsx': ScriptKind.JSX,
};

export const ANALYZED_EXTENSIONS = Object.keys(SCRIPT_KINDS);

export function scriptKindOf(fileName: string): ScriptKind | undefined {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? undefined : SCRIPT_KINDS[fileName.slice(dot).toLowerCase()];
}

// One project for the process; each file is added, analysed and removed so no AST is kept.
let project: Project | undefined;
function parse(fileName: string, text: string): SourceFile {
  project ??= new Project({
    useInMemoryFileSystem: true,
    skipFileDependencyResolution: true,
    compilerOptions: { allowJs: true, noLib: true },
  });
  // A private virtual path: the caller's path may not be a valid in-memory path (Windows drives, URIs).
  const name = `/lockwise/input${ANALYZED_EXTENSIONS.find((e) => fileName.toLowerCase().endsWith(e)) ?? '.ts'}`;
  return project.createSourceFile(name, text, { overwrite: true, scriptKind: scriptKindOf(fileName) ?? ScriptKind.TS });
}

export function severityFor(rule: Rule, config: LockwiseConfig): Severity | undefined {
  const setting = config.rules[rule.id] ?? rule.defaultSeverity;
  return setting === 'off' ? undefined : setting;
}

/** Parses the text, builds its lock model, runs `use` on it and forgets the AST (none is kept). */
export function withModel<T>(fileName: string, text: string, config: LockwiseConfig, use: (model: LockModel) => T): T {
  const sourceFile = parse(fileName, text);
  try {
    return use(buildModel(sourceFile, config.helpers));
  } finally {
    project?.removeSourceFile(sourceFile);
  }
}

/** Runs the active rules on a model; a rule that throws is reported and the others still run. */
export function runRules(model: LockModel, rules: readonly Rule[], config: LockwiseConfig): Omit<AnalysisResult, 'parsed'> {
  const findings: Finding[] = [];
  const ruleFailures: AnalysisResult['ruleFailures'] = [];
  for (const rule of rules) {
    const severity = severityFor(rule, config) as Severity;
    try {
      rule.check({
        model,
        report: (r: Report) =>
          findings.push({ rule: rule.id, severity, message: r.message, span: r.span, related: r.related ?? [], fixes: r.fixes ?? [] }),
      });
    } catch (err) {
      ruleFailures.push({ rule: rule.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  findings.sort((a, b) => a.span.start - b.span.start || a.rule.localeCompare(b.rule));
  return { findings: applySuppressions(model.text, findings), ruleFailures };
}

export function activeRules(config: LockwiseConfig, only?: readonly string[]): Rule[] {
  return allRules.filter((r) => severityFor(r, config) !== undefined && (!only || only.includes(r.id)));
}

/**
 * Analyses one file. Throws only on input the parser itself cannot take (e.g. a stack overflow on
 * absurdly deep nesting); callers report that per file.
 */
export function analyzeText(fileName: string, text: string, options: AnalyzeOptions = {}): AnalysisResult {
  const config = options.config ?? emptyConfig();
  const active = activeRules(config, options.only);
  if (active.length === 0 || !mightHoldLockCode(text, config.helpers)) {
    return { findings: [], ruleFailures: [], parsed: false };
  }
  return { ...withModel(fileName, text, config, (model) => runRules(model, active, config)), parsed: true };
}
