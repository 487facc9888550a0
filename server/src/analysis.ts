// The one place the server calls the analyzer. Resolving what applies to a file (settings of its
// folder, project config, ignores, size limit) is async because settings come from the client;
// the analysis itself is synchronous, so the text it reads is the text it reports on.
import { analyzeSource, mightHoldLockCode, parseSource } from '../../rules/analyze';
import type { LockwiseConfig } from '../../rules/config';
import { lockRegionsIn, type LockRegion } from '../../rules/regions';
import { skipsAsTest, skipsAsTestSuite } from '../../rules/test-files';
import { analyzeWithSites, type LockSiteInfo } from '../../rules/sites';
import type { AnalysisResult, Finding } from '../../rules/types';
import { Baselines } from './baseline';
import type { DocumentTree } from './document-tree';
import { isStackOverflow, LargeStackAnalyzer, LARGE_STACK_MB } from './large-stack';
import type { ProjectConfigs } from './project-config';
import type { ServerProject } from './project-model';
import type { HelperNames } from '../../rules/config';
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
  skip?: 'disabled' | 'ignored' | 'test';
  /** The folder's baseline file (it may not exist); undefined outside every folder. */
  baselinePath?: string;
}

export interface FileAnalysis {
  /** Without their fixes, which only code actions need (Analyzer.findingsWithFixes). */
  findings: Finding[];
  /**
   * Lock acquisitions with their key glob, TTL, token and releases (for lockSites and hovers).
   * Undefined for an open document, whose sites are computed when asked for (LiveDocuments.sitesOf).
   */
  sites?: LockSiteInfo[];
  /** False when the text cannot hold lock code (the analyzer's cheap pre-check): no sites, no regions. */
  parsed: boolean;
  /** Set when nothing was analysed: too large, or the analyzer failed on this text. */
  notAnalysed?: string;
  /** The analyzer failed (as opposed to a file skipped by a setting): the user is told on the file itself. */
  failed?: boolean;
  /** The failure was a stack overflow: analyzeWithLargeStack may still get the findings. */
  stackOverflow?: boolean;
}

export type Log = (message: string) => void;

export class Analyzer {
  private readonly baselines: Baselines;
  private readonly largeStack = new LargeStackAnalyzer();

  constructor(
    private readonly folders: WorkspaceFolders,
    private readonly settings: SettingsStore,
    private readonly configs: ProjectConfigs,
    private readonly log: Log,
    private readonly project?: ServerProject,
  ) {
    this.baselines = new Baselines(log);
  }

  /** The project-wide model for a file on disk; untitled buffers are analysed alone. */
  private projectFor(scope: FileScope, text: string, edited = false) {
    return scope.path && this.project ? this.project.providerFor(scope.path, text, scope.config, edited) : undefined;
  }

  /** The helper names a lean parse of this file must keep (its project helpers' too). */
  private helpersFor(scope: FileScope, text: string): HelperNames {
    return scope.path && this.project ? this.project.helpersFor(scope.path, text, scope.config.helpers) : scope.config.helpers;
  }

  /** Worth parsing: lock code, or a file that imports the project's lock helpers. */
  private worthParsing(scope: FileScope, text: string): boolean {
    if (mightHoldLockCode(text, scope.config.helpers)) return true;
    return !!scope.path && !!this.project && this.project.mayUseHelpers(scope.path, text);
  }

  /** What applies to the file at `uri`; the workspace scan passes the `path` it has, saving two URI parses a file. */
  async scope(uri: string, languageId = '', path = uriToPath(uri)): Promise<FileScope> {
    const folder = this.folders.folderOf(path);
    const settings = await this.settings.get(folder?.uri);
    const config = this.configs.configFor(settings, path);
    const scope: FileScope = { uri, fileName: path ?? analysisFileName(uri, languageId), path, folder, settings, config };
    if (folder) scope.baselinePath = this.baselines.pathFor(folder.path, settings);
    if (!settings.enable) scope.skip = 'disabled';
    else if (path && this.configs.isIgnored(path)) scope.skip = 'ignored';
    else if (path && skipsAsTest(path, config)) scope.skip = 'test';
    return scope;
  }

  private tooLarge(scope: FileScope, text: string): boolean {
    return text.length > scope.settings.maxFileSizeKb * 1024;
  }

  /** Pathological input (deep nesting overflowing the stack...) must not take the server down. */
  private guarded<T>(scope: FileScope, what: string, run: () => T, overflowed?: () => void): T | string {
    try {
      return run();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log(`${what} failed on ${scope.uri}: ${reason}`);
      if (isStackOverflow(err)) overflowed?.();
      return `the analyzer failed: ${reason}`;
    }
  }

