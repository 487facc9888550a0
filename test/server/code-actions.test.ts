// Open a file with lock misuse, wait for its diagnostics, then take every quick fix the server offers
// one by one: apply its edit, check the result type-checks, send it back and check the finding is gone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { applyWorkspaceEdit } from './helpers/apply-edit';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS, NODE_REDIS_REPORTS } from './helpers/samples';
import { typeErrors } from './helpers/typecheck';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;
let client: LspClient;

before(async () => {
  ws = tempWorkspace('actions', { 'src/orders.ts': IOREDIS_ORDERS, 'src/reports.ts': NODE_REDIS_REPORTS });
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

function codeActions(uri: string, diagnostic: Diagnostic, only?: string[]): Promise<CodeAction[]> {
  return client.request('textDocument/codeAction', {
    textDocument: { uri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic], only },
  });
}

/** Replaces the whole text; resolves to the diagnostics of that version. */
async function setText(uri: string, text: string): Promise<Diagnostic[]> {
  client.change(uri, [{ text }]);
  return client.waitForDiagnostics(uri);
}

const count = (diagnostics: Diagnostic[], code: unknown) => diagnostics.filter((d) => d.code === code).length;

for (const [file, original] of [
  ['src/orders.ts', IOREDIS_ORDERS],
  ['src/reports.ts', NODE_REDIS_REPORTS],
] as const) {
  test(`every quick fix on ${file} type-checks and removes its finding`, async () => {
    const uri = ws.uriOf(file);
    const path = ws.file(file);
    assert.deepEqual(typeErrors({ [path]: original }), [], 'the sample itself must type-check');

    client.open(uri, original);
    const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0);
    for (const d of diagnostics) {
      assert.equal(d.source, 'lockwise');
      assert.equal(typeof d.code, 'string');
      assert.equal(d.codeDescription?.href.endsWith(`/${d.code}.md`), true, String(d.code));
    }

    let applied = 0;
    for (const diagnostic of diagnostics) {
      const forThis = async () =>
        (await codeActions(uri, diagnostic, ['quickfix'])).filter((a) => a.diagnostics?.some((x) => x.code === diagnostic.code));
      const titles = (await forThis()).map((a) => a.title);
      assert.ok(titles.includes(`Disable ${diagnostic.code} for this line`), `no disable action for ${diagnostic.code}`);
      for (const title of titles) {
        // Asked again each time: an action is pinned to the version it was computed for.
        const action = (await forThis()).find((a) => a.title === title);
        assert.equal(action?.kind, 'quickfix');
        assert.ok(action.edit, `${title} has no edit`);
        const texts = new Map([[uri, original]]);
        applyWorkspaceEdit(action.edit, { texts, versions: new Map([[uri, client.version(uri) ?? 0]]) });
        const fixed = texts.get(uri) as string;
        assert.notEqual(fixed, original, `${title} changed nothing`);
        assert.deepEqual(typeErrors({ [path]: fixed }), [], `${title}:\n${fixed}`);

        const after = await setText(uri, fixed);
        assert.ok(
          count(after, diagnostic.code) < count(diagnostics, diagnostic.code),
          `${diagnostic.code} still reported after "${title}":\n${fixed}`,
        );
        applied++;
        await setText(uri, original);
      }
    }
    assert.ok(applied >= diagnostics.length, 'at least one action per finding');
    client.close(uri);
  });
}

test('a rule fix is the preferred quick fix; the disable action never is', async () => {
  const uri = ws.uriOf('src/orders.ts');
  client.open(uri, IOREDIS_ORDERS);
  try {
    const [first] = await client.waitForDiagnostics(uri, (d) => d.length > 0);
    const actions = await codeActions(uri, first);
    // One preferred fix for this finding (another finding on the same range has its own).
    const preferred = actions.filter((a) => a.isPreferred && a.diagnostics?.some((d) => d.code === first.code));
    assert.equal(preferred.length, 1, actions.map((a) => a.title).join(', '));
    assert.ok(actions.filter((a) => a.isPreferred).every((a) => !a.title.startsWith('Disable')));
  } finally {
    client.close(uri);
  }
});

test('disabling a second rule on the same line extends the existing comment', async () => {
  const uri = ws.uriOf('src/orders.ts');
  const lines = IOREDIS_ORDERS.split('\n');
  const delLine = lines.findIndex((l) => l.includes('redis.del('));
  // The DEL line already carries a directive for some other rule.
  lines.splice(delLine, 0, '    // lockwise-disable-next-line some-other-rule');
  const text = lines.join('\n');
  client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.range.start.line === delLine + 1));
  const target = diagnostics.find((x) => x.range.start.line === delLine + 1) as Diagnostic;
  const disable = (await codeActions(uri, target)).find((a) => a.title === `Disable ${target.code} for this line`);
  assert.ok(disable?.edit);
  const texts = new Map([[uri, text]]);
  applyWorkspaceEdit(disable.edit, { texts });
  const result = texts.get(uri) as string;
  assert.equal(result.split('\n')[delLine], `    // lockwise-disable-next-line some-other-rule, ${target.code}`);
  const after = await setText(uri, result);
  assert.ok(!after.some((d) => d.code === target.code && d.range.start.line === delLine + 1));
  client.close(uri);
});

test('a code action request for an unknown document or a range without findings answers with nothing', async () => {
  const unknown = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri: ws.uriOf('src/nowhere.ts') },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [] },
  });
  assert.deepEqual(unknown, []);
  const uri = ws.uriOf('src/orders.ts');
  client.open(uri, IOREDIS_ORDERS);
  await client.waitForDiagnostics(uri, (d) => d.length > 0);
  const none = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
    context: { diagnostics: [] },
  });
  assert.deepEqual(none, []);
  client.close(uri);
});
