// Runs code-server (VS Code 1.100.3, server side + web workbench) from the tool folder: installs a
// .vsix into a private extensions dir, writes user settings, and serves one folder on a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../helpers/free-port';
import { waitFor } from '../../helpers/wait';
import { CODE_SERVER_ENTRY } from './paths';

export interface CodeServer {
  url: string;
  userDataDir: string;
  /** Copies every log under the user-data-dir (the extension host's included) to `into`. */
  saveLogs(into: string): void;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  vsix: string;
  folder: string;
  settings: Record<string, unknown>;
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const root = mkdtempSync(join(tmpdir(), 'lockwise-e2e-vscode-'));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  const dirs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  const install = spawnSync(process.execPath, [CODE_SERVER_ENTRY, ...dirs, '--install-extension', options.vsix], {
    encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`--install-extension failed:\n${install.stdout}\n${install.stderr}`);
  if (!readdirSync(extensionsDir).some((d) => d.startsWith('lockwise.lockwise-'))) {
    throw new Error(`the .vsix was not installed into ${extensionsDir}:\n${install.stdout}`);
  }

  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(options.settings, null, 2));

  const port = await freePort();
  const log: string[] = [];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CODE_SERVER_ENTRY,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      ...dirs,
      options.folder,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => log.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => log.push(d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));

  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`code-server exited: ${log.join('')}`);
      return (await fetch(`${url}/healthz`)).ok;
    },
    'code-server to answer /healthz',
    { timeoutMs: 60_000, intervalMs: 200 },
  );

  return {
    url,
    userDataDir,
    saveLogs(into) {
      mkdirSync(into, { recursive: true });
      writeFileSync(join(into, 'code-server.log'), log.join(''));
      const logs = join(userDataDir, 'logs');
      if (existsSync(logs) && statSync(logs).isDirectory()) cpSync(logs, join(into, 'logs'), { recursive: true });
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
