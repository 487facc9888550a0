// The one place the ESLint plugin calls the analyzer. ESLint asks each rule object about the same
// file; the analysis runs once per file (keyed by file name and text) and every rule reads its own
// findings from it. Files are analysed with the project-wide lock model: one project index per ESLint
// process, holding the texts ESLint lints and reading the modules they import from disk, so a call
// to a lock helper in another file takes its meaning even when ESLint is run on one file.
import { dirname } from 'node:path';
import { mightHoldLockCode, scriptKindOf } from '../rules/analyze';
import { fileSystemHost, overlayHost } from '../rules/project/host';
import { mayCallLockHelpers } from '../rules/project/pre-checks';
import { ProjectIndex } from '../rules/project/project-index';
import { hasOwnConfig, loadConfig, type LockwiseConfig } from '../rules/config';
import { ruleIds } from '../rules/index';
import type { Finding } from '../rules/types';

export interface Analysed {
  text: string;
  findings: readonly Finding[];
  /** Why the file could not be analysed (absurdly deep nesting), or a rule that failed on it. */
  failure?: string;
  ruleFailures: readonly { rule: string; message: string }[];
  /** Set once a rule object has reported `failure`, so it is reported once per file, not per rule. */
  failureReported?: boolean;
}

// ESLint lints a file's rules one after the other, so one entry per file suffices; the cap bounds a
// long-running ESLint (an editor integration) that sees thousands of files.
const byFile = new Map<string, Analysed>();
const MAX_FILES = 256;
const configByDir = new Map<string, LockwiseConfig>();

/**
 * The project's lock helpers come from its lockwise.config.json (or package.json "lockwise" key), as
 * for `lockwise check`; severities and on/off come from the ESLint config, so every rule runs here.
 * A broken config throws its ConfigError, naming the file and the problem.
 */
function configFor(fileName: string): LockwiseConfig {
  return folderConfig(dirname(fileName));
}

/** A folder without a config of its own shares its parent's: no walk up to the root per folder. */
function folderConfig(dir: string): LockwiseConfig {
  let config = configByDir.get(dir);
  if (!config) {
    const parent = dirname(dir);
    config = parent === dir || hasOwnConfig(dir) ? { ...loadConfig(dir, ruleIds).config, rules: {} } : folderConfig(parent);
    configByDir.set(dir, config);
  }
  return config;
}

const linted = new Map<string, string>();
const project = new ProjectIndex({ host: overlayHost(linted, fileSystemHost), configFor });


// Declaration files hold no code that runs; `lockwise check` skips them too.
const DECLARATION = /\.d\.[cm]?ts$/i;

/**
 * Every Lockwise finding of the file, with fixes; none for files the analyzer does not read (.vue,
 * .d.ts). An analysis that fails (the analyzer's stack on absurd nesting) is returned as `failure`, so
 * one file cannot stop the whole ESLint run; a broken lockwise.config.json still throws.
 */
export function analyzeForEslint(fileName: string, text: string): Analysed {
  const hit = byFile.get(fileName);
  if (hit && hit.text === text) return hit;
  let entry: Analysed = { text, findings: [], ruleFailures: [] };
  if (scriptKindOf(fileName) !== undefined && !DECLARATION.test(fileName)) {
    const config = configFor(fileName);
    try {
      // A file that changed since the project last read it: what was built on it is stale.
      if (linted.get(fileName) !== text) project.invalidate(fileName);
      linted.set(fileName, text);
      if (mightHoldLockCode(text, config.helpers) || (mayCallLockHelpers(text) && project.importsLockHelpers(fileName, text))) {
        const result = project.analyze(fileName, text, { config });
        entry = { text, findings: result.findings, ruleFailures: result.ruleFailures };
      }
    } catch (err) {
      entry.failure = err instanceof Error ? err.message : String(err);
    }
  }
  if (byFile.size >= MAX_FILES) byFile.clear();
  byFile.set(fileName, entry);
  return entry;
}
