// Entry point of the analyzer: text in, findings out. Used by the CLI and the language server alike.
import { ts } from './engine/typescript';
import { emptyConfig, type HelperNames, type LockwiseConfig } from './config';
import { indexTree } from './engine/file-index';
import { buildModel, type LockModel } from './engine/model';
import { leanParseHolds, leanText, type KeptLean } from './engine/lock-text';
import { rememberWrittenText } from './engine/written-text';
import { mightHoldLockCode } from './engine/prefilter';
import { textEdit } from './engine/text-edit';
import { allRules } from './index';
import type { Report, Rule } from './rule';
import { applySuppressions } from './suppressions';
import type { AnalysisResult, Finding, Severity } from './types';

/** Builds a file's lock model with the project's meanings (rules/project/project-index.ts). */
export interface ModelProvider {
  modelOf(sourceFile: ts.SourceFile, config: LockwiseConfig): LockModel;
  /** The model of a part of the file (rules/kept-analysis.ts), or undefined when only the whole file's will do. */
  partModelOf?(part: ts.SourceFile, config: LockwiseConfig): LockModel | undefined;
}

export interface AnalyzeOptions {
  config?: LockwiseConfig;
  /** The project-wide lock model to build the file's model with; default: the file alone. */
  project?: ModelProvider;
  /** Run only these rules (by id); default all enabled ones. */
  only?: readonly string[];
  /** Compute each finding's fix (default true); diagnostics alone do not need them. */
  fixes?: boolean;
  /** Leave out what `lockwise-disable` comments suppress (default true); off for a caller that does it itself. */
  suppress?: boolean;
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

const NO_HELPERS: HelperNames = { acquire: [], release: [], extend: [] };

function createTree(fileName: string, text: string, kind: ts.ScriptKind): ts.SourceFile {
  // JSDoc is never read, and parsing it is a tenth of the parse of a well-documented JavaScript file.
  return ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, kind);
}

function isJsx(kind: ts.ScriptKind): boolean {
  return kind === ts.ScriptKind.TSX || kind === ts.ScriptKind.JSX;
}

/** What the lean text of a lean tree keeps for the lean text of the tree's next version (reparseSource). */
const keptLean = new WeakMap<ts.SourceFile, KeptLean>();

/**
 * Parses and indexes the tree; parent pointers are set by the index's walk (the engine walks up the
 * tree). Statements that cannot hold lock code are blanked first (engine/lock-text.ts), so the tree's
 * `text` may differ from `text` in them, never in length or lines.
 */
export function parseSource(fileName: string, text: string, helpers: HelperNames = NO_HELPERS): ts.SourceFile {
  return parseLean(fileName, text, helpers).sourceFile;
}

/** parseSource, with the spans it blanked ([] when the tree is of the whole text). */
export function parseLean(fileName: string, text: string, helpers: HelperNames = NO_HELPERS, whole = false): { sourceFile: ts.SourceFile; blanked: Array<[number, number]> } {
  const kind = scriptKindOf(fileName) ?? ts.ScriptKind.TS;
  const lean = whole ? undefined : leanText(text, helpers, isJsx(kind));
  let sourceFile = lean ? createTree(fileName, lean.text, kind) : undefined;
  let blanked = lean?.blanked ?? [];
  if (!sourceFile || !leanParseHolds(sourceFile, blanked)) {
    sourceFile = createTree(fileName, text, kind);
    blanked = [];
  } else if (lean) {
    keptLean.set(sourceFile, lean.kept);
    rememberWrittenText(sourceFile, text);
  }
  indexTree(sourceFile);
  return { sourceFile, blanked };
}

/** A re-parse that touches less than this keeps a whole tree whole: blanking cannot pay for itself. */
const SMALL_EDIT = 2_048;

/**
 * `text` parsed reusing the unchanged subtrees of `previous` (an editor keeps one tree per open
 * document); the changed span is found by comparing the texts, so no edit can be missed. A tree of the
 * whole text stays whole across small edits; a lean one is re-blanked. `previous` must not be used
 * afterwards: TypeScript moves its reused nodes.
 */
export function reparseSource(previous: ts.SourceFile, text: string, helpers: HelperNames = NO_HELPERS): ts.SourceFile {
  const kind = scriptKindOf(previous.fileName) ?? ts.ScriptKind.TS;
  const { direct, lean } = nextLean(previous, text, helpers);
  lastNext = undefined; // `previous` is consumed below: keep no reference to it
  const next = lean?.text ?? text;
  let sourceFile = ts.updateSourceFile(previous, next, lean ? changedSpan(previous.text, next) : direct);
  if (lean && !leanParseHolds(sourceFile, lean.blanked)) sourceFile = createTree(previous.fileName, text, kind);
  else if (lean) {
    keptLean.set(sourceFile, lean.kept);
    rememberWrittenText(sourceFile, text);
  }
  indexTree(sourceFile, true);
  return sourceFile;
}

type NextLean = ReturnType<typeof computeNextLean>;

/**
 * The last nextLean answer. The language server asks nextTreeText and, when the edit needs a tree after
 * all, reparseSource of the same tree and text: the lean text (a scan of the whole text, 0.5 ms on the
 * bench's mixed file) is made once for both.
 */
