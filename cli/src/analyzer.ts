// Entry of dist/cli-analyzer.js: the part of `lockwise check` that loads TypeScript. The check bundle
// requires it when the first file passes the pre-check; in the large-stack worker it is the worker's script.
import { ANALYZED_EXTENSIONS, analyzeText } from '../../rules/analyze';
import { allRules } from '../../rules/index';
import type { AnalyzerManifest } from './analyzer-manifest';
import { analyzeWithLargeStack, isStackOverflow, serveLargeStackJobs } from './large-stack';

export { analyzeText, analyzeWithLargeStack, isStackOverflow };

/** Written to dist/cli-analyzer.json at build time, so check can read it without loading this bundle. */
export const manifest: AnalyzerManifest = {
  rules: allRules.map(({ id, defaultSeverity, summary }) => ({ id, defaultSeverity, summary })),
  extensions: ANALYZED_EXTENSIONS,
};

serveLargeStackJobs();
