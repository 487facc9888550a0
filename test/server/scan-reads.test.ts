// The scan's reads: the WorkspaceScan runs in this process with an instrumented reader that records
// what is read, and a second scan is started while the first one runs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CancellationToken, TextDocuments, type Diagnostic, type WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Analyzer } from '../../server/src/analysis';
import { ProjectConfigs } from '../../server/src/project-config';
import { ServerProject } from '../../server/src/project-model';
import { diskReader, type ScanReader } from '../../server/src/scan-reader';
import { SettingsStore } from '../../server/src/settings';
import { WorkspaceFolders } from '../../server/src/workspace-folders';
import { WorkspaceScan } from '../../server/src/workspace-scan';
import { IOREDIS_ORDERS, PLAIN } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const FILE_COUNT = 40;

let ws: TempWorkspace;

before(() => {
  const files = Object.fromEntries(Array.from({ length: FILE_COUNT }, (_, i) => [`src/file-${i}.ts`, i % 2 === 0 ? IOREDIS_ORDERS : PLAIN]));
  ws = tempWorkspace('scan-reads', files);
});

after(() => ws?.remove());

const reporter: WorkDoneProgressServerReporter = {
  token: CancellationToken.None,
  begin: () => undefined,
  report: () => undefined,
  done: () => undefined,
};

/** Reads from disk, recording the paths read. */
function recordingReader(): ScanReader & { paths: string[] } {
  const reader = {
    paths: [] as string[],
    read(path: string, maxBytes: number) {
      reader.paths.push(path);
      return diskReader.read(path, maxBytes);
    },
  };
  return reader;
}

function scanWith(reader: ScanReader, published = new Map<string, Diagnostic[]>()): WorkspaceScan {
  const folders = new WorkspaceFolders();
  folders.set([{ uri: ws.uri, name: ws.name }]);
  const project = new ServerProject(new TextDocuments(TextDocument), () => undefined);
  const analyzer = new Analyzer(folders, new SettingsStore(), new ProjectConfigs(() => undefined), () => undefined, project);
  return new WorkspaceScan(folders, analyzer, { openUri: () => undefined, openDocument: () => undefined }, (uri, d) => void published.set(uri, d), async () => reporter, () => undefined, reader);
}

test('the scan reads each file once and publishes the findings of those with lock code', async () => {
  const published = new Map<string, Diagnostic[]>();
  const reader = recordingReader();
  const result = await scanWith(reader, published).scanAll();
  assert.equal(result.files, FILE_COUNT);
  assert.equal(reader.paths.length, FILE_COUNT, 'each file read once');
  assert.equal(new Set(reader.paths).size, FILE_COUNT);
  // Half the files hold lock code: each of them, and only they, got diagnostics.
  assert.equal(published.size, FILE_COUNT / 2);
  for (let i = 0; i < FILE_COUNT; i += 2) assert.ok((published.get(ws.uriOf(`src/file-${i}.ts`))?.length ?? 0) > 0, `file-${i}`);
});

test('a scan started while one runs cancels it between two files: the reads are not one blocking run', async () => {
  const reader = recordingReader();
  const scan = scanWith(reader);
  const first = scan.scanAll();
  // Start the second scan once the first has read a few files, from a later event-loop turn.
  await new Promise<void>((resolve) => {
    const poll = () => (reader.paths.length >= 3 ? resolve() : setImmediate(poll));
    setImmediate(poll);
  });
  const second = scan.scanAll();
  const [cancelled, completed] = await Promise.all([first, second]);
  assert.equal(cancelled.cancelled, true);
  assert.ok(cancelled.files < FILE_COUNT, `the first scan stopped early (${cancelled.files} files)`);
  assert.equal(completed.cancelled, false);
  assert.equal(completed.files, FILE_COUNT);
});
