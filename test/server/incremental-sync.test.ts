// Incremental document sync through the real server: seeded random edits (insertions, deletions,
// replacements, several changes in one notification, whole-text changes) applied to the example files.
// Whenever the test waits, and at the end, the diagnostics must be exactly those a fresh open of the
// same text gets. Changes sent without waiting are taken together by the server; waiting makes it
// analyse the intermediate texts, each re-parsing the server's kept tree across the changes since.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { startServer, type LspClient } from './helpers/lsp-client';
import { applyEdit, exampleFiles, lspChange, randomEdit, seeded } from './helpers/random-edits';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const SEED = 7301;
const NOTIFICATIONS = 16;

let ws: TempWorkspace;
let client: LspClient;
let references = 0;

before(async () => {
  ws = tempWorkspace('incremental');
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

/** Diagnostics without the document's own URI, to compare two documents' results. */
const portable = (ds: Diagnostic[]) =>
  ds.map((d) => ({ ...d, relatedInformation: d.relatedInformation?.map((r) => ({ range: r.location.range, message: r.message })) }));

/** What a freshly opened document with this text gets. */
async function fresh(text: string): Promise<Diagnostic[]> {
  const uri = ws.uriOf(`reference-${references++}.ts`);
  client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri);
  client.close(uri);
  return diagnostics;
}

/** Compares; returns how many diagnostics were compared. */
async function sameAsFresh(uri: string, text: string, where: string): Promise<number> {
  const live = await client.waitForDiagnostics(uri);
  assert.deepEqual(portable(live), portable(await fresh(text)), where);
  return live.length;
}

test('random edits through didChange end with the diagnostics a fresh open of the final text gets', async () => {
  const random = seeded(SEED);
  let compared = 0;
  for (const [name, original] of exampleFiles()) {
    const uri = ws.uriOf(name.replaceAll('/', '-'));
    let text = original;
    client.open(uri, text);
    for (let n = 0; n < NOTIFICATIONS; n++) {
      if (n === 8) {
        // The whole text at once (full sync), first one that cannot hold lock code, then the old one.
        client.change(uri, [{ text: 'export const plain = 1;\n' }]);
        await sameAsFresh(uri, 'export const plain = 1;\n', `${name}: whole text without lock code`);
        client.change(uri, [{ text }]);
        continue;
      }
      const changes = [];
      for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
        const edit = randomEdit(text, random);
        changes.push(lspChange(text, edit));
        text = applyEdit(text, edit);
      }
      client.change(uri, changes);
      if (random() < 0.75) compared += await sameAsFresh(uri, text, `${name}, notification ${n}`);
    }
    compared += await sameAsFresh(uri, text, `${name}, final text`);
    client.close(uri);
  }
  assert.ok(compared > 20, `only ${compared} diagnostics compared: the edits left too little lock misuse`);
});
