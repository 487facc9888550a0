// The background scan of the workspace folders: on start, after config changes, on request, and
// file by file on watched-file changes. It reads each file, analyses it and keeps only plain data
// (how many findings are showing, the file's lock sites for lockwise/lockSites), never an AST.
// Files open in the editor belong to the live documents; the scan leaves their diagnostics alone and
// analyses their editor text, not the disk's (see analyzeLoaded).
// Files are read and analysed one at a time, each in its own event-loop turn, so that editor messages
// (an edit, a hover, a new scan that cancels this one) are handled between two files.
import { sep } from 'node:path';
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { Analyzer, FileScope, Log } from './analysis';
import { analysisDiagnostics } from './diagnostics';
import type { LiveDocuments, Publish } from './documents';
import { isGitIgnored, walkSourceFiles } from './file-walker';
import { toLockSites } from './lock-sites';
import { collectIfGrown, GROWTH_BYTES } from './memory';
import type { CheckWorkspaceResult, LockSite, ScanProgress } from './protocol';
import { diskReader, type ScanReader } from './scan-reader';
import { pathToUri } from './uris';
import type { WorkspaceFolders } from './workspace-folders';

/**
 * Heap growth allowed between two collections after the scan's analyses: half the editing allowance. On the
 * bench corpus the server's peak RSS is 194 MB with it against 201 MB with GROWTH_BYTES, for no
 * main-thread time that the bench can tell apart (the collections are of a heap with little live in it).
 */
const SCAN_GROWTH_BYTES = GROWTH_BYTES / 2;

/** Resolves after the event loop has had its turn (I/O, incoming messages). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface ScannedFile {
  findings: number;
  sites: LockSite[];
}

/** A file read for its analysis: no text when it is not to be analysed (skipped, too large, unreadable). */
interface LoadedFile {
  path: string;
  scope?: FileScope;
  text?: string;
}

export class WorkspaceScan {
  private readonly files = new Map<string, ScannedFile>(); // by path
  private generation = 0;
  private running: Promise<CheckWorkspaceResult> | undefined;
  /** A scan has run to the end: lockSites answers are complete from then on. */
  firstScanDone = false;
  /** Told how far a scan is, for clients that show it (the VS Code status item). */
  onProgress: (progress: ScanProgress) => void = () => undefined;

  constructor(
    private readonly folders: WorkspaceFolders,
    private readonly analyzer: Analyzer,
    private readonly live: Pick<LiveDocuments, 'openUri' | 'openDocument'>,
    private readonly publish: Publish,
    private readonly progress: () => Promise<WorkDoneProgressServerReporter>,
    private readonly log: Log,
    private readonly reader: ScanReader = diskReader,
  ) {}

