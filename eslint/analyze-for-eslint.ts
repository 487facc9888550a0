// The one place the ESLint plugin calls the analyzer. ESLint asks each of the eleven rule objects about
// the same file; the analysis runs once per file (keyed by file name and text) and every rule reads its
// own findings from it. A single-file analysis today: switching this function to the project-wide
// (cross-file) analysis changes nothing else in the plugin.
import { dirname } from 'node:path';
import { analyzeText, scriptKindOf } from '../rules/analyze';
import { loadConfig, type LockwiseConfig } from '../rules/config';
import { ruleIds } from '../rules/index';
import type { Finding } from '../rules/types';

interface Analysed {
  text: string;
  findings: Finding[];
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
  const dir = dirname(fileName);
  let config = configByDir.get(dir);
  if (!config) {
    const loaded = loadConfig(dir, ruleIds).config;
    config = { ...loaded, rules: {} };
    configByDir.set(dir, config);
  }
  return config;
}

// Declaration files hold no code that runs; `lockwise check` skips them too.
const DECLARATION = /\.d\.[cm]?ts$/i;

/** Every Lockwise finding of the file, with fixes; [] for files the analyzer does not read (.vue, .d.ts). */
export function analyzeForEslint(fileName: string, text: string): readonly Finding[] {
  const hit = byFile.get(fileName);
  if (hit && hit.text === text) return hit.findings;
  const analysed = scriptKindOf(fileName) !== undefined && !DECLARATION.test(fileName);
  const findings = analysed ? analyzeText(fileName, text, { config: configFor(fileName) }).findings : [];
  if (byFile.size >= MAX_FILES) byFile.clear();
  byFile.set(fileName, { text, findings });
  return findings;
}
