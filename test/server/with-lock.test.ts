// "Convert to withLock": the refactoring rewrites a hand-rolled lock (ioredis, node-redis, redlock),
// imports withLock, and creates the helper from the template when the project has none. The result
// type-checks against the real client types and Lockwise reports nothing on it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit } from './helpers/apply-edit';
import { IOREDIS_SETTLE, IOREDIS_SETTLE_JS, NODE_REDIS_EXPORT } from './helpers/lock-samples';
import { startServer, type LspClient } from './helpers/lsp-client';
import { typeErrors } from './helpers/typecheck';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const TEMPLATE_TS = readFileSync(join(import.meta.dirname, '..', '..', 'rules', 'templates', 'with-lock.ts'), 'utf8');
const TEMPLATE_JS = readFileSync(join(import.meta.dirname, '..', '..', 'rules', 'templates', 'with-lock.js'), 'utf8');

const REDLOCK_REBUILD = `import Redis from 'ioredis';
import { Redlock } from '@sesamecare-oss/redlock';

const redis = new Redis();
const redlock = new Redlock([redis]);

export async function rebuild(day: string): Promise<void> {
  const lock = await redlock.acquire([\`lock:rebuild:\${day}\`], 10000);
  try {
    console.log('rebuilding', day);
  } finally {
    await lock.release();
  }
}
`;

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, module: 'preserve', moduleResolution: 'bundler' } });

let tsProject: TempWorkspace;
let jsProject: TempWorkspace;
let client: LspClient;

before(async () => {
  tsProject = tempWorkspace('withlock-ts', { 'tsconfig.json': TSCONFIG });
  jsProject = tempWorkspace('withlock-js', { 'package.json': JSON.stringify({ type: 'module' }) });
  client = await startServer({
    folders: [
      { uri: tsProject.uri, name: tsProject.name },
      { uri: jsProject.uri, name: jsProject.name },
    ],
  });
});

after(async () => {
  await client?.stop();
  tsProject?.remove();
  jsProject?.remove();
});

/** Opens `text` as `rel` in `ws`, asks for refactorings at the acquire call, returns them. */
async function convertActions(ws: TempWorkspace, rel: string, text: string, languageId = 'typescript'): Promise<CodeAction[]> {
  const uri = ws.write(rel, text);
  client.open(uri, text, languageId);
  assert.deepEqual(await client.waitForDiagnostics(uri), [], 'the sample is a correct lock');
  const line = text.split('\n').findIndex((l) => /\.(set|acquire)\(/.test(l));
  const character = text.split('\n')[line].search(/\.(set|acquire)\(/) + 2;
  const at = { line, character };
  return client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: at, end: at },
    context: { diagnostics: [], only: ['refactor.rewrite'] },
  });
}

/** Diagnostics the server gives `text` when opened as `uri` (in its own document). */
async function lockwiseOn(uri: string, text: string, languageId: string): Promise<Diagnostic[]> {
  client.open(uri, text, languageId);
  const diagnostics = await client.waitForDiagnostics(uri);
  client.close(uri);
  return diagnostics;
}