  /** Scans every folder again, cancelling a scan that is still running. */
  scanAll(): Promise<CheckWorkspaceResult> {
    const generation = ++this.generation;
    const run = this.scan(generation).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async scan(generation: number): Promise<CheckWorkspaceResult> {
    const started = Date.now();
    const reporter = await this.progress();
    const cancelled = () => generation !== this.generation || reporter.token.isCancellationRequested;
    reporter.begin('Lockwise: checking the workspace', 0, 'listing files', true);
    this.onProgress({ done: 0, total: 0, finished: false });
    const result: CheckWorkspaceResult = { files: 0, findings: 0, notAnalysed: 0, durationMs: 0, cancelled: false };
    try {
      const paths: string[] = [];
      for (const folder of this.folders.all()) {
        for await (const path of walkSourceFiles(folder.path, cancelled)) {
          // A nested workspace folder is scanned as itself, with its own settings.
          if (this.folders.folderOf(path) === folder) paths.push(path);
        }
      }
      const seen = new Set<string>();
      let i = 0;
      for (const path of paths) {
        await nextTurn();
        if (cancelled()) break;
        seen.add(path);
        const findings = await this.analyzeLoaded(await this.load(path));
        result.files++;
        if (findings === undefined) result.notAnalysed++;
        else result.findings += findings;
        if (i % 25 === 0) {
          reporter.report(Math.floor((100 * i) / paths.length), `${i}/${paths.length} files`);
          this.onProgress({ done: i, total: paths.length, finished: false });
        }
        i++;
      }
      result.cancelled = cancelled();
      if (!result.cancelled) {
        for (const path of [...this.files.keys()]) if (!seen.has(path)) this.removeFile(path);
        this.firstScanDone = true;
      }
    } finally {
      reporter.done();
      this.onProgress({ done: result.files, total: result.files, finished: true });
    }
    result.durationMs = Date.now() - started;
    this.log(
      `workspace ${result.cancelled ? 'scan cancelled' : 'scanned'}: ${result.files} files, ${result.findings} findings, ${result.durationMs} ms`,
    );
    return result;
  }

  /** Analyses one file from disk (see analyzeLoaded). */
  private async analyzePath(path: string, forcePublish = false): Promise<number | undefined> {
    return this.analyzeLoaded(await this.load(path), forcePublish);
  }

  /** The file's scope and, when it is to be analysed, its text. Never rejects: a failure is logged. */
  private async load(path: string): Promise<LoadedFile> {
    try {
      const scope = await this.analyzer.scope(pathToUri(path), '', path);
      if (scope.skip) return { path, scope };
      return { path, scope, text: this.reader.read(path, scope.settings.maxFileSizeKb * 1024) };
    } catch (err) {
      this.log(`could not scan ${path}: ${String(err)}`);
      return { path };
    }
  }

  /**
   * Analyses a loaded file; the number of findings, or undefined when it was not analysed.
   * Diagnostics are published when there are some or were some, or always with `forcePublish`.
   */
  private async analyzeLoaded({ path, scope, text: read }: LoadedFile, forcePublish = false): Promise<number | undefined> {
    // An open file means what the editor holds: a summary of its disk text would go into the project
    // index and hand its callers a helper the user has already edited (unsaved) away.
    const open = this.live.openDocument(path);
    const text = read === undefined ? undefined : (open?.getText() ?? read);
    if (!scope || text === undefined) {
      this.removeFile(path);
      return undefined;
    }
    const { uri } = scope;
    try {
      let analysis = this.analyzer.analyze(scope, text);
      let shownInEditor = !!open;
      if (analysis.stackOverflow) {
        analysis = await this.analyzer.analyzeWithLargeStack(scope, text);
        shownInEditor = !!this.live.openUri(path); // the editor may have opened it meanwhile
      }
      const sites = toLockSites(uri, text, analysis.sites ?? []);
      const before = this.files.get(path);
      const diagnostics = analysisDiagnostics(uri, text, analysis);
      // Counts what is shown (a failure notice too), so that it is cleared when it goes.
      this.files.set(path, { findings: diagnostics.length, sites });
      const showing = diagnostics.length > 0 || (before?.findings ?? 0) > 0;
      if (!shownInEditor && (showing || forcePublish)) {
        this.publish(uri, diagnostics);
      }
      collectIfGrown(SCAN_GROWTH_BYTES);
      return analysis.notAnalysed ? undefined : analysis.findings.length;
    } catch (err) {
      this.log(`could not scan ${path}: ${String(err)}`);
      this.removeFile(path);
      return undefined;
    }
  }

  /** Lock sites of the scanned files, by path. */
  *sites(): Iterable<[string, LockSite[]]> {
    for (const [path, file] of this.files) if (file.sites.length > 0) yield [path, file.sites];
  }

  /** A watched file was created or changed on disk. */
  async fileChanged(path: string): Promise<void> {
    const folder = this.folders.folderOf(path);
    if (!folder) return;
    if (await isGitIgnored(folder.path, path)) {
      this.removeFile(path);
      return;
    }
    await this.analyzePath(path);
  }

  /** A file or a whole folder was deleted. */
  removeUnder(path: string): void {
    for (const file of [...this.files.keys()]) {
      if (file === path || file.startsWith(path + sep)) this.removeFile(file);
    }
  }

  /** A file was deleted, or is no longer part of the scan. */
  removeFile(path: string): void {
    const before = this.files.get(path);
    this.files.delete(path);
    if ((before?.findings ?? 0) > 0 && !this.live.openUri(path)) this.publish(pathToUri(path), []);
  }

  /** An editor closed the file: show what is on disk again (or nothing, if it is not part of the scan). */
  async documentClosed(path: string | undefined, uri: string): Promise<void> {
    if (path && this.files.has(path)) await this.analyzePath(path, true);
    else this.publish(uri, []);
  }
}
