// The scan's reads are bounded and ordered: the WorkspaceScan runs in this process with an instrumented
// reader that counts the reads in flight, and loadAhead is driven with loads that finish out of order.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CancellationToken, TextDocuments, type Diagnostic, type WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Analyzer } from '../../server/src/analysis';
import { ProjectConfigs } from '../../server/src/project-config';
import { ServerProject } from '../../server/src/project-model';
import { loadAhead } from '../../server/src/read-ahead';
import { diskReader, type ScanReader } from '../../server/src/scan-reader';
import { SettingsStore } from '../../server/src/settings';
import { WorkspaceFolders } from '../../server/src/workspace-folders';
import { READS_AHEAD, WorkspaceScan } from '../../server/src/workspace-scan';
import { IOREDIS_ORDERS, PLAIN } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const FILE_COUNT = 5 * READS_AHEAD;

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

/** Reads from disk, counting the reads started and not yet finished. */
function countingReader(): ScanReader & { inFlight: number; most: number; paths: string[] } {
  const reader = {
    inFlight: 0,
    most: 0,
    paths: [] as string[],
    async read(path: string, maxBytes: number) {
      reader.paths.push(path);
      reader.most = Math.max(reader.most, ++reader.inFlight);
      try {
        return await diskReader.read(path, maxBytes);
      } finally {
        reader.inFlight--;
      }
    },
  };
  return reader;
}

test(`the scan never has more than ${READS_AHEAD} reads in flight, and does use them`, async () => {
  const folders = new WorkspaceFolders();
  folders.set([{ uri: ws.uri, name: ws.name }]);
  const project = new ServerProject(new TextDocuments(TextDocument), () => undefined);
  const analyzer = new Analyzer(folders, new SettingsStore(), new ProjectConfigs(() => undefined), () => undefined, project);
  const published = new Map<string, Diagnostic[]>();
  const reader = countingReader();
  const scan = new WorkspaceScan(folders, analyzer, { openUri: () => undefined, openDocument: () => undefined }, (uri, d) => void published.set(uri, d), async () => reporter, () => undefined, reader);

  const result = await scan.scanAll();
  assert.equal(result.files, FILE_COUNT);
  assert.equal(reader.paths.length, FILE_COUNT, 'each file read once');
  assert.equal(new Set(reader.paths).size, FILE_COUNT);
  assert.equal(reader.most, READS_AHEAD);
  assert.equal(reader.inFlight, 0);
  // Half the files hold lock code: each of them, and only they, got diagnostics.
  assert.equal(published.size, FILE_COUNT / 2);
  for (let i = 0; i < FILE_COUNT; i += 2) assert.ok((published.get(ws.uriOf(`src/file-${i}.ts`))?.length ?? 0) > 0, `file-${i}`);
});

test('loadAhead yields in the items order when loads finish in reverse, with at most `limit` in flight', async () => {
  const items = Array.from({ length: 20 }, (_, i) => i);
  let started = 0;
  let finished = 0;
  let consumed = 0;
  let mostInFlight = 0;
  let mostHeld = 0;
  // A later item takes fewer event-loop turns, so loads finish out of order.
  const load = (item: number) => {
    started++;
    mostInFlight = Math.max(mostInFlight, started - finished);
    mostHeld = Math.max(mostHeld, started - consumed);
    return new Promise<number>((resolve) => {
      let turns = items.length - item;
      const turn = () => (--turns > 0 ? setImmediate(turn) : (finished++, resolve(item)));
      setImmediate(turn);
    });
  };
  const seen: number[] = [];
  for await (const item of loadAhead(items, 4, load)) {
    consumed++;
    seen.push(item);
  }
  assert.deepEqual(seen, items);
  assert.equal(mostInFlight, 4);
  // The next load starts as one is handed over: the caller works on one while four are read.
  assert.equal(mostHeld, 5);
});
