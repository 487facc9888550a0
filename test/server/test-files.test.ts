// Test files are left out in the editor as in `lockwise check`, unless the folder's config asks for them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

/** A Mocha suite in a `test` folder: test code by its text, not its name. */
const SUITE = `${IOREDIS_ORDERS}\ndeclare function describe(name: string, body: () => void): void;\ndeclare function it(name: string, body: () => void): void;\ndescribe('orders', () => {\n  it('locks', () => undefined);\n});\n`;

let skipping: TempWorkspace;
let checking: TempWorkspace;
let client: LspClient;

before(async () => {
  skipping = tempWorkspace('tests-skip', { 'src/orders.ts': IOREDIS_ORDERS, 'src/orders.spec.ts': IOREDIS_ORDERS, 'test/orders.ts': SUITE });
  checking = tempWorkspace('tests-check', { 'src/orders.spec.ts': IOREDIS_ORDERS, 'lockwise.config.json': JSON.stringify({ tests: 'check' }) });
  client = await startServer({ folders: [{ uri: skipping.uri, name: skipping.name }, { uri: checking.uri, name: checking.name }] });
});

after(async () => {
  await client?.stop();
  skipping?.remove();
  checking?.remove();
});

test('an open test file gets no diagnostics by default; its neighbour does', async () => {
  client.open(skipping.uriOf('src/orders.spec.ts'), IOREDIS_ORDERS);
  client.open(skipping.uriOf('src/orders.ts'), IOREDIS_ORDERS);
  await client.waitForDiagnostics(skipping.uriOf('src/orders.ts'), (d) => d.length > 0);
  const spec = await client.waitForDiagnostics(skipping.uriOf('src/orders.spec.ts'), () => true);
  assert.deepEqual(spec, []);
});

test('an open suite in a test folder (describe and it in its text) gets no diagnostics by default', async () => {
  client.open(skipping.uriOf('src/orders.ts'), IOREDIS_ORDERS);
  await client.waitForDiagnostics(skipping.uriOf('src/orders.ts'), (d) => d.length > 0);
  client.open(skipping.uriOf('test/orders.ts'), SUITE);
  const suite = await client.waitForDiagnostics(skipping.uriOf('test/orders.ts'), () => true);
  assert.deepEqual(suite, []);
});

test('"tests": "check" in the folder config lints its test files', async () => {
  client.open(checking.uriOf('src/orders.spec.ts'), IOREDIS_ORDERS);
  await client.waitForDiagnostics(checking.uriOf('src/orders.spec.ts'), (d) => d.some((x) => x.code === 'atomic-acquire'));
});
