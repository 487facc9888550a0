// Entry point of the analyzer: text in, findings out. Used by the CLI and the language server alike.
import { ts } from './engine/typescript';
import { emptyConfig, type LockwiseConfig } from './config';
import { indexTree } from './engine/file-index';
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

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.tsx': ts.ScriptKind.TSX,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
  '.jsx': ts.ScriptKind.JSX,
};

export const ANALYZED_EXTENSIONS = Object.keys(SCRIPT_KINDS);

export function scriptKindOf(fileName: string): ts.ScriptKind | undefined {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? undefined : SCRIPT_KINDS[fileName.slice(dot).toLowerCase()];
}

/** Parses and indexes the tree; parent pointers are set by the index's walk (the engine walks up the tree). */
export function parseSource(fileName: string, text: string): ts.SourceFile {
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, scriptKindOf(fileName) ?? ts.ScriptKind.TS);
  indexTree(sourceFile);
  return sourceFile;
}

/**
 * Re-parses after an edit, reusing the unchanged subtrees of `previous` (an editor keeps one tree per
 * open document). `previous` must not be used afterwards: TypeScript moves its reused nodes.
 */
export function reparseSource(previous: ts.SourceFile, text: string, change: ts.TextChangeRange): ts.SourceFile {
  return ts.updateSourceFile(previous, text, change);
}

export function severityFor(rule: Rule, config: LockwiseConfig): Severity | undefined {
  const setting = config.rules[rule.id] ?? rule.defaultSeverity;
  return setting === 'off' ? undefined : setting;
}

/** Builds the lock model of a parsed file and runs `use` on it. */
export function withModel<T>(source: ts.SourceFile | { fileName: string; text: string }, config: LockwiseConfig, use: (model: LockModel) => T): T {
  const fileName = source.fileName;
  try {
    const sourceFile = 'kind' in source ? source : parseSource(source.fileName, source.text);
    return use(buildModel(sourceFile, config.helpers));
  } catch (err) {
    // TypeScript's parser recurses per nesting level; absurd nesting exhausts the stack.
    if (err instanceof RangeError) throw new Error(`cannot analyse ${fileName}: the code is nested too deeply (${err.message})`);
    throw err;
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
  return { ...withModel({ fileName, text }, config, (model) => runRules(model, active, config)), parsed: true };
}

/** Analyses an already parsed file (the caller decides with mightHoldLockCode whether to parse). */
export function analyzeSource(sourceFile: ts.SourceFile, options: AnalyzeOptions = {}): Omit<AnalysisResult, 'parsed'> {
  const config = options.config ?? emptyConfig();
  const active = activeRules(config, options.only);
  if (active.length === 0) return { findings: [], ruleFailures: [] };
  return withModel(sourceFile, config, (model) => runRules(model, active, config));
}

export { mightHoldLockCode };
