// Multi-file projects in memory: every file analysed with the project-wide lock model.
import assert from 'node:assert/strict';
import { emptyConfig, type LockwiseConfig } from '../../rules/config';
import { memoryHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';
import type { Finding } from '../../rules/types';

export const ROOT = '/project';

export interface ProjectFinding extends Finding {
  file: string;
}

/**
 * Findings of every analysed file, paths relative to the project root. Each project is analysed twice,
 * summarising every file as it is analysed and summarising only on demand (`lockwise check`'s way):
 * both must find the same.
 */
export function analyzeProject(files: Record<string, string>, config: Partial<LockwiseConfig> = {}): ProjectFinding[] {
  const eager = analyzeWith(files, config, false);
  assert.deepEqual(analyzeWith(files, config, true), eager, 'summarising on demand must not change what is found');
  return eager;
}

function analyzeWith(files: Record<string, string>, config: Partial<LockwiseConfig>, summaryOnDemand: boolean): ProjectFinding[] {
  const absolute = Object.fromEntries(Object.entries(files).map(([name, text]) => [`${ROOT}/${name}`, text]));
  const full = { ...emptyConfig(), ...config };
  const index = new ProjectIndex({ host: memoryHost(absolute), configFor: () => full });
  const found: ProjectFinding[] = [];
  for (const [path, text] of Object.entries(absolute)) {
    if (!/\.[cm]?[jt]sx?$/.test(path)) continue;
    const result = index.analyze(path, text, { config: full, summaryOnDemand });
    assert.deepEqual(result.ruleFailures, [], `rules must not throw on ${path}`);
    for (const f of result.findings) found.push({ ...f, file: path.slice(ROOT.length + 1) });
  }
  return found;
}

/** `file: rule` of each finding, sorted: what most tests compare. */
export function findingList(findings: ProjectFinding[]): string[] {
  return findings.map((f) => `${f.file}: ${f.rule}`).sort();
}
