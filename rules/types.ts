// Shared vocabulary of the analyzer: what a rule reports and how fixes are expressed.
// Everything here is plain data (offsets into the file's text), so the CLI and the language
// server can each turn it into their own positions without knowing about ts-morph.

export type Severity = 'error' | 'warning' | 'info';
export type SeveritySetting = Severity | 'off';

/** Half-open range of UTF-16 offsets into the analysed text (as TypeScript counts them). */
export interface Span {
  start: number;
  end: number;
}

export interface TextEdit extends Span {
  newText: string;
}

export interface Fix {
  title: string;
  /** Edits to the analysed file only, non-overlapping. */
  edits: TextEdit[];
  /** The safe fix a user should normally take. */
  isPreferred?: boolean;
  /**
   * Safe to apply with no one reading it (fix-all on save, `lockwise check --fix`): the code keeps
   * doing what it meant to, only the flaw goes. Set from the rule's `unattendedFixes`.
   */
  unattended?: boolean;
}

export interface RelatedLocation {
  /** Offsets into the analysed file, or into `file` when that is set. */
  span: Span;
  message: string;
  /** Another file of the project (absolute path), with the 0-based position of `span` in it. */
  file?: string;
  range?: { line: number; character: number; endLine: number; endCharacter: number };
}

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  span: Span;
  related: RelatedLocation[];
  fixes: Fix[];
  /** Recorded in the project's baseline (set by the language server, which shows it as a hint). */
  baselined?: boolean;
  /** Why there is no fix, when fixes were computed and none fits this code (a disabled code action shows it). */
  noFix?: string;
}

/** A rule that threw on a file: reported, and the other rules still run. */
export interface RuleFailure {
  rule: string;
  message: string;
}

export interface AnalysisResult {
  findings: Finding[];
  ruleFailures: RuleFailure[];
  /** False when the cheap text pre-check showed the file cannot hold lock code (it was not parsed). */
  parsed: boolean;
}
