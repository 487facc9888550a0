// The one place the server calls the analyzer. Resolving what applies to a file (settings of its
// folder, project config, ignores, size limit) is async because settings come from the client;
// the analysis itself is synchronous, so the text it reads is the text it reports on.
import { analyzeText } from '../../rules/analyze';
import type { LockwiseConfig } from '../../rules/config';
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
  /** Set when nothing was analysed: too large, or the analyzer failed on this text. */
  notAnalysed?: string;
}

export type Log = (message: string) => void;

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

  analyze(scope: FileScope, text: string): FileAnalysis {
    if (scope.skip) return { findings: [] };
    const limit = scope.settings.maxFileSizeKb * 1024;
    if (text.length > limit) {
      return { findings: [], notAnalysed: `larger than lockwise.maxFileSizeKb (${scope.settings.maxFileSizeKb} KB)` };
    }
    try {
      const result = analyzeText(scope.fileName, text, { config: scope.config });
      for (const failure of result.ruleFailures) {
        this.log(`rule ${failure.rule} failed on ${scope.uri}: ${failure.message}`);
      }
      return { findings: result.findings };
    } catch (err) {
      // Pathological input (deep nesting overflowing the stack...) must not take the server down.
      const reason = err instanceof Error ? err.message : String(err);
      this.log(`analysis failed on ${scope.uri}: ${reason}`);
      return { findings: [], notAnalysed: `the analyzer failed: ${reason}` };
    }
  }
}
