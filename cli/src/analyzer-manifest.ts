// What `lockwise check` knows about the analyzer before loading it (or without loading it at all, when
// no file passes the pre-check): the rules, for --rule, configs, --help and SARIF, and the file
// extensions it analyses. esbuild.mjs writes it next to the analyzer bundle, from that bundle's
// `manifest`, after each build.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rule } from '../../rules/rule';

export type RuleInfo = Pick<Rule, 'id' | 'defaultSeverity' | 'summary'>;

export interface AnalyzerManifest {
  rules: RuleInfo[];
  extensions: string[];
}

let manifest: AnalyzerManifest | undefined;

/** The manifest of dist/cli-analyzer.js, read from dist/cli-analyzer.json (both sit next to this bundle). */
export function analyzerManifest(): AnalyzerManifest {
  manifest ??= JSON.parse(readFileSync(join(__dirname, 'cli-analyzer.json'), 'utf8')) as AnalyzerManifest;
  return manifest;
}
