// Live diagnostics for open documents. A change that comes after a quiet spell (no change and no
// analysis of the document for DEBOUNCE_MS) is analysed on the next turn of the event loop, so a
// single edit shows up at once; changes that come faster are debounced, and the last one is
// analysed DEBOUNCE_MS after it. Changes that queued up while an analysis blocked the loop count
// as fast ones: they are taken together, not one analysis each. Each analysis reads the document's
// current text synchronously, so the last published diagnostics always belong to the last text.
import type { Diagnostic, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LockRegion } from '../../rules/regions';
import type { LockSiteInfo } from '../../rules/sites';
import type { Analyzer, FileAnalysis, FileScope, Log } from './analysis';
import { toDiagnostics } from './diagnostics';
import { uriToPath } from './uris';

export const DEBOUNCE_MS = 100;

export interface DocumentResult {
  document: TextDocument;
  /** The version analysed (the document object itself is updated in place). */
  version: number;
  text: string;
  scope: FileScope;
  analysis: FileAnalysis;
  /** Computed on first use (hover, lockSites, code actions), then kept with this version. */
  sites?: LockSiteInfo[];
  regions?: LockRegion[];
}

interface Pending {
  timer?: NodeJS.Timeout;
  immediate?: NodeJS.Immediate;
}

export type Publish = (uri: string, diagnostics: Diagnostic[], version?: number) => void;

export class LiveDocuments {
  private readonly pending = new Map<string, Pending>();
  /** When the document last changed, or last finished an analysis: the later of the two. */
  private readonly lastActivity = new Map<string, number>();
  private readonly results = new Map<string, DocumentResult>();
  private readonly notedSkips = new Set<string>();

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

  /** Called on open and on every change. */
  changed(uri: string): void {
    const now = Date.now();
    const quiet = now - (this.lastActivity.get(uri) ?? 0) >= DEBOUNCE_MS;
    this.lastActivity.set(uri, now);
    const entry = this.pending.get(uri) ?? {};
    this.pending.set(uri, entry);
    if (entry.immediate) return; // an analysis is already due on this turn; it will read the new text
    if (entry.timer) clearTimeout(entry.timer);
    if (quiet && !entry.timer) entry.immediate = setImmediate(() => this.run(uri));
    else entry.timer = setTimeout(() => this.run(uri), DEBOUNCE_MS);
  }

  private run(uri: string): void {
    this.pending.delete(uri);
    this.validate(uri).catch((err: unknown) => this.log(`validating ${uri} failed: ${String(err)}`));
  }

  /** Analyses the document's current text now and publishes; resolves to the result. */
  async validate(uri: string): Promise<DocumentResult | undefined> {
    const opened = this.documents.get(uri);
    if (!opened) return undefined;
    const scope = await this.analyzer.scope(uri, opened.languageId);
    const document = this.documents.get(uri); // the settings round trip may have taken a turn
    if (!document) return undefined;
    const text = document.getText();
    const analysis = this.analyzer.analyze(scope, text);
    this.lastActivity.set(uri, Date.now());
    if (analysis.notAnalysed && !this.notedSkips.has(uri)) {
      this.notedSkips.add(uri);
      this.log(`${uri} not analysed: ${analysis.notAnalysed}`);
    }
    const result = { document, version: document.version, text, scope, analysis };
    this.results.set(uri, result);
    this.publish(uri, toDiagnostics(uri, text, analysis.findings), document.version);
    return result;
  }

  /** The analysis of the document as it is now (re-running it if a change is still pending). */
  async current(uri: string): Promise<DocumentResult | undefined> {
    const document = this.documents.get(uri);
    if (!document) return undefined;
    const cached = this.results.get(uri);
    if (cached && cached.version === document.version) return cached;
    return this.validate(uri);
  }

  /** Lock sites of the analysed version. */
  sitesOf(result: DocumentResult): LockSiteInfo[] {
    if (!result.analysis.parsed) return [];
    result.sites ??= this.analyzer.sites(result.scope, result.text);
    return result.sites;
  }

  /** Regions "Convert to withLock" can rewrite in the analysed version. */
  regionsOf(result: DocumentResult): LockRegion[] {
    if (!result.analysis.parsed) return [];
    result.regions ??= this.analyzer.regions(result.scope, result.text);
    return result.regions;
  }

  closed(uri: string): void {
    const entry = this.pending.get(uri);
    if (entry?.timer) clearTimeout(entry.timer);
    if (entry?.immediate) clearImmediate(entry.immediate);
    this.pending.delete(uri);
    this.lastActivity.delete(uri);
    this.results.delete(uri);
    this.notedSkips.delete(uri);
  }

  /** Settings or config changed: everything open is analysed again. */
  revalidateAll(): void {
    this.results.clear();
    this.notedSkips.clear();
    for (const uri of this.documents.keys()) this.changed(uri);
  }
}
