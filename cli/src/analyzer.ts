// Entry of dist/cli-analyzer.js, the part of `lockwise check` that loads TypeScript. Only the analysis
// worker (worker.ts) loads it, once a file passes the pre-check; esbuild.mjs also loads it once at build
// time, to write its manifest.
import { ANALYZED_EXTENSIONS, analyzeText } from '../../rules/analyze';
import { allRules } from '../../rules/index';
import { fixAll } from '../../rules/fixes/fix-all';
import type { AnalyzerManifest } from './analyzer-manifest';

export { analyzeText, fixAll };

/** Written to dist/cli-analyzer.json at build time, so check can read it without loading this bundle. */
export const manifest: AnalyzerManifest = {
  rules: allRules.map(({ id, defaultSeverity, summary }) => ({ id, defaultSeverity, summary })),
  extensions: ANALYZED_EXTENSIONS,
};
