// The workspace scan publishes what a file-by-file scan publishes: for a workspace with config scopes in
// nested folders (lockwise.config.json, package.json "lockwise" keys, package.json files without one,
// a broken one), config ignores, .gitignore'd and dependency folders, a file over the size limit and a
// helper used from another file, every file's diagnostics equal those of the reference below. The
// reference reads and analyses the files one at a time in the scan's order, with the config each
// file's folder gets from rules' own loadConfig (which walks up from that folder, nothing cached).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { TextDocuments, type Diagnostic } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ConfigError, emptyConfig, loadConfig, type LockwiseConfig } from '../../rules/config';
import { compileIgnores } from '../../rules/ignore-globs';
import { ruleIds } from '../../rules/index';
import { Analyzer } from '../../server/src/analysis';
import { analysisDiagnostics } from '../../server/src/diagnostics';
import { walkSourceFiles } from '../../server/src/file-walker';
import { mergeConfig, ProjectConfigs } from '../../server/src/project-config';
import { ServerProject } from '../../server/src/project-model';
import type { CheckWorkspaceResult } from '../../server/src/protocol';
import { parseSettings, SettingsStore } from '../../server/src/settings';
import { pathToUri } from '../../server/src/uris';
import { WorkspaceFolders } from '../../server/src/workspace-folders';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS, NODE_REDIS_REPORTS, PLAIN } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const SETTINGS = { maxFileSizeKb: 2 };

const HELPER = `import Redis from 'ioredis';
const redis = new Redis();
export async function acquireLock(key: string, ttl = 5000) {
  return redis.set(key, crypto.randomUUID(), 'PX', ttl, 'NX');
}
`;
const CALLER = `import { acquireLock } from '../../../src/lib/redis-lock';
export async function pay(id: string) {
  await acquireLock('order:' + id);
}
`;

const FILES: Record<string, string> = {
  'lockwise.config.json': JSON.stringify({ rules: { 'unique-token': 'off' }, ignore: ['vendor/**'] }),
  '.gitignore': 'generated/\n',
  'src/orders.ts': IOREDIS_ORDERS,
  'src/plain.ts': PLAIN,
  'src/lib/redis-lock.ts': HELPER,
  'vendor/orders.ts': IOREDIS_ORDERS, // the root config's ignore
  'generated/orders.ts': IOREDIS_ORDERS, // .gitignore
  'node_modules/pkg/orders.ts': IOREDIS_ORDERS,
  'big/orders.ts': `${IOREDIS_ORDERS}\n// ${'x'.repeat(3000)}\n`, // over maxFileSizeKb
  // package.json with a "lockwise" key: its own scope, its ignores relative to it.
  'packages/a/package.json': JSON.stringify({ name: 'a', lockwise: { rules: { 'atomic-acquire': 'off' }, ignore: ['legacy/**'] } }),
  'packages/a/src/orders.ts': IOREDIS_ORDERS,
  'packages/a/src/deep/er/reports.ts': NODE_REDIS_REPORTS,
  'packages/a/legacy/orders.ts': IOREDIS_ORDERS,
  // package.json without the key: the root config applies (its vendor/** is relative to the root).
  'packages/b/package.json': JSON.stringify({ name: 'b' }),
  'packages/b/src/orders.ts': IOREDIS_ORDERS,
  'packages/b/vendor/orders.ts': IOREDIS_ORDERS,
  'packages/b/jobs/pay.ts': CALLER,
  // A nested lockwise.config.json, two folders above the files it governs.
  'packages/c/lockwise.config.json': JSON.stringify({ rules: { 'owner-checked-release': 'info', 'require-ttl': 'off' } }),
  'packages/c/deep/er/reports.ts': NODE_REDIS_REPORTS,
  // A broken package.json: reported on itself, the settings alone apply below it.
  'packages/d/package.json': '{ "name": "d", ',
  'packages/d/orders.ts': IOREDIS_ORDERS,
};

let ws: TempWorkspace;
let client: LspClient;
let result: CheckWorkspaceResult;

before(async () => {
  ws = tempWorkspace('scan-scopes', FILES);
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }], settings: { '': SETTINGS } });
  result = await client.request<CheckWorkspaceResult>('lockwise/checkWorkspace', {});
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

interface Reference {
  diagnostics: Map<string, Diagnostic[]>;
  analysed: number;
}