  /**
   * Findings (and, for a file on disk, lock sites) of `text`, from one parse and one lock model. An
   * open document passes its kept tree, which is re-parsed incrementally and kept only while the text
   * passes the pre-check; the workspace scan passes none and keeps nothing.
   */
  analyze(scope: FileScope, text: string, tree?: DocumentTree): FileAnalysis {
    const notParsed = (notAnalysed?: string): FileAnalysis => {
      tree?.drop();
      return notAnalysed ? { findings: [], sites: [], parsed: false, notAnalysed } : { findings: [], sites: [], parsed: false };
    };
    if (scope.skip || (scope.path && skipsAsTestSuite(scope.path, text, scope.config))) return notParsed();
    if (this.tooLarge(scope, text)) return notParsed(`larger than lockwise.maxFileSizeKb (${scope.settings.maxFileSizeKb} KB)`);
    if (!this.worthParsing(scope, text)) {
      // A helper that lost its lock code must not lend its old meaning to the files that call it.
      if (scope.path && this.project?.index.has(scope.path)) this.project.index.summaryOf(scope.path, text);
      return notParsed();
    }
    const run = (): Omit<FileAnalysis, 'parsed'> & Pick<AnalysisResult, 'ruleFailures'> => {
      const helpers = this.helpersFor(scope, text);
      // An open document (it has a kept tree) is analysed on every edit.
      const project = this.projectFor(scope, text, !!tree);
      return tree
        ? tree.analyze(scope.fileName, text, helpers, { config: scope.config, project })
        : analyzeWithSites(parseSource(scope.fileName, text, helpers), scope.config, { fixes: false, project });
    };
    let stackOverflow = false;
    const result = this.guarded(
      scope,
      'analysis',
      () => {
        const before = this.helpersFor(scope, text).acquire.length;
        const first = run();
        // The first analysis of a file finds which project helpers it calls: a lean parse must keep their callers.
        return this.helpersFor(scope, text).acquire.length > before ? run() : first;
      },
      () => (stackOverflow = true),
    );
    if (typeof result === 'string') return { ...notParsed(result), failed: true, ...(stackOverflow ? { stackOverflow } : {}) };
    for (const failure of result.ruleFailures) this.log(`rule ${failure.rule} failed on ${scope.uri}: ${failure.message}`);
    return { findings: this.withBaseline(scope, text, result.findings), sites: result.sites, parsed: true };
  }

  /** Findings the folder's baseline records, marked (shown as hints) or left out, by the settings. */
  private withBaseline(scope: FileScope, text: string, findings: Finding[]): Finding[] {
    if (!scope.baselinePath || !scope.path) return findings;
    const { baselinePath, settings, path } = scope;
    const marked = this.guarded(scope, 'applying the baseline', () => this.baselines.apply(baselinePath, settings, path, text, findings));
    return typeof marked === 'string' ? findings : marked;
  }

  /** After a stack overflow: the same analysis in a worker with a large stack (the CLI does the same). */
  async analyzeWithLargeStack(scope: FileScope, text: string): Promise<FileAnalysis> {
    const outcome = await this.largeStack.analyze({ fileName: scope.fileName, text, config: scope.config });
    if ('error' in outcome) {
      this.log(`analysis with a ${LARGE_STACK_MB} MB stack failed on ${scope.uri}: ${outcome.error}`);
      return { findings: [], sites: [], parsed: false, failed: true, notAnalysed: `the analyzer failed even with a ${LARGE_STACK_MB} MB stack: ${outcome.error}` };
    }
    for (const failure of outcome.ruleFailures) this.log(`rule ${failure.rule} failed on ${scope.uri}: ${failure.message}`);
    return { findings: outcome.findings, sites: outcome.sites, parsed: true };
  }

  /** The kept tree when it is of `text`, else a fresh parse: for what is computed when asked for. */
  private treeFor(scope: FileScope, text: string, tree?: DocumentTree) {
    const helpers = this.helpersFor(scope, text);
    return tree ? tree.treeOf(scope.fileName, text, helpers) : parseSource(scope.fileName, text, helpers);
  }

  /** The lock sites of `text`. */
  sitesOf(scope: FileScope, text: string, tree?: DocumentTree): LockSiteInfo[] {
    const sites = this.guarded(scope, 'finding lock sites', () =>
      analyzeWithSites(this.treeFor(scope, text, tree), scope.config, { fixes: false, project: this.projectFor(scope, text) }).sites,
    );
    return typeof sites === 'string' ? [] : sites;
  }

  /** The findings of `text` with their fixes; undefined when they cannot be computed (too deep for this stack). */
  findingsWithFixes(scope: FileScope, text: string, tree?: DocumentTree): Finding[] | undefined {
    const findings = this.guarded(scope, 'computing fixes', () =>
      analyzeSource(this.treeFor(scope, text, tree), { config: scope.config, project: this.projectFor(scope, text) }).findings,
    );
    return typeof findings === 'string' ? undefined : this.withBaseline(scope, text, findings);
  }

  /** Acquire ... release regions "Convert to withLock" can rewrite. */
  regions(scope: FileScope, text: string, tree?: DocumentTree): LockRegion[] {
    if (scope.skip || this.tooLarge(scope, text) || !this.worthParsing(scope, text)) return [];
    const regions = this.guarded(scope, 'finding lock regions', () =>
      lockRegionsIn(this.treeFor(scope, text, tree), scope.config),
    );
    return typeof regions === 'string' ? [] : regions;
  }
}
