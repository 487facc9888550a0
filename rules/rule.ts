// The contract between the engine and one rule: a rule reads the file's lock model and reports.
import type { ServerKind } from './config';
import type { LockModel } from './engine/model';
import type { Fix, RelatedLocation, Severity, Span } from './types';

export interface Report {
  span: Span;
  message: string;
  related?: RelatedLocation[];
  /**
   * The mechanical fixes, computed only when the caller wants fixes (an editor's diagnostics do not).
   * The preferred fix first. A string says why no fix fits this code.
   */
  fix?: () => Fix | Fix[] | string | undefined;
}

export interface RuleContext {
  model: LockModel;
  /** The config's "server": which native commands fixes may write. */
  server: ServerKind;
  report(report: Report): void;
}

export interface Rule {
  /** Kebab-case id, identical to the rule's file name and doc name. */
  id: string;
  defaultSeverity: Severity;
  /** One line for the README table, SARIF and hovers. */
  summary: string;
  /**
   * The rule's fixes may be applied unattended (fix-all on save, `lockwise check --fix`): they remove
   * the flaw without changing what the lock does. A fix can still opt out with `unattended: false`.
   */
  unattendedFixes?: boolean;
  check(context: RuleContext): void;
}

/** Where a rule's documentation lives; used by diagnostics (codeDescription) and SARIF (helpUri). */
export const DOCS_BASE = 'https://github.com/lockwise/lockwise/blob/main/rules/';

export function ruleDocUrl(id: string): string {
  return `${DOCS_BASE}${id}.md`;
}
