// The one place the server calls the analyzer. Resolving what applies to a file (settings of its
// folder, project config, ignores, size limit) is async because settings come from the client;
// the analysis itself is synchronous, so the text it reads is the text it reports on.
import { analyzeText } from '../../rules/analyze';
import type { LockwiseConfig } from '../../rules/config';
import { findLockRegions, type LockRegion } from '../../rules/regions';
import { findLockSites, type LockSiteInfo } from '../../rules/sites';
import type { Finding } from '../../rules/types';
import type { ProjectConfigs } from './project-config';
import type { ServerSettings, SettingsStore } from './settings';
import { analysisFileName, uriToPath } from './uris';
import type { Folder, WorkspaceFolders } from './workspace-folders';

export interface FileScope {
  uri: string;
  fileName: string;
  /** File system path; undefined for untitled buffers. */
  path?: string;
  folder?: Folder;
  settings: ServerSettings;
  config: LockwiseConfig;
  /** Why the file is not analysed at all; undefined when it is. */
  skip?: 'disabled' | 'ignored';
}

export interface FileAnalysis {
  findings: Finding[];
  /** False when the text cannot hold lock code (the analyzer's cheap pre-check): no sites, no regions. */
  parsed: boolean;
  /** Set when nothing was analysed: too large, or the analyzer failed on this text. */
  notAnalysed?: string;
}

export type Log = (message: string) => void;

// Every acquisition the engine recognises needs one of these in the text: an NX option or command
// (SET NX, SETNX, a Lua script's SET ... NX), acquire/tryAcquire, redlock's using/lock, withLock.
// Files the analysis parsed for other reasons (most mention "lock" or "expire") are not parsed a
// second time for sites; on the bench corpus that skips three parsed files in four.
const MIGHT_ACQUIRE = /nx|acquire|\.using\s*\(|\.lock\s*\(|withLock/i;

function mightAcquire(text: string, config: LockwiseConfig): boolean {
  return MIGHT_ACQUIRE.test(text) || config.helpers.acquire.some((name) => text.includes(name));
}

export class Analyzer {
  constructor(
    private readonly folders: WorkspaceFolders,
    private readonly settings: SettingsStore,
    private readonly configs: ProjectConfigs,
    private readonly log: Log,
  ) {}

  async scope(uri: string, languageId = ''): Promise<FileScope> {
    const path = uriToPath(uri);
    const folder = this.folders.folderOf(path);
    const settings = await this.settings.get(folder?.uri);
    const config = this.configs.configFor(settings, path);
    const scope: FileScope = { uri, fileName: analysisFileName(uri, languageId), path, folder, settings, config };
    if (!settings.enable) scope.skip = 'disabled';
    else if (path && this.configs.isIgnored(path)) scope.skip = 'ignored';
    return scope;
  }

  private tooLarge(scope: FileScope, text: string): boolean {
    return text.length > scope.settings.maxFileSizeKb * 1024;
  }

  /** Pathological input (deep nesting overflowing the stack...) must not take the server down. */
  private guarded<T>(scope: FileScope, what: string, run: () => T): T | string {
    try {
      return run();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log(`${what} failed on ${scope.uri}: ${reason}`);
      return `the analyzer failed: ${reason}`;
    }
  }

  analyze(scope: FileScope, text: string): FileAnalysis {
    if (scope.skip) return { findings: [], parsed: false };
    if (this.tooLarge(scope, text)) {
      return { findings: [], parsed: false, notAnalysed: `larger than lockwise.maxFileSizeKb (${scope.settings.maxFileSizeKb} KB)` };
    }
    const result = this.guarded(scope, 'analysis', () => analyzeText(scope.fileName, text, { config: scope.config }));
    if (typeof result === 'string') return { findings: [], parsed: false, notAnalysed: result };
    for (const failure of result.ruleFailures) this.log(`rule ${failure.rule} failed on ${scope.uri}: ${failure.message}`);
    return { findings: result.findings, parsed: result.parsed };
  }

  /** Lock acquisitions with their key glob, TTL, token and releases (for lockSites and hovers). */
  sites(scope: FileScope, text: string): LockSiteInfo[] {
    if (scope.skip || this.tooLarge(scope, text) || !mightAcquire(text, scope.config)) return [];
    const sites = this.guarded(scope, 'finding lock sites', () => findLockSites(scope.fileName, text, scope.config));
    return typeof sites === 'string' ? [] : sites;
  }

  /** Acquire ... release regions "Convert to withLock" can rewrite. */
  regions(scope: FileScope, text: string): LockRegion[] {
    if (scope.skip || this.tooLarge(scope, text) || !mightAcquire(text, scope.config)) return [];
    const regions = this.guarded(scope, 'finding lock regions', () => findLockRegions(scope.fileName, text, scope.config));
    return typeof regions === 'string' ? [] : regions;
  }
}
