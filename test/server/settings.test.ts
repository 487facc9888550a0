// Settings reach the server through workspace/configuration (answered by the test client per
// folder), apply without a restart, and a folder's lockwise.config.json overrides them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DiagnosticSeverity } from 'vscode-languageserver-protocol';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

const RULE = 'atomic-acquire';

let plain: TempWorkspace;
let configured: TempWorkspace;
let client: LspClient;

before(async () => {
  plain = tempWorkspace('settings-a', { 'src/orders.ts': IOREDIS_ORDERS });
  configured = tempWorkspace('settings-b', {
    'src/orders.ts': IOREDIS_ORDERS,
    'lockwise.config.json': JSON.stringify({ rules: { [RULE]: 'info' } }),
  });
  client = await startServer({
    folders: [
      { uri: plain.uri, name: plain.name },
      { uri: configured.uri, name: configured.name },
    ],
  });
  client.open(plain.uriOf('src/orders.ts'), IOREDIS_ORDERS);
  client.open(configured.uriOf('src/orders.ts'), IOREDIS_ORDERS);
});

after(async () => {
  await client?.stop();
  plain?.remove();
  configured?.remove();
});

const severityOf = (uri: string, severity: DiagnosticSeverity | undefined) =>
  client.waitForDiagnostics(uri, (d) => d.filter((x) => x.code === RULE).every((x) => x.severity === severity) && d.some((x) => x.code === RULE) === (severity !== undefined));

function configurationChanged(settings: Record<string, unknown>): void {
  client.settings = settings;
  void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
}

test('settings are asked for per workspace folder', async () => {
  await severityOf(plain.uriOf('src/orders.ts'), DiagnosticSeverity.Error);
  assert.ok(client.configurationRequests.includes(plain.uri));
  assert.ok(client.configurationRequests.includes(configured.uri));
});

test("a folder's lockwise.config.json overrides the settings' severity", async () => {
  configurationChanged({ '': { rules: { [RULE]: 'warning' } } });
  await severityOf(plain.uriOf('src/orders.ts'), DiagnosticSeverity.Warning);
  await severityOf(configured.uriOf('src/orders.ts'), DiagnosticSeverity.Information);
});

test('per-folder settings apply to their folder only', async () => {
  configurationChanged({ '': {}, [plain.uri]: { rules: { [RULE]: 'off' } } });
  await severityOf(plain.uriOf('src/orders.ts'), undefined);
  await severityOf(configured.uriOf('src/orders.ts'), DiagnosticSeverity.Information);
});

test('lockwise.enable false clears the diagnostics; true brings them back', async () => {
  configurationChanged({ '': { enable: false } });
  await client.waitForDiagnostics(configured.uriOf('src/orders.ts'), (d) => d.length === 0);
  await client.waitForDiagnostics(plain.uriOf('src/orders.ts'), (d) => d.length === 0);
  configurationChanged({ '': { enable: true } });
  await severityOf(plain.uriOf('src/orders.ts'), DiagnosticSeverity.Error);
  await severityOf(configured.uriOf('src/orders.ts'), DiagnosticSeverity.Information);
});

test('an edited config file applies after the watched-files notification', async () => {
  await severityOf(configured.uriOf('src/orders.ts'), DiagnosticSeverity.Information);
  configured.write('lockwise.config.json', JSON.stringify({ rules: { [RULE]: 'off' } }));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: configured.uriOf('lockwise.config.json'), type: 2 }],
  });
  await severityOf(configured.uriOf('src/orders.ts'), undefined);
});

test('a broken config file is reported on that file, and the settings still apply', async () => {
  configured.write('lockwise.config.json', JSON.stringify({ rules: { 'no-such-rule': 'error' } }));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: configured.uriOf('lockwise.config.json'), type: 2 }],
  });
  const [problem] = await client.waitForDiagnostics(configured.uriOf('lockwise.config.json'), (d) => d.length === 1);
  assert.match(problem.message as string, /unknown rule "no-such-rule"/);
  assert.equal(problem.severity, DiagnosticSeverity.Error);
  await severityOf(configured.uriOf('src/orders.ts'), DiagnosticSeverity.Error);

  configured.write('lockwise.config.json', '{}');
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: configured.uriOf('lockwise.config.json'), type: 2 }],
  });
  await client.waitForDiagnostics(configured.uriOf('lockwise.config.json'), (d) => d.length === 0);
});

test('a file the config ignores gets no diagnostics', async () => {
  configured.write('lockwise.config.json', JSON.stringify({ ignore: ['src/**'] }));
  void client.connection.sendNotification('workspace/didChangeWatchedFiles', {
    changes: [{ uri: configured.uriOf('lockwise.config.json'), type: 2 }],
  });
  await client.waitForDiagnostics(configured.uriOf('src/orders.ts'), (d) => d.length === 0);
  await severityOf(plain.uriOf('src/orders.ts'), DiagnosticSeverity.Error);
});
