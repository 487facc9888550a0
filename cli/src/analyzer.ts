// Entry of dist/cli-analyzer.js, the part of `lockwise check` that loads TypeScript. Only the analysis
// worker (worker.ts) loads it, once a file passes the pre-check; esbuild.mjs also loads it once at build
// time, to write its manifest.
import { ANALYZED_EXTENSIONS, analyzeText } from '../../rules/analyze';
import { emptyConfig, type LockwiseConfig } from '../../rules/config';
import { allRules } from '../../rules/index';
import { overlayHost, snapshotHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';
import type { AnalysisResult } from '../../rules/types';
import { fixAll } from '../../rules/fixes/fix-all';
import type { AnalyzerManifest } from './analyzer-manifest';

export { analyzeText, fixAll };

export interface ProjectAnalyzer {
  /**
   * The file's analysis with the project's helpers. A `maybe` file (no lock code of its own) is
   * analysed only when one of its imports resolves to a module with lock helpers.
   */
  analyze(path: string, text: string, config: LockwiseConfig, maybe: boolean, fixes: boolean): AnalysisResult;
}

/** Text of the models kept for a later analysis (trees take about ten times their text). */
const SPARE_TEXT = 8 * 1024 * 1024;

/**
 * One project-wide lock model per `lockwise check` run: the files handed to it are read from memory,
 * the files they import from disk.
 */
export function createProjectAnalyzer(): ProjectAnalyzer {
  const texts = new Map<string, string>();
  const configs = new Map<string, LockwiseConfig>();
  const index = new ProjectIndex({
    host: overlayHost(texts, snapshotHost()),
    configFor: (path) => configs.get(path) ?? emptyConfig(),
    // A module summarised for an importer is analysed later in the run: its model waits for it.
    spareText: SPARE_TEXT,
  });
  return {
    analyze(path, text, config, maybe, fixes) {
      texts.set(path, text);
      configs.set(path, config);
      if (maybe && !index.importsLockHelpers(path, text)) return { findings: [], ruleFailures: [], parsed: false };
      return index.analyze(path, text, { config, fixes, summaryOnDemand: true });
    },
  };
}

/** Written to dist/cli-analyzer.json at build time, so check can read it without loading this bundle. */
export const manifest: AnalyzerManifest = {
  rules: allRules.map(({ id, defaultSeverity, summary }) => ({ id, defaultSeverity, summary })),
  extensions: ANALYZED_EXTENSIONS,
};