async function convertAndCheck(ws: TempWorkspace, rel: string, text: string) {
  const uri = ws.uriOf(rel);
  const actions = await convertActions(ws, rel, text);
  assert.deepEqual(actions.map((a) => [a.title, a.kind]), [['Convert to withLock', 'refactor.rewrite']]);
  const texts = new Map([[uri, text]]);
  const created = applyWorkspaceEdit(actions[0].edit ?? {}, { texts, versions: new Map([[uri, 1]]) });
  const result = texts.get(uri) as string;
  assert.match(result, /await withLock\(/);
  assert.doesNotMatch(result, /\.release\(|redis\.eval|client\.eval/);
  client.close(uri);
  return { result, created, texts };
}

test('ioredis: converts, imports withLock and creates the helper at src/lib/with-lock.ts', async () => {
  const { result, created, texts } = await convertAndCheck(tsProject, 'src/settle.ts', IOREDIS_SETTLE);
  const helperUri = tsProject.uriOf('src/lib/with-lock.ts');
  assert.deepEqual(created, [helperUri]);
  assert.equal(texts.get(helperUri), TEMPLATE_TS);
  assert.match(result, /import \{ withLock \} from '\.\/lib\/with-lock';/);

  const files = { [tsProject.file('src/settle.ts')]: result, [tsProject.file('src/lib/with-lock.ts')]: TEMPLATE_TS };
  assert.deepEqual(typeErrors(files), [], result);
  assert.deepEqual(await lockwiseOn(tsProject.uriOf('src/settle-converted.ts'), result, 'typescript'), []);
  assert.deepEqual(await lockwiseOn(tsProject.uriOf('src/lib/with-lock-copy.ts'), TEMPLATE_TS, 'typescript'), []);
});

test('node-redis: converts and type-checks; an existing helper is imported, not created again', async () => {
  tsProject.write('src/lib/with-lock.ts', TEMPLATE_TS);
  const { result, created } = await convertAndCheck(tsProject, 'src/jobs/export.ts', NODE_REDIS_EXPORT);
  assert.deepEqual(created, []);
  assert.match(result, /import \{ withLock \} from '\.\.\/lib\/with-lock';/);
  assert.deepEqual(typeErrors({ [tsProject.file('src/jobs/export.ts')]: result }), [], result);
  assert.deepEqual(await lockwiseOn(tsProject.uriOf('src/jobs/export-converted.ts'), result, 'typescript'), []);
});

test('redlock acquire/release converts to withLock on the same client', async () => {
  const { result } = await convertAndCheck(tsProject, 'src/rebuild.ts', REDLOCK_REBUILD);
  assert.match(result, /withLock\(redis, `lock:rebuild:\$\{day\}`, \{ ttlMs: 10000 \}/);
  assert.deepEqual(typeErrors({ [tsProject.file('src/rebuild.ts')]: result }), [], result);
  assert.deepEqual(await lockwiseOn(tsProject.uriOf('src/rebuild-converted.ts'), result, 'typescript'), []);
});

test('a JavaScript project gets the .js helper and an import with its extension', async () => {
  const { result, created, texts } = await convertAndCheck(jsProject, 'src/settle.js', IOREDIS_SETTLE_JS);
  const helperUri = jsProject.uriOf('src/lib/with-lock.js');
  assert.deepEqual(created, [helperUri]);
  assert.equal(texts.get(helperUri), TEMPLATE_JS);
  assert.match(result, /import \{ withLock \} from '\.\/lib\/with-lock\.js';/);
  const files = { [jsProject.file('src/settle.js')]: result, [jsProject.file('src/lib/with-lock.js')]: TEMPLATE_JS };
  assert.deepEqual(typeErrors(files), [], result);
  assert.deepEqual(await lockwiseOn(jsProject.uriOf('src/settle-converted.js'), result, 'javascript'), []);
});

test('lockwise.withLock.helperPath decides where the helper goes', async () => {
  client.settings = { '': { withLock: { helperPath: 'lib/locking/with-lock.ts' } } };
  void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
  const text = IOREDIS_SETTLE.replace('function settle', 'function other');
  const actions = await convertActions(tsProject, 'src/other.ts', text);
  const texts = new Map([[tsProject.uriOf('src/other.ts'), text]]);
  const created = applyWorkspaceEdit(actions[0]?.edit ?? {}, { texts });
  assert.deepEqual(created, [tsProject.uriOf('lib/locking/with-lock.ts')]);
  assert.match(texts.get(tsProject.uriOf('src/other.ts')) ?? '', /from '\.\.\/lib\/locking\/with-lock'/);
  client.close(tsProject.uriOf('src/other.ts'));
  client.settings = {};
  void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
});

test('no conversion is offered away from the acquire, nor without file-creation support when the helper is missing', async () => {
  const uri = tsProject.write('src/away.ts', IOREDIS_SETTLE);
  client.open(uri, IOREDIS_SETTLE);
  await client.waitForDiagnostics(uri);
  const away = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['refactor.rewrite'] },
  });
  assert.deepEqual(away, []);
  client.close(uri);

  const bare = await startServer({
    folders: [{ uri: jsProject.uri, name: jsProject.name }],
    capabilities: { workspace: { configuration: true } },
  });
  try {
    const jsUri = jsProject.write('src/bare.js', IOREDIS_SETTLE_JS);
    bare.open(jsUri, IOREDIS_SETTLE_JS, 'javascript');
    await bare.waitForDiagnostics(jsUri);
    const line = IOREDIS_SETTLE_JS.split('\n').findIndex((l) => l.includes('redis.set('));
    const actions = await bare.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: jsUri },
      range: { start: { line, character: 20 }, end: { line, character: 20 } },
      context: { diagnostics: [], only: ['refactor.rewrite'] },
    });
    assert.deepEqual(actions, [], 'the project has no helper and the client cannot create files');
  } finally {
    await bare.stop();
  }
});
