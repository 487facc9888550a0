// Files and configs the server cannot use the ordinary way are never silent. A file nested deeper than
// the server's stack (3,000 nested ifs around SETNX + EXPIRE; a 20,000-deep array literal) gets the
// same findings as `lockwise check`, open or scanned; one that no stack can take gets a diagnostic at
// its top saying so. A lockwise.config.json that is a folder, or whose "ignore" glob cannot be
// compiled, is a diagnostic on the config, and the files are still analysed and hovered.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, test } from 'node:test';
import type { CodeAction, Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { runCli, type JsonReport } from '../cli/cli-process';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const cleanup: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

function nestedIfs(n: number): string {
  return `import Redis from 'ioredis';\nconst redis = new Redis();\nexport async function job(a: number) {\n${'if (a) {\n'.repeat(n)}const ok = await redis.setnx('lock:job', 't');\nif (ok) await redis.expire('lock:job', 10);\n${'}\n'.repeat(n)}}\n`;
}

function deepArray(n: number): string {
  return `import Redis from 'ioredis';\nconst redis = new Redis();\nexport async function job() {\n  const ok = await redis.setnx('lock:a', 't');\n  if (ok) await redis.expire('lock:a', 10);\n}\nexport const x = ${'['.repeat(n)}1${']'.repeat(n)};\n`;
}

async function open(ws: TempWorkspace): Promise<LspClient> {
  const client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }], settings: { '': { maxFileSizeKb: 4096 } } });
  cleanup.push(() => client.stop());
  return client;
}

/** rule@line:column, 1-based like the CLI's JSON. */
const where = (ds: Diagnostic[]) => ds.map((d) => `${d.code}@${d.range.start.line + 1}:${d.range.start.character + 1}`).sort();

test('too deep for the server\'s stack: open and scanned files get the same findings as lockwise check', async () => {
  const ws = tempWorkspace('deep', { 'scanned-ifs.ts': nestedIfs(3000), 'scanned-array.ts': deepArray(20_000) });
  cleanup.push(() => ws.remove());
  const cli = JSON.parse(runCli(['check', '--format', 'json', '.'], ws.path).stdout) as JsonReport;
  const expected = (file: string) => cli.findings.filter((f) => f.file === file).map((f) => `${f.rule}@${f.line}:${f.column}`).sort();
  assert.deepEqual(expected('scanned-ifs.ts'), ['atomic-acquire@3004:18']);
  assert.deepEqual(expected('scanned-array.ts'), ['atomic-acquire@4:20']);

  const client = await open(ws);
  for (const file of ['scanned-ifs.ts', 'scanned-array.ts']) {
    assert.deepEqual(where(await client.waitForDiagnostics(ws.uriOf(file), (d) => d.length > 0, 30_000)), expected(file), file);
  }
  const uri = ws.uriOf('open-ifs.ts');
  client.open(uri, nestedIfs(3000));
  assert.deepEqual(where(await client.waitForDiagnostics(uri, (d) => d.length > 0, 30_000)), ['atomic-acquire@3004:18']);
  assert.ok(client.logs.some((l) => l.includes('open-ifs.ts') && /Maximum call stack size exceeded/.test(l)), 'the first attempt did overflow');
  const [diagnostic] = client.diagnostics.get(uri)!.diagnostics;
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostic!.range, context: { diagnostics: [diagnostic] } });
  assert.ok(actions.some((a) => a.title === 'Disable atomic-acquire for this line'), JSON.stringify(actions.map((a) => a.title)));
});

test('a file no stack can take gets a diagnostic at its top saying it was not analysed', async () => {
  const ws = tempWorkspace('deeper');
  cleanup.push(() => ws.remove());
  const client = await open(ws);
  const uri = ws.uriOf('hopeless.ts');
  client.open(uri, `// lock: redis.del(key)\nexport const x = ${'('.repeat(900_000)}1${')'.repeat(900_000)};\n`);
  const [notice, ...rest] = await client.waitForDiagnostics(uri, (d) => d.length > 0, 60_000);
  assert.deepEqual(rest, []);
  assert.deepEqual(notice!.range.start, { line: 0, character: 0 });
  assert.equal(notice!.source, 'lockwise');
  assert.match(String(notice!.message), /^Lockwise could not analyse this file \(the analyzer failed even with a 256 MB stack: Maximum call stack size exceeded\), so it shows no lock findings for it/);
});

test('a config that is a folder, or with an ignore glob that cannot be compiled, is a diagnostic on the config; files are still analysed', async () => {
  const folder = tempWorkspace('cfg-folder', { 'src/orders.ts': IOREDIS_ORDERS });
  mkdirSync(folder.file('lockwise.config.json'));
  const glob = tempWorkspace('cfg-glob', { 'src/orders.ts': IOREDIS_ORDERS, 'lockwise.config.json': JSON.stringify({ ignore: ['*a'.repeat(50_000)] }) });
  cleanup.push(() => folder.remove(), () => glob.remove());
  const client = await startServer({ folders: [{ uri: folder.uri, name: folder.name }, { uri: glob.uri, name: glob.name }] });
  cleanup.push(() => client.stop());
  for (const [ws, message] of [
    [folder, /^cannot read the file \(EISDIR: it is a folder\)$/],
    [glob, /^the "ignore" glob "\*a\*a.*" cannot be compiled \(Invalid regular expression/],
  ] as const) {
    const uri = ws.uriOf('src/orders.ts');
    client.open(uri, IOREDIS_ORDERS);
    assert.ok((await client.waitForDiagnostics(uri, (d) => d.length > 0)).length > 0, 'the file is analysed with the settings alone');
    const [problem] = await client.waitForDiagnostics(ws.uriOf('lockwise.config.json'), (d) => d.length > 0);
    assert.match(String(problem!.message), message);
    const line = IOREDIS_ORDERS.split('\n').findIndex((l) => l.includes('redis.setnx('));
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line, character: IOREDIS_ORDERS.split('\n')[line]!.indexOf('redis.setnx(') + 8 } });
    assert.match(JSON.stringify(hover?.contents), /lock:order:\*/, 'the hover on the acquire answers with its key glob');
  }
  assert.ok(client.alive);
});
