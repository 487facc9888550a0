// The Lockwise language server: an LSP adapter over rules/. Started by the VS Code client over node
// IPC, or by any editor with `lockwise-language-server` / `lockwise lsp` (stdio unless argv names a
// transport; createConnection reads it from argv).
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  createConnection,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Analyzer } from './analysis';
import { provideCodeActions } from './code-actions/index';
import { editSupport } from './code-actions/context';
import { FIX_ALL_KIND } from './code-actions/fix-all';
import { configProblemDiagnostic } from './diagnostics';
import { LiveDocuments } from './documents';
import { provideHover } from './hover';
import { lockSites } from './lock-sites';
import { ProjectConfigs } from './project-config';
import { ServerProject } from './project-model';
import { CHECK_WORKSPACE_REQUEST, LOCK_SITES_REQUEST, SCAN_PROGRESS_NOTIFICATION, type LockSitesParams } from './protocol';
import { registerPullDiagnostics, usesPullDiagnostics } from './pull-diagnostics';
import { SECTION, SettingsStore } from './settings';
import { defaultToStdio } from './transport';
import { pathToUri, uriToPath } from './uris';
import { registerWatchedFiles, handleWatchedFiles } from './watched-files';
import { WorkspaceFolders } from './workspace-folders';
import { WorkspaceScan } from './workspace-scan';

defaultToStdio(process.argv);
const connection = createConnection(ProposedFeatures.all);
const log = (message: string) => connection.console.log(message);
const publish = (uri: string, diagnostics: Diagnostic[], version?: number) => connection.sendDiagnostics({ uri, diagnostics, version });

let capabilities: ClientCapabilities = {};
let initializationOptions: unknown;
const folders = new WorkspaceFolders();
const settings = new SettingsStore();

let configProblemFiles: string[] = [];
const configs = new ProjectConfigs((problems) => {
  for (const file of configProblemFiles) {
    if (!problems.some((p) => p.file === file)) publish(pathToUri(file), []);
  }
  for (const p of problems) publish(pathToUri(p.file), [configProblemDiagnostic(p.message)]);
  configProblemFiles = problems.map((p) => p.file);
});

const documents = new TextDocuments(TextDocument);
// A helper's meaning changed: the files that call it are analysed and published again.
const project = new ServerProject(documents, (paths) => reanalyse(paths));
const analyzer = new Analyzer(folders, settings, configs, log, project);
let pullDiagnostics = false;
// With pull diagnostics an open document's findings are pulled, never pushed (pull-diagnostics.ts).
const live = new LiveDocuments(documents, analyzer, (uri, diagnostics, version) => publish(uri, pullDiagnostics ? [] : diagnostics, version), log);
const scan = new WorkspaceScan(folders, analyzer, live, publish, () => connection.window.createWorkDoneProgress(), log);
scan.onProgress = (progress) => void connection.sendNotification(SCAN_PROGRESS_NOTIFICATION, progress);

function reanalyse(paths: ReadonlySet<string>): void {
  for (const path of paths) {
    const uri = live.openUri(path);
    if (uri) live.changed(uri, true);
    else void scan.fileChanged(path);
  }
}

connection.onInitialize((params): InitializeResult => {
  capabilities = params.capabilities;
  // Editors without workspace/configuration (or answering it with null) send settings here.
  settings.initialize(params.initializationOptions);
  pullDiagnostics = usesPullDiagnostics(params);
  initializationOptions = params.initializationOptions;
  const initialFolders = params.workspaceFolders ?? (params.rootUri ? [{ uri: params.rootUri, name: 'root' }] : []);
  folders.set(initialFolders);
  if (capabilities.workspace?.configuration) {
    settings.pullFrom((scopeUri) =>
      connection.workspace.getConfiguration(scopeUri ? { scopeUri, section: SECTION } : { section: SECTION }),
    );
  }
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite, FIX_ALL_KIND] },
      hoverProvider: true,
      ...(pullDiagnostics ? { diagnosticProvider: { identifier: 'lockwise', interFileDependencies: false, workspaceDiagnostics: false } } : {}),
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'lockwise', version: process.env.LOCKWISE_VERSION },
  };
});

connection.onInitialized(() => {
  if (capabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
    void connection.client.register(DidChangeConfigurationNotification.type, { section: SECTION });
  }
  if (capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration) void registerWatchedFiles(connection);
  if (capabilities.workspace?.workspaceFolders) {
    connection.workspace.onDidChangeWorkspaceFolders((event) => {
      folders.remove(event.removed);
      folders.add(event.added);
      void scan.scanAll();
    });
  }
  void scan.scanAll();
});

// Settings apply without a restart: forget the cached ones, then analyse everything again.
connection.onDidChangeConfiguration((params) => {
  const section = (params.settings as Record<string, unknown> | null | undefined)?.[SECTION];
  settings.changed(section);
  live.revalidateAll();
  refreshPulled();
  void scan.scanAll();
});

/** Asks a pulling client to pull again after settings or configs changed. */
function refreshPulled(): void {
  if (pullDiagnostics && capabilities.workspace?.diagnostics?.refreshSupport) void connection.languages.diagnostics.refresh();
}

connection.onDidChangeWatchedFiles((params) =>
  handleWatchedFiles(params, {
    configChanged: () => {
      configs.clear();
      live.revalidateAll();
      refreshPulled();
      void scan.scanAll();
    },
    resolutionChanged: () => project.resolutionChanged(),
    scan,
    filesMoved: (path) => reanalyse(project.filesMoved(path)),
    scriptChanged: (path) => reanalyse(project.index.invalidate(path)),
  }),
);

documents.onDidChangeContent((event) => live.changed(event.document.uri));
documents.onDidClose((event) => {
  const { uri } = event.document;
  live.closed(uri);
  void scan.documentClosed(uriToPath(uri), uri);
});

connection.onCodeAction((params) => provideCodeActions(params, live, editSupport(capabilities, initializationOptions)));
connection.onHover((params) => provideHover(params, live));
registerPullDiagnostics(connection, live);
connection.onRequest(CHECK_WORKSPACE_REQUEST, () => scan.scanAll());
connection.onRequest(LOCK_SITES_REQUEST, (params: LockSitesParams | null) => lockSites(params, live, scan, folders));

documents.listen(connection);
connection.listen();
