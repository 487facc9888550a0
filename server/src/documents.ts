// Live diagnostics for open documents, with no fixed wait. A change is analysed as soon as the event
// loop has had a turn without another change to the same document: the connection handles one queued
// message per turn, so changes that piled up while an analysis blocked the loop are all taken in
// before the next analysis, which then reads the latest text. An isolated edit is analysed at once;
// a burst costs about one analysis per analysis time, never one per change. Each analysis reads the
// document's current text synchronously, with the document's kept tree (see document-tree.ts).
import type { Diagnostic, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LockRegion } from '../../rules/regions';
import type { LockSiteInfo } from '../../rules/sites';
import type { Finding } from '../../rules/types';
import type { Analyzer, FileAnalysis, FileScope, Log } from './analysis';
import { analysisDiagnostics } from './diagnostics';
import { DocumentTree } from './document-tree';
import { collectIfGrown, GROWTH_BYTES } from './memory';
import { uriToPath } from './uris';

export interface DocumentResult {
  document: TextDocument;
  /** The version analysed (the document object itself is updated in place). */
  version: number;
  text: string;
  scope: FileScope;
  analysis: FileAnalysis;
  /** LiveDocuments.epoch when its settings were read: a result from before a settings change is stale. */
  epoch: number;
  /** Computed on first use (code actions, hovers, lockSites), then kept with this version. */
  regions?: LockRegion[];
  fixed?: Finding[];
  sites?: LockSiteInfo[];
}

/** What the server keeps per open document between analyses. */
interface OpenDocument {
  tree: DocumentTree;
  /** Counts changes, so the scheduler can tell whether a loop turn brought one. */
  changes: number;
  /** The pending turn of the scheduler, if an analysis is due. */
  due?: NodeJS.Immediate;
  result?: DocumentResult;
  /** The latest version whose diagnostics were published: an older one is never published after it. */
  published: number;
  /** What was published for it: the same diagnostics again (a settings change) are not re-sent. */
  publishedDiagnostics?: Diagnostic[];
  notedSkip: boolean;
}

/** Returns, where the connection tells, when the diagnostics have been written out. */
export type Publish = (uri: string, diagnostics: Diagnostic[], version?: number) => Promise<unknown> | void;

export class LiveDocuments {
  private readonly open = new Map<string, OpenDocument>();
  /** Bumped when settings or configs change. */
  private epoch = 0;
  private collecting = false;

  constructor(
    readonly documents: TextDocuments<TextDocument>,
    private readonly analyzer: Analyzer,
    private readonly publish: Publish,
    private readonly log: Log,
  ) {}

  /** The URI of the open document for a file path, if the editor has it open. */
  openUri(path: string): string | undefined {
    return this.documents.keys().find((uri) => uriToPath(uri) === path);
  }

  /** The open document of the file at `path` (its text has the unsaved edits). */
  openDocument(path: string): TextDocument | undefined {
    const uri = this.openUri(path);
    return uri === undefined ? undefined : this.documents.get(uri);
  }

  private stateOf(uri: string): OpenDocument {
    let state = this.open.get(uri);
    if (!state) {
      state = { tree: new DocumentTree(), changes: 0, published: 0, notedSkip: false };
      this.open.set(uri, state);
    }
    return state;
  }

  /** Called on open and on every change; `meaningChanged` when a project helper it uses changed. */
  changed(uri: string, meaningChanged = false): void {
    const state = this.stateOf(uri);
    if (meaningChanged) {
      // The same version has a new analysis, not the kept one.
      state.result = undefined;
      state.tree.analysis.forget();
    }
    state.changes++;
    if (state.due) return; // the pending turn will see this change and wait one more
    // The first turn runs before the connection takes its next queued message, so it cannot tell
    // whether more changes are waiting: it only records the count, the following turns compare it.
    let seen = -1;
    const turn = () => {
      if (seen !== state.changes) {
        seen = state.changes;
        state.due = setImmediate(turn);
        return;
      }
      state.due = undefined;
      this.validate(uri).catch((err: unknown) => this.log(`validating ${uri} failed: ${String(err)}`));
    };
    state.due = setImmediate(turn);
  }

