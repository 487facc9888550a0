// The editor side of fixes beyond one quick fix: `source.fixAll.lockwise` (what codeActionsOnSave
// runs) applies only the unattended-safe fixes; a finding with no safe fix shows a disabled action with
// the reason; every finding offers its rule's documentation when the client has the command.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { analyzeText } from '../../rules/analyze';
import { allRules } from '../../rules/index';
import { applyWorkspaceEdit } from './helpers/apply-edit';
import { CAPABILITIES, startServer, type LspClient } from './helpers/lsp-client';
import { typeErrors } from './helpers/typecheck';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

// Unattended-safe findings (atomic-acquire, owner-checked-release with a visible token) next to ones
// that are not (require-ttl adds a TTL a person must choose) and one with no fix at all.
const SERVICE = `import Redis from 'ioredis';

const redis = new Redis();

export async function charge(id: string, token: string): Promise<void> {
  const key = \`lock:charge:\${id}\`;
  const ok = await redis.setnx(key, token);
  if (!ok) return;
  await redis.expire(key, 30);
  try {
    console.log('charging', id);
  } finally {
    await redis.del(key);
  }
}

export async function restock(sku: string, token: string): Promise<void> {
  const key = \`lock:stock:\${sku}\`;
  if (!(await redis.set(key, token, 'NX'))) return;
  try {
    console.log('restocking', sku);
  } finally {
    await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token);
  }
}

export async function releaseJob(id: string): Promise<void> {
  await redis.del(\`lock:job:\${id}\`);
}
`;

let ws: TempWorkspace;
let client: LspClient;

before(async () => {
  ws = tempWorkspace('fixall', { 'src/service.ts': SERVICE });
  const capabilities = { ...CAPABILITIES, textDocument: { ...CAPABILITIES.textDocument, codeAction: { ...CAPABILITIES.textDocument?.codeAction, disabledSupport: true } } };
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }], capabilities, initializationOptions: { ruleDocCommand: true } });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

const rulesOf = (text: string) => analyzeText('service.ts', text).findings.map((f) => f.rule).sort();

test('source.fixAll.lockwise applies the unattended fixes only, and the result type-checks', async () => {
  const uri = ws.uriOf('src/service.ts');
  client.open(uri, SERVICE);
  await client.waitForDiagnostics(uri, (d) => d.length > 0);
  const actions: CodeAction[] = await client.request('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['source.fixAll'] },
  });
  assert.deepEqual(actions.map((a) => a.kind), ['source.fixAll.lockwise']);
  const texts = new Map([[uri, SERVICE]]);
  applyWorkspaceEdit(actions[0].edit!, { texts, versions: new Map([[uri, client.version(uri) ?? 0]]) });
  const fixed = texts.get(uri)!;
  assert.deepEqual(typeErrors({ [ws.file('src/service.ts')]: fixed }), []);

  const unattended = new Set(allRules.filter((r) => r.unattendedFixes).map((r) => r.id));
  const before = rulesOf(SERVICE);
  const left = rulesOf(fixed);
  assert.ok(before.includes('atomic-acquire') && !left.includes('atomic-acquire'), 'the atomic-acquire fix is applied');
  assert.ok(left.includes('require-ttl'), 'the require-ttl fix changes what the lock does: it is left for a person');
  for (const rule of before.filter((r) => !left.includes(r))) assert.ok(unattended.has(rule), `${rule} was fixed unattended`);

  // Nothing asked for by kind: no source action on a cursor move.
  const plain: CodeAction[] = await client.request('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [] },
  });
  assert.ok(plain.every((a) => !a.kind?.startsWith('source')));
});

test('a finding with no safe fix shows a disabled action with the reason, and every finding its rule doc', async () => {
  const uri = ws.uriOf('src/service.ts');
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0);
  const release = diagnostics.find((d) => d.code === 'owner-checked-release' && d.range.start.line === SERVICE.split('\n').findIndex((l) => l.includes('lock:job:'))) as Diagnostic;
  assert.ok(release, 'the DEL in releaseJob is reported');
  const actions: CodeAction[] = await client.request('textDocument/codeAction', {
    textDocument: { uri },
    range: release.range,
    context: { diagnostics: [release], only: ['quickfix'] },
  });
  const disabled = actions.filter((a) => a.disabled);
  assert.equal(disabled.length, 1, JSON.stringify(actions.map((a) => a.title)));
  assert.match(disabled[0].disabled!.reason, /No automatic fix: this file does not acquire the lock/);
  assert.equal(disabled[0].edit, undefined);
  const doc = actions.find((a) => a.title === 'Show rule documentation: owner-checked-release');
  assert.deepEqual(doc?.command?.arguments, ['owner-checked-release']);
  assert.equal(doc?.command?.command, 'lockwise.showRuleDocumentation');
});

test('diagnostics link the rule doc shipped next to the server bundle', async () => {
  const diagnostics = await client.waitForDiagnostics(ws.uriOf('src/service.ts'), (d) => d.length > 0);
  for (const d of diagnostics) assert.match(d.codeDescription!.href, new RegExp(`^file://.*/rules/${String(d.code)}\\.md$`));
});
