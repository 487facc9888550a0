// The helper "Convert to withLock" creates follows the project's config "server": the template as it is
// for "redis" (Lua), its SERVER line set to "redis-8.4" or "valkey-9" (native owner-checked commands)
// otherwise, in TypeScript and in a CommonJS project alike, and the result type-checks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeAction } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit } from './helpers/apply-edit';
import { IOREDIS_SETTLE, RELEASE_SCRIPT } from './helpers/lock-samples';
import { startServer, type LspClient } from './helpers/lsp-client';
import { typeErrors } from './helpers/typecheck';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const TEMPLATES = join(import.meta.dirname, '..', '..', 'rules', 'templates');
const TEMPLATE_TS = readFileSync(join(TEMPLATES, 'with-lock.ts'), 'utf8');
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, module: 'preserve', moduleResolution: 'bundler' } });

const COMMON_JS = `'use strict';
const Redis = require('ioredis');

const redis = new Redis({ lazyConnect: true });

async function settle(id, token) {
  const ok = await redis.set(\`lock:settle:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return;
  try {
    console.log('settling', id);
  } finally {
    await redis.eval(${RELEASE_SCRIPT}, 1, \`lock:settle:\${id}\`, token);
  }
}

module.exports = { settle };
`;

let plain: TempWorkspace;
let redis84: TempWorkspace;
let valkey: TempWorkspace;
let client: LspClient;

before(async () => {
  plain = tempWorkspace('server-redis', { 'tsconfig.json': TSCONFIG });
  redis84 = tempWorkspace('server-redis-8.4', { 'tsconfig.json': TSCONFIG, 'lockwise.config.json': JSON.stringify({ server: 'redis-8.4' }) });
  valkey = tempWorkspace('server-valkey-9', { 'package.json': JSON.stringify({ type: 'commonjs', lockwise: { server: 'valkey-9' } }) });
  client = await startServer({ folders: [plain, redis84, valkey].map((ws) => ({ uri: ws.uri, name: ws.name })) });
});

after(async () => {
  await client?.stop();
  for (const ws of [plain, redis84, valkey]) ws?.remove();
});

/** Converts the lock region of `text` (opened as `rel`) and returns the converted file and the created helper. */
async function convert(ws: TempWorkspace, rel: string, text: string, languageId: string) {
  const uri = ws.write(rel, text);
  client.open(uri, text, languageId);
  assert.deepEqual(await client.waitForDiagnostics(uri), [], 'the sample is a correct lock');
  const line = text.split('\n').findIndex((l) => l.includes('redis.set('));
  const at = { line, character: text.split('\n')[line]!.indexOf('redis.set(') + 'redis.s'.length };
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: at, end: at },
    context: { diagnostics: [], only: ['refactor.rewrite'] },
  });
  client.close(uri);
  const convertAction = actions.find((a) => a.title === 'Convert to withLock' && a.edit);
  assert.ok(convertAction, JSON.stringify(actions));
  const texts = new Map([[uri, text]]);
  const [helperUri, ...others] = applyWorkspaceEdit(convertAction.edit!, { texts, versions: new Map([[uri, 1]]) });
  assert.ok(helperUri && others.length === 0, 'one helper is created');
  return { result: texts.get(uri)!, helper: texts.get(helperUri)! };
}

test('"redis" (the default): the created helper is the template itself, with its Lua scripts', async () => {
  const { helper } = await convert(plain, 'src/settle.ts', IOREDIS_SETTLE, 'typescript');
  assert.equal(helper, TEMPLATE_TS);
  assert.match(helper, /^const SERVER: LockServer = 'redis';$/m);
});

test('"redis-8.4": the created helper renews and releases with native commands, and type-checks', async () => {
  const { result, helper } = await convert(redis84, 'src/settle.ts', IOREDIS_SETTLE, 'typescript');
  assert.equal(helper, TEMPLATE_TS.replace("const SERVER: LockServer = 'redis';", "const SERVER: LockServer = 'redis-8.4';"));
  assert.notEqual(helper, TEMPLATE_TS);
  const files = { [redis84.file('src/settle.ts')]: result, [redis84.file('src/lib/with-lock.ts')]: helper };
  assert.deepEqual(typeErrors(files), [], result);
});

test('"valkey-9" from package.json: a CommonJS project gets the CommonJS helper set to it', async () => {
  const { result, helper } = await convert(valkey, 'src/settle.js', COMMON_JS, 'javascript');
  assert.match(result, /const \{ withLock \} = require\('\.\/lib\/with-lock\.js'\);/);
  assert.match(helper, /^'use strict';/);
  assert.match(helper, /^const SERVER = 'valkey-9';$/m);
  assert.doesNotMatch(helper, /^const SERVER = 'redis';$/m);
});