  /** Analyses the document's current text now (unless that version is analysed already) and publishes. */
  async validate(uri: string): Promise<DocumentResult | undefined> {
    const opened = this.documents.get(uri);
    if (!opened) return undefined;
    const epoch = this.epoch;
    const scope = await this.analyzer.scope(uri, opened.languageId);
    const document = this.documents.get(uri); // the settings round trip may have taken a turn
    if (!document) return undefined;
    const state = this.stateOf(uri);
    // Another validation may have analysed this version while this one waited for the settings.
    const done = this.upToDate(state, document);
    if (done) return done;
    const text = document.getText();
    const version = document.version;
    let analysis = this.analyzer.analyze(scope, text, state.tree);
    // Too deep for this thread's stack: a worker with a large stack gets the same findings as the CLI.
    if (analysis.stackOverflow) analysis = await this.analyzer.analyzeWithLargeStack(scope, text);
    if (analysis.notAnalysed && !state.notedSkip) {
      state.notedSkip = true;
      this.log(`${uri} not analysed: ${analysis.notAnalysed}`);
    }
    const result: DocumentResult = { document, version, text, scope, analysis, epoch };
    if (this.open.get(uri) !== state) return result; // closed while the worker analysed it
    if (!state.result || version >= state.result.version) state.result = result;
    let sent: Promise<unknown> | void = undefined;
    if (result.version >= state.published) {
      const diagnostics = analysisDiagnostics(uri, text, analysis);
      // Re-sending unchanged diagnostics makes the editor re-ask for code actions and cancel the
      // ones the user asked for (Ctrl+. right after opening answered "no code actions"). Compared only
      // for the same version: a new version is always published, and serialising 700 diagnostics on
      // every keystroke cost milliseconds.
      const same = result.version === state.published && !!state.publishedDiagnostics && JSON.stringify(diagnostics) === JSON.stringify(state.publishedDiagnostics);
      if (!same) sent = this.publish(uri, diagnostics, result.version);
      state.published = result.version;
      state.publishedDiagnostics = diagnostics;
    }
    this.collectSoon(sent);
    return result;
  }

  /**
   * Bounds the server's memory while editing (memory.ts): once the diagnostics are written out (700 of
   * them are 500 KB, more than a pipe holds: a collection before the rest is written holds them up by
   * its whole length), and only if the heap grew past the allowance since the last collection; twice
   * that while another change is already waiting to be analysed, so that its diagnostics are not held up.
   */
  private collectSoon(sent: Promise<unknown> | void): void {
    if (this.collecting) return;
    this.collecting = true;
    const collect = () =>
      setImmediate(() => {
        this.collecting = false;
        const busy = [...this.open.values()].some((state) => state.due !== undefined);
        collectIfGrown(busy ? 2 * GROWTH_BYTES : GROWTH_BYTES);
      });
    void Promise.resolve(sent).then(collect, collect);
  }

  /** The analysis of the document as it is now (running it now if a change is still pending). */
  async current(uri: string): Promise<DocumentResult | undefined> {
    const document = this.documents.get(uri);
    if (!document) return undefined;
    return this.upToDate(this.stateOf(uri), document) ?? this.validate(uri);
  }

  private upToDate(state: OpenDocument, document: TextDocument): DocumentResult | undefined {
    const result = state.result;
    return result && result.version === document.version && result.epoch === this.epoch ? result : undefined;
  }

  /** The lock sites of the analysed version. */
  sitesOf(result: DocumentResult): LockSiteInfo[] {
    if (result.analysis.sites) return result.analysis.sites;
    result.sites ??= result.analysis.parsed ? this.analyzer.sitesOf(result.scope, result.text, this.open.get(result.document.uri)?.tree) : [];
    return result.sites;
  }

  /** The analysed version's findings with their fixes. */
  findingsWithFixes(result: DocumentResult): Finding[] {
    if (!result.analysis.parsed || result.analysis.findings.length === 0) return result.analysis.findings;
    // Where fixes cannot be computed (a file analysed with the large stack), the findings still get
    // the actions that need none ("Disable <rule> for this line").
    result.fixed ??= this.analyzer.findingsWithFixes(result.scope, result.text, this.open.get(result.document.uri)?.tree) ?? result.analysis.findings;
    return result.fixed;
  }

  /** Regions "Convert to withLock" can rewrite in the analysed version. */
  regionsOf(result: DocumentResult): LockRegion[] {
    if (!result.analysis.parsed) return [];
    result.regions ??= this.analyzer.regions(result.scope, result.text, this.open.get(result.document.uri)?.tree);
    return result.regions;
  }

  closed(uri: string): void {
    const state = this.open.get(uri);
    if (state?.due) clearImmediate(state.due);
    this.open.delete(uri);
  }

  /** Settings or config changed: everything open is analysed again. */
  revalidateAll(): void {
    this.epoch++;
    for (const uri of this.documents.keys()) {
      const state = this.stateOf(uri);
      state.notedSkip = false;
      state.tree.analysis.forget();
      this.changed(uri);
    }
  }
}
