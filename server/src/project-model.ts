// The server's project-wide lock model: one ProjectIndex over the open documents' texts and the file
// system, filled by the workspace scan and by every analysis. When a file's summary changes (a helper
// edited, a file deleted or renamed), the files whose analysis used it are analysed again, so no
// cross-file finding goes stale.
import type { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ModelProvider } from '../../rules/analyze';
import { emptyConfig, type HelperNames, type LockwiseConfig } from '../../rules/config';
import { fileSystemHost, overlayHost } from '../../rules/project/host';
import { leanParseKeeps, mayCallLockHelpers } from '../../rules/project/pre-checks';
import { ProjectIndex } from '../../rules/project/project-index';
import { uriToPath } from './uris';

export class ServerProject {
  readonly index: ProjectIndex;
  private readonly configs = new Map<string, LockwiseConfig>();

  constructor(
    documents: TextDocuments<TextDocument>,
    /** Files whose meaning changed because one they use changed: analyse and publish them again. */
    onAffected: (paths: ReadonlySet<string>) => void,
  ) {
    const open = {
      get(path: string): string | undefined {
        for (const document of documents.all()) if (uriToPath(document.uri) === path) return document.getText();
        return undefined;
      },
    };
    this.index = new ProjectIndex({
      host: overlayHost(open, fileSystemHost),
      configFor: (path) => this.configs.get(path) ?? emptyConfig(),
      onMeaningChanged: (_path, affected) => onAffected(affected),
    });
  }

  /**
   * The model provider for one file (its config is kept for when another file summarises it); an
   * edited open document is summarised only once another file depends on it (ProjectIndex.modelOf).
   */
  providerFor(path: string, text: string, config: LockwiseConfig, edited = false): ModelProvider {
    this.configs.set(path, config);
    return {
      modelOf: (sourceFile, fileConfig) => this.index.modelOf(path, text, sourceFile, fileConfig, edited),
      partModelOf: (part, fileConfig) => this.index.partModelOf(path, part, fileConfig),
    };
  }

  /** The helpers a lean parse of the file must keep: the config's, the project helpers it calls, wrapped methods. */
  helpersFor(path: string, text: string, helpers: HelperNames): HelperNames {
    const names = [...this.index.namesOf(path)];
    const keeps = leanParseKeeps(text, helpers);
    return names.length === 0 ? keeps : { ...keeps, acquire: [...keeps.acquire, ...names] };
  }

  /** Does a file with no lock code of its own import a project module with lock helpers? */
  mayUseHelpers(path: string, text: string): boolean {
    return mayCallLockHelpers(text) && this.index.importsLockHelpers(path, text);
  }

  /** A tsconfig.json or package.json changed: specifiers are resolved again (the rescan re-analyses every file). */
  resolutionChanged(): void {
    this.index.resetResolution();
  }

  /** A file was created, deleted or renamed: module specifiers may name other files now. */
  filesMoved(path: string): ReadonlySet<string> {
    const affected = this.index.invalidate(path);
    for (const user of this.index.resetResolution()) affected.add(user);
    affected.delete(path);
    return affected;
  }
}