/** What applies to a file in `dir`, from loadConfig alone: the config and whether `path` is ignored. */
function referenceScope(path: string): { config: LockwiseConfig; ignored: boolean } {
  try {
    const loaded = loadConfig(dirname(path), ruleIds);
    if (!loaded.file || loaded.config.ignore.length === 0) return { config: loaded.config, ignored: false };
    const rel = relative(dirname(loaded.file), path).split(sep).join('/');
    return { config: loaded.config, ignored: !rel.startsWith('../') && compileIgnores(loaded.config.ignore, loaded.file).ignores(rel) };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { config: emptyConfig(), ignored: false };
  }
}

/** The scan, file by file: each file's scope, size check, read and analysis in turn, one project model. */
async function referenceScan(): Promise<Reference> {
  const folders = new WorkspaceFolders();
  folders.set([{ uri: ws.uri, name: ws.name }]);
  const settings = parseSettings(SETTINGS);
  const project = new ServerProject(new TextDocuments(TextDocument), () => undefined);
  const analyzer = new Analyzer(folders, new SettingsStore(), new ProjectConfigs(() => undefined), () => undefined, project);
  const diagnostics = new Map<string, Diagnostic[]>();
  let analysed = 0;
  for await (const path of walkSourceFiles(ws.path, () => false)) {
    const { config, ignored } = referenceScope(path);
    if (ignored || statSync(path).size > settings.maxFileSizeKb * 1024) continue;
    const uri = pathToUri(path);
    const text = readFileSync(path, 'utf8');
    const scope = { uri, fileName: path, path, folder: folders.folderOf(path), settings, config: mergeConfig(settings, config) };
    const analysis = analyzer.analyze(scope, text);
    analysed++;
    diagnostics.set(uri, analysisDiagnostics(uri, text, analysis));
  }
  return { diagnostics, analysed };
}

/** A diagnostic without its rule doc link, which names the doc by file in process and by URL in the bundle. */
const comparable = (diagnostics: Diagnostic[]) => diagnostics.map(({ codeDescription: _link, ...rest }) => rest);
const codes = (rel: string) => (client.diagnostics.get(ws.uriOf(rel))?.diagnostics ?? []).map((d) => String(d.code));

test('every file gets the diagnostics of the file-by-file reference, in every config scope', async () => {
  const reference = await referenceScan();
  const sources = Object.keys(FILES).filter((rel) => /\.ts$/.test(rel));
  for (const rel of sources) {
    const uri = ws.uriOf(rel);
    assert.deepEqual(comparable(client.diagnostics.get(uri)?.diagnostics ?? []), comparable(reference.diagnostics.get(uri) ?? []), rel);
  }
  assert.equal(result.files - result.notAnalysed, reference.analysed);
});

test('the scopes took effect: nested configs, inherited configs, ignores, skipped files', () => {
  // The root config turns unique-token off; packages/a's package.json turns atomic-acquire off.
  assert.ok(codes('src/orders.ts').includes('atomic-acquire'));
  assert.ok(!codes('src/orders.ts').includes('unique-token'));
  assert.ok(!codes('packages/a/src/orders.ts').includes('atomic-acquire'));
  assert.ok(codes('packages/a/src/orders.ts').includes('unique-token'), 'packages/a has its own scope, not the root one');
  assert.ok(codes('packages/a/src/deep/er/reports.ts').length > 0);
  // packages/b has no "lockwise" key: the root scope, so unique-token stays off there.
  assert.deepEqual(codes('packages/b/src/orders.ts'), codes('src/orders.ts'));
  assert.ok(codes('packages/b/vendor/orders.ts').length > 0, 'the root vendor/** is relative to the root');
  assert.ok(codes('packages/b/jobs/pay.ts').includes('check-acquire-result'), 'the helper of another folder is followed');
  assert.ok(!codes('packages/c/deep/er/reports.ts').includes('require-ttl'));
  assert.ok(codes('packages/d/orders.ts').includes('unique-token'), 'below a broken package.json only the settings apply');
  for (const rel of ['vendor/orders.ts', 'generated/orders.ts', 'node_modules/pkg/orders.ts', 'big/orders.ts', 'packages/a/legacy/orders.ts']) {
    assert.deepEqual(codes(rel), [], rel);
  }
  assert.equal(client.diagnostics.get(ws.uriOf('packages/d/package.json'))?.diagnostics.length, 1, 'the broken config is reported on itself');
});
