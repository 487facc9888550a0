// The background scan: work-done progress, .gitignore (nested too), skipped folders, config ignores,
// the size limit, lockwise/checkWorkspace, and watched-file changes afterwards.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { CheckWorkspaceResult } from '../../server/src/protocol';
import { waitFor } from '../helpers/wait';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS, NODE_REDIS_REPORTS, PLAIN } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;
let client: LspClient;

const SKIPPED = [
  'generated/orders.ts', // root .gitignore
  'sub/skip-me.ts', // nested .gitignore
  'node_modules/pkg/orders.ts',
  'dist/orders.js',
  'vendor/orders.ts', // lockwise.config.json "ignore"
  'big/orders.ts', // over lockwise.maxFileSizeKb
];

before(async () => {
  ws = tempWorkspace('scan', {
    'src/orders.ts': IOREDIS_ORDERS,
    'src/plain.ts': PLAIN,
    '.gitignore': 'generated/\n',
    'generated/orders.ts': IOREDIS_ORDERS,
    'sub/.gitignore': 'skip-me.ts\n',
    'sub/skip-me.ts': IOREDIS_ORDERS,
    'sub/kept.ts': NODE_REDIS_REPORTS,
    'node_modules/pkg/orders.ts': IOREDIS_ORDERS,
    'dist/orders.js': IOREDIS_ORDERS.replace(/: (string|Promise<void>)/g, ''),
    'vendor/orders.ts': IOREDIS_ORDERS,
    'lockwise.config.json': JSON.stringify({ ignore: ['vendor/**'] }),
    'big/orders.ts': `${IOREDIS_ORDERS}\n// ${'x'.repeat(3000)}\n`,
  });
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }], settings: { '': { maxFileSizeKb: 2 } } });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

test('the scan on start reports progress and publishes findings of files nobody opened', async () => {
  const end = await waitFor(() => client.progress.find((p) => p.value.kind === 'end'), 'the scan to end');
  const ofScan = client.progress.filter((p) => p.token === end.token).map((p) => p.value.kind);
  assert.equal(ofScan[0], 'begin');
  assert.equal(ofScan.at(-1), 'end');
  assert.match(client.progress.find((p) => p.value.kind === 'begin')?.value.title ?? '', /Lockwise/);

  assert.ok((client.diagnostics.get(ws.uriOf('src/orders.ts'))?.diagnostics.length ?? 0) > 0);
  assert.ok((client.diagnostics.get(ws.uriOf('sub/kept.ts'))?.diagnostics.length ?? 0) > 0);
  assert.equal(client.diagnostics.get(ws.uriOf('src/plain.ts'))?.diagnostics.length ?? 0, 0);
  for (const rel of SKIPPED) assert.equal(client.diagnostics.has(ws.uriOf(rel)), false, rel);
});

test('lockwise/checkWorkspace scans again and answers with counts', async () => {
  const before = client.progress.filter((p) => p.value.kind === 'end').length;
  const result = await client.request<CheckWorkspaceResult>('lockwise/checkWorkspace', {});
  // src/orders.ts, src/plain.ts, sub/kept.ts analysed; vendor/ (config) and big/ (size) visited, not analysed.
  assert.equal(result.files, 5);
  assert.equal(result.notAnalysed, 2);
  assert.ok(result.findings >= 2);
  assert.equal(result.cancelled, false);
  assert.equal(client.progress.filter((p) => p.value.kind === 'end').length, before + 1);
});

function watched(rel: string, type: 1 | 2 | 3): void {
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uriOf(rel), type }] });
}

test('a file created, fixed and deleted on disk updates its diagnostics', async () => {
  const uri = ws.write('src/new.ts', NODE_REDIS_REPORTS);
  watched('src/new.ts', 1);
  await waitFor(() => (client.diagnostics.get(uri)?.diagnostics.length ?? 0) > 0, 'diagnostics of the new file');

  ws.write('src/new.ts', PLAIN);
  watched('src/new.ts', 2);
  await waitFor(() => client.diagnostics.get(uri)?.diagnostics.length === 0, 'the fixed file to be clean');

  ws.write('src/new.ts', NODE_REDIS_REPORTS);
  watched('src/new.ts', 2);
  await waitFor(() => (client.diagnostics.get(uri)?.diagnostics.length ?? 0) > 0, 'the findings to come back');
  rmSync(ws.file('src/new.ts'));
  watched('src/new.ts', 3);
  await waitFor(() => client.diagnostics.get(uri)?.diagnostics.length === 0, 'the deleted file to be cleared');
});

test('an open document keeps its live diagnostics; closing it shows the file on disk again', async () => {
  const uri = ws.uriOf('src/orders.ts');
  client.open(uri, PLAIN);
  await client.waitForDiagnostics(uri, (d) => d.length === 0);
  client.close(uri);
  await waitFor(() => (client.diagnostics.get(uri)?.diagnostics.length ?? 0) > 0, 'the disk findings after close');
});

test('a folder inside a repository honours the .gitignore files above it, up to the repository root', async () => {
  const repo = tempWorkspace('scan-repo', {
    '.gitignore': 'packages/app/legacy/\n',
    'packages/app/src/orders.ts': IOREDIS_ORDERS,
    'packages/app/legacy/orders.ts': IOREDIS_ORDERS,
  });
  const folder = { uri: repo.uriOf('packages/app'), name: 'app' };
  const nested = await startServer({ folders: [folder] });
  try {
    const result = await nested.request<CheckWorkspaceResult>('lockwise/checkWorkspace', {});
    assert.equal(result.files, 1);
    assert.ok((nested.diagnostics.get(repo.uriOf('packages/app/src/orders.ts'))?.diagnostics.length ?? 0) > 0);
    assert.equal(nested.diagnostics.has(repo.uriOf('packages/app/legacy/orders.ts')), false);
  } finally {
    await nested.stop();
    repo.remove();
  }
});
