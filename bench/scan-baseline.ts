// The floor for bench/server-scan.bench.ts, run in a fresh process as the server is: every file of
// the folder given on the command line (the scan's listing, walkSourceFiles) read and analysed in
// turn by the server's own Analyzer with its project model on. The folder has no config files, so its
// scope (default settings, empty config) is every file's. Prints one JSON line: { elapsedMs, cpuMs,
// findings, files }, cpuMs being the main thread's CPU time (undefined without /proc).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Analyzer } from '../server/src/analysis';
import { walkSourceFiles } from '../server/src/file-walker';
import { ProjectConfigs } from '../server/src/project-config';
import { ServerProject } from '../server/src/project-model';
import { SettingsStore } from '../server/src/settings';
import { pathToUri } from '../server/src/uris';
import { WorkspaceFolders } from '../server/src/workspace-folders';
import { mainThreadCpuMs } from './proc-stats';

async function main(root: string): Promise<void> {
  const paths: string[] = [];
  for await (const path of walkSourceFiles(root, () => false)) paths.push(path);
  const folders = new WorkspaceFolders();
  folders.set([{ uri: pathToUri(root), name: 'baseline' }]);
  const project = new ServerProject(new TextDocuments(TextDocument), () => undefined);
  const analyzer = new Analyzer(folders, new SettingsStore(), new ProjectConfigs(() => undefined), () => undefined, project);
  const folderScope = await analyzer.scope(pathToUri(root));
  const cpuBefore = mainThreadCpuMs(process.pid);
  const started = performance.now();
  let findings = 0;
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    findings += analyzer.analyze({ ...folderScope, uri: pathToUri(path), fileName: path, path }, text).findings.length;
  }
  const elapsedMs = performance.now() - started;
  const cpuAfter = mainThreadCpuMs(process.pid);
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  console.log(JSON.stringify({ elapsedMs, cpuMs, findings, files: paths.length }));
}

void main(process.argv[2] as string);
