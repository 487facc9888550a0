// A real LSP client for the server tests and the bench: spawns the BUILT dist/server.js over stdio and
// talks JSON-RPC to it. It answers the server's requests the way an editor would (settings per scope,
// progress tokens, registrations) and records what the server sends (diagnostics, progress, logs).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type {
  ClientCapabilities,
  Diagnostic,
  PublishDiagnosticsParams,
  Range,
  WorkspaceFolder,
} from 'vscode-languageserver-protocol';
import { waitFor } from '../../helpers/wait';

/** The bundle under test; LOCKWISE_SERVER_JS points the tests and the bench at another build. */
export const SERVER_JS = process.env.LOCKWISE_SERVER_JS ?? join(import.meta.dirname, '..', '..', '..', 'dist', 'server.js');

export const CAPABILITIES: ClientCapabilities = {
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeConfiguration: { dynamicRegistration: true },
    didChangeWatchedFiles: { dynamicRegistration: true },
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
  },
  window: { workDoneProgress: true },
  textDocument: {
    publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor.rewrite'] } } },
    hover: { contentFormat: ['markdown', 'plaintext'] },
  },
};

export interface ProgressEvent {
  token: string | number;
  value: { kind: 'begin' | 'report' | 'end'; title?: string; message?: string; percentage?: number };
}

export interface StartOptions {
  folders: WorkspaceFolder[];
  /** The `lockwise` section per scope URI ('' = no scope); read on every workspace/configuration request. */
  settings?: Record<string, unknown>;
  capabilities?: ClientCapabilities;
  initializationOptions?: unknown;
}

export class LspClient {
  readonly diagnostics = new Map<string, PublishDiagnosticsParams>();
  readonly progress: ProgressEvent[] = [];
  readonly logs: string[] = [];
  readonly configurationRequests: (string | undefined)[] = [];
  settings: Record<string, unknown>;
  private readonly versions = new Map<string, number>();
  private readonly listeners = new Set<(p: PublishDiagnosticsParams) => void>();

  constructor(
    readonly connection: MessageConnection,
    readonly process: ChildProcess,
    settings: Record<string, unknown>,
  ) {
    this.settings = settings;
  }

  /** True while the server process is alive. */
  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  open(uri: string, text: string, languageId = 'typescript'): void {
    this.versions.set(uri, 1);
    void this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  /** A full-text change (no range) or ranged incremental changes; returns the new version. */
  change(uri: string, changes: ({ text: string } | { range: Range; text: string })[]): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  close(uri: string): void {
    this.versions.delete(uri);
    void this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }

  /** Waits for diagnostics on `uri` that satisfy `accept` (by default: any, for the current version). */
  waitForDiagnostics(
    uri: string,
    accept: (diagnostics: Diagnostic[], params: PublishDiagnosticsParams) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<Diagnostic[]> {
    return waitFor(
      () => {
        const p = this.diagnostics.get(uri);
        if (!p) return undefined;
        const current = this.versions.get(uri);
        if (current !== undefined && p.version !== current) return undefined;
        return accept(p.diagnostics, p) ? p.diagnostics : undefined;
      },
      `diagnostics for ${uri}`,
      { timeoutMs },
    );
  }

  /** Resolves when diagnostics for `version` of `uri` arrive (event-driven: the bench times it). */
  nextDiagnostics(uri: string, version: number): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve) => {
      const stop = this.onDiagnostics((p) => {
        if (p.uri !== uri || p.version !== version) return;
        stop();
        resolve(p);
      });
    });
  }

  /** Calls `listener` for every publishDiagnostics notification from now on; returns the unsubscribe. */
  onDiagnostics(listener: (p: PublishDiagnosticsParams) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called for every publishDiagnostics notification. */
  received(p: PublishDiagnosticsParams): void {
    this.diagnostics.set(p.uri, p);
    for (const listener of [...this.listeners]) listener(p);
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  async stop(): Promise<void> {
    try {
      if (this.alive) {
        await Promise.race([
          this.connection.sendRequest('shutdown').then(() => this.connection.sendNotification('exit')),
          new Promise((resolve) => this.process.once('exit', resolve)),
        ]);
        await waitFor(() => !this.alive, 'the server to exit', { timeoutMs: 5_000 });
      }
    } finally {
      if (this.alive) this.process.kill('SIGKILL');
      this.connection.dispose();
    }
  }
}

export async function startServer(options: StartOptions): Promise<LspClient> {
  const child = spawn(process.execPath, [SERVER_JS, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout as NodeJS.ReadableStream),
    new StreamMessageWriter(child.stdin as NodeJS.WritableStream),
  );
  const client = new LspClient(connection, child, options.settings ?? {});

  connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => client.received(p));
  connection.onNotification('$/progress', (p: ProgressEvent) => {
    client.progress.push(p);
  });
  connection.onNotification('window/logMessage', (p: { message: string }) => {
    client.logs.push(p.message);
  });
  connection.onRequest('workspace/configuration', (p: { items: { scopeUri?: string; section?: string }[] }) =>
    p.items.map((item) => {
      client.configurationRequests.push(item.scopeUri);
      return client.settings[item.scopeUri ?? ''] ?? client.settings[''] ?? {};
    }),
  );
  connection.onRequest('window/workDoneProgress/create', () => null);
  connection.onRequest('client/registerCapability', () => null);
  connection.onRequest('client/unregisterCapability', () => null);
  connection.onRequest('workspace/workspaceFolders', () => options.folders);
  connection.listen();

  try {
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: options.folders[0]?.uri ?? null,
      workspaceFolders: options.folders,
      capabilities: options.capabilities ?? CAPABILITIES,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification('initialized', {});
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`the server did not initialize: ${String(err)}\n${stderr.join('')}`);
  }
  return client;
}
