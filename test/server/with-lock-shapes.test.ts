// "Convert to withLock" on the shapes real code has: an early return in the region (the routine
// returns it, and so does the function), values used after the region (the routine hands them out),
// CommonJS files (a require and a CommonJS helper), and a disabled refactoring with the reason where
// it still cannot convert.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { CodeAction } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit } from './helpers/apply-edit';
import { CAPABILITIES, startServer, type LspClient } from './helpers/lsp-client';
import { typeErrors } from './helpers/typecheck';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const RELEASE = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"`;

const EARLY_RETURN = `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

const redis = new Redis();

export async function settle(id: string): Promise<string | undefined> {
  const token = randomUUID();
  const ok = await redis.set(\`lock:settle:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return undefined;
  try {
    const state = await redis.get(\`order:\${id}\`);
    if (state === 'settled') return state;
    await redis.set(\`order:\${id}\`, 'settled');
    return 'settled';
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:settle:\${id}\`, token);
  }
}
`;

const USED_AFTER = `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

const redis = new Redis();

export async function count(id: string): Promise<number> {
  const token = randomUUID();
  const ok = await redis.set(\`lock:count:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return 0;
  const total = Number(await redis.incr(\`count:\${id}\`));
  const doubled = total * 2;
  await redis.eval(${RELEASE}, 1, \`lock:count:\${id}\`, token);
  console.log('counted', total);
  return doubled;
}
`;

const COMMON_JS = `'use strict';
const { randomUUID } = require('node:crypto');
const Redis = require('ioredis');

const redis = new Redis({ lazyConnect: true });

async function settle(id) {
  const token = randomUUID();
  const ok = await redis.set(\`lock:settle:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return;
  try {
    console.log('settling', id);
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:settle:\${id}\`, token);
  }
}

module.exports = { settle };
`;

const BREAKS_OUT = `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

const redis = new Redis();

export async function drain(ids: string[]): Promise<void> {
  for (const id of ids) {
    const token = randomUUID();
    const ok = await redis.set(\`lock:drain:\${id}\`, token, 'PX', 30000, 'NX');
    if (!ok) continue;
    try {
      if (await redis.exists(\`stop:\${id}\`)) break;
      console.log('draining', id);
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:drain:\${id}\`, token);
    }
  }
}
`;

let ts: TempWorkspace;
let cjs: TempWorkspace;
let client: LspClient;

before(async () => {
  ts = tempWorkspace('withlock-shapes-ts', { 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'preserve', moduleResolution: 'bundler' } }) });
  cjs = tempWorkspace('withlock-shapes-cjs', { 'package.json': JSON.stringify({ type: 'commonjs' }) });
  const capabilities = { ...CAPABILITIES, textDocument: { ...CAPABILITIES.textDocument, codeAction: { ...CAPABILITIES.textDocument?.codeAction, disabledSupport: true } } };
  client = await startServer({ folders: [{ uri: ts.uri, name: ts.name }, { uri: cjs.uri, name: cjs.name }], capabilities });
});

after(async () => {
  await client?.stop();
  ts?.remove();
  cjs?.remove();
});

async function refactorings(ws: TempWorkspace, rel: string, text: string, languageId: string): Promise<CodeAction[]> {
  const uri = ws.write(rel, text);
  client.open(uri, text, languageId);
  await client.waitForDiagnostics(uri);
  const line = text.split('\n').findIndex((l) => l.includes('redis.set(`lock:'));
  const at = { line, character: text.split('\n')[line].indexOf('redis.set') + 2 };
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [], only: ['refactor.rewrite'] } });
  client.close(uri);
  return actions;
}

function convert(ws: TempWorkspace, rel: string, text: string, action: CodeAction): { result: string; texts: Map<string, string>; created: string[] } {
  const uri = ws.uriOf(rel);
  const texts = new Map([[uri, text]]);
  const created = applyWorkspaceEdit(action.edit ?? {}, { texts, versions: new Map([[uri, 1]]) });
  return { result: texts.get(uri)!, texts, created };
}

test('an early return in the region: the function returns what withLock returns', async () => {
  const [action] = await refactorings(ts, 'src/settle.ts', EARLY_RETURN, 'typescript');
  assert.equal(action?.disabled, undefined, JSON.stringify(action));
  const { result, texts } = convert(ts, 'src/settle.ts', EARLY_RETURN, action);
  assert.match(result, /return await withLock\(redis, `lock:settle:\$\{id\}`, \{ ttlMs: 30000 \}, async \(signal\) => \{/);
  assert.match(result, /if \(state === 'settled'\) return state;/);
  for (const [uri, text] of texts) ts.write(uri.slice(ts.uri.length + 1), text);
  assert.deepEqual(typeErrors({ [ts.file('src/settle.ts')]: result }), [], result);
});

test('values declared in the region and used after it are handed out by the routine', async () => {
  // The helper from the first test is there now: imported, not created again.
  const [action] = await refactorings(ts, 'src/count.ts', USED_AFTER, 'typescript');
  assert.ok(action?.edit, JSON.stringify(action));
  const { result } = convert(ts, 'src/count.ts', USED_AFTER, action);
  assert.match(result, /const \{ total, doubled \} = await withLock\(/);
  assert.match(result, /\n {4}return \{ total, doubled \};\n {2}\}\);\n {2}console\.log\('counted', total\);/);
  assert.deepEqual(typeErrors({ [ts.file('src/count.ts')]: result }), [], result);
});

test('a CommonJS file gets a require and a CommonJS helper that Node loads', async () => {
  const [action] = await refactorings(cjs, 'src/settle.js', COMMON_JS, 'javascript');
  assert.ok(action?.edit, JSON.stringify(action));
  const { result, texts, created } = convert(cjs, 'src/settle.js', COMMON_JS, action);
  assert.match(result, /const \{ withLock \} = require\('\.\/lib\/with-lock\.js'\);/);
  assert.doesNotMatch(result, /^import /m);
  const helperUri = cjs.uriOf('src/lib/with-lock.js');
  assert.deepEqual(created, [helperUri]);
  cjs.write('src/lib/with-lock.js', texts.get(helperUri)!);
  cjs.write('src/settle.js', result);
  // Both load as CommonJS in a real Node process (no Redis command runs: the client connects lazily).
  const run = spawnSync(process.execPath, ['-e', `const h = require(${JSON.stringify(cjs.file('src/lib/with-lock.js'))}); const s = require(${JSON.stringify(cjs.file('src/settle.js'))}); console.log(typeof h.withLock, typeof h.LockBusyError, typeof s.settle); process.exit(0);`], { encoding: 'utf8', cwd: process.cwd(), env: { ...process.env, NODE_PATH: `${process.cwd()}/node_modules` } });
  assert.equal(run.stdout.trim(), 'function function function', run.stderr);
});

test('where it cannot convert, the refactoring is shown disabled with the reason', async () => {
  const actions = await refactorings(ts, 'src/drain.ts', BREAKS_OUT, 'typescript');
  assert.deepEqual(actions.map((a) => [a.title, a.disabled?.reason]), [['Convert to withLock', 'Cannot convert to withLock: the section breaks or continues a loop outside it.']]);
});