let lastNext: { previous: ts.SourceFile; text: string; helpers: HelperNames; next: NextLean } | undefined;

/** The lean text reparseSource gives the next tree, or none: the tree is then of the whole text. */
function nextLean(previous: ts.SourceFile, text: string, helpers: HelperNames): NextLean {
  const last = lastNext;
  if (last && last.previous === previous && last.text === text && last.helpers === helpers) return last.next;
  const next = computeNextLean(previous, text, helpers);
  lastNext = { previous, text, helpers, next };
  return next;
}

function computeNextLean(previous: ts.SourceFile, text: string, helpers: HelperNames) {
  const direct = changedSpan(previous.text, text);
  const small = direct.span.length < SMALL_EDIT && direct.newLength < SMALL_EDIT;
  return { direct, lean: small ? undefined : leanText(text, helpers, isJsx(scriptKindOf(previous.fileName) ?? ts.ScriptKind.TS), keptLean.get(previous)) };
}

/** The text of the tree reparseSource would make of `text`, with the spans it blanked; no tree is made. */
export interface NextTreeText {
  text: string;
  blanked: Array<[number, number]>;
}

/**
 * What reparseSource(previous, text) would parse, or undefined when that is not known without the parse:
 * a lean text re-parses to a lean tree only if the parse holds (leanParseHolds), which the caller must
 * then confirm where the text changed, and `previous` is a lean tree so the rest is known to hold.
 */
export function nextTreeText(previous: ts.SourceFile, text: string, helpers: HelperNames = NO_HELPERS): NextTreeText | undefined {
  const { lean } = nextLean(previous, text, helpers);
  if (!lean) return { text, blanked: [] };
  return keptLean.has(previous) ? { text: lean.text, blanked: lean.blanked } : undefined;
}

/** The one span that covers every difference between two texts (common prefix and suffix left out). */
export function changedSpan(before: string, after: string): ts.TextChangeRange {
  const { start, oldEnd, newEnd } = textEdit(before, after);
  return ts.createTextChangeRange(ts.createTextSpan(start, oldEnd - start), newEnd - start);
}

export function severityFor(rule: Rule, config: LockwiseConfig): Severity | undefined {
  const setting = config.rules[rule.id] ?? rule.defaultSeverity;
  return setting === 'off' ? undefined : setting;
}

/** Builds the lock model of a parsed file and runs `use` on it. */
export function withModel<T>(source: ts.SourceFile | { fileName: string; text: string }, config: LockwiseConfig, use: (model: LockModel) => T, project?: ModelProvider): T {
  const fileName = source.fileName;
  try {
    const sourceFile = 'kind' in source ? source : parseSource(source.fileName, source.text, config.helpers);
    return use(project ? project.modelOf(sourceFile, config) : buildModel(sourceFile, config.helpers));
  } catch (err) {
    // TypeScript's parser recurses per nesting level; absurd nesting exhausts the stack.
    if (err instanceof RangeError) throw new Error(`cannot analyse ${fileName}: the code is nested too deeply (${err.message})`);
    throw err;
  }
}

/** Said when a rule finds no fix for the code and gives no reason of its own. */
export const NO_FIX = 'No automatic fix for this code: the rule documentation shows the safe form.';

/** Runs the active rules on a model; a rule that throws is reported and the others still run. */
export function runRules(model: LockModel, rules: readonly Rule[], config: LockwiseConfig, withFixes = true, suppress = true): Omit<AnalysisResult, 'parsed'> {
  const findings: Finding[] = [];
  const ruleFailures: AnalysisResult['ruleFailures'] = [];
  for (const rule of rules) {
    const severity = severityFor(rule, config) as Severity;
    try {
      rule.check({
        model,
        server: config.server ?? 'redis',
        report: (r: Report) => {
          const finding: Finding = { rule: rule.id, severity, message: r.message, span: r.span, related: r.related ?? [], fixes: [] };
          const fixes = withFixes ? (r.fix?.() ?? NO_FIX) : undefined;
          if (typeof fixes === 'string') finding.noFix = fixes;
          else if (fixes) finding.fixes = (Array.isArray(fixes) ? fixes : [fixes]).map((f) => ({ ...f, unattended: !!rule.unattendedFixes && f.unattended !== false }));
          findings.push(finding);
        },
      });
    } catch (err) {
      ruleFailures.push({ rule: rule.id, message: err instanceof Error ? err.message : String(err) });
    }
  }
  findings.sort((a, b) => a.span.start - b.span.start || a.rule.localeCompare(b.rule));
  return { findings: suppress ? applySuppressions(model.text, findings) : findings, ruleFailures };
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
  return { ...withModel({ fileName, text }, config, (model) => runRules(model, active, config, options.fixes)), parsed: true };
}

/** Analyses an already parsed file (the caller decides with mightHoldLockCode whether to parse). */
export function analyzeSource(sourceFile: ts.SourceFile, options: AnalyzeOptions = {}): Omit<AnalysisResult, 'parsed'> {
  const config = options.config ?? emptyConfig();
  const active = activeRules(config, options.only);
  if (active.length === 0) return { findings: [], ruleFailures: [] };
  return withModel(sourceFile, config, (model) => runRules(model, active, config, options.fixes, options.suppress), options.project);
}

export { mightHoldLockCode };
