// package.json contributions against the code: every contributed command is registered by the
// client, every server setting is contributed with the default the server uses, and the other way
// round. The Redis Locks view's own `lockwise.redis.*` settings are checked by its tests.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SHOW_RULE_DOC_COMMAND } from '../../server/src/protocol';
import { SETTING_SPECS } from '../../server/src/settings';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
// Settings come in groups (Analysis, Redis connection, Redis Locks view), each with its properties.
const properties: Record<string, Record<string, unknown>> = Object.assign({}, ...pkg.contributes.configuration.map((g: { properties: object }) => g.properties));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}
const clientCode = sources(join(ROOT, 'client', 'src')).map((f) => readFileSync(f, 'utf8')).join('\n');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

// Settings read by the server's settings module, plus the one vscode-languageclient reads by client id.
const serverKeys = Object.values(SETTING_SPECS).map((s) => `lockwise.${s.key}`);
const CLIENT_LIBRARY_KEYS = ['lockwise.trace.server'];

test('every contributed command is registered in client code, under category Lockwise', () => {
  const commands: { command: string; category?: string }[] = pkg.contributes.commands;
  assert.ok(commands.length > 0);
  for (const c of commands) {
    assert.match(c.command, /^lockwise\.[a-z][A-Za-z]*$/, c.command);
    assert.equal(c.category, 'Lockwise', c.command);
    assert.ok(clientCode.includes(`'${c.command}'`), `${c.command} is contributed but never named in client/src`);
  }
});

test('the commands extension.ts registers are contributed', () => {
  const registered = [...read('client/src/extension.ts').matchAll(/'(lockwise\.[A-Za-z]+)'/g)].map((m) => m[1]);
  assert.deepEqual(registered.sort(), ['lockwise.checkWorkspace', 'lockwise.restartServer', 'lockwise.showOutput', 'lockwise.showRuleDocumentation']);
  for (const id of registered) {
    assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === id), `${id} not contributed`);
  }
  // The server's "Show rule documentation" action runs the client's command.
  assert.ok(registered.includes(SHOW_RULE_DOC_COMMAND));
});

test('the rule docs and the walkthrough pages go into the package, and every walkthrough page exists', () => {
  const allowed = read('.vscodeignore').split('\n');
  assert.ok(allowed.includes('!rules/*.md') && allowed.includes('!docs/walkthrough/*.md'));
  const steps: { media: { markdown: string }; description: string }[] = pkg.contributes.walkthroughs.flatMap((w: { steps: unknown[] }) => w.steps);
  assert.ok(steps.length >= 5);
  for (const step of steps) assert.ok(existsSync(join(ROOT, step.media.markdown)), `${step.media.markdown} is missing`);
  const commandsInSteps = steps.flatMap((s) => [...s.description.matchAll(/\(command:(lockwise\.[A-Za-z.]+)/g)].map((m) => m[1]));
  for (const id of commandsInSteps.filter((c) => c !== 'lockwise.locks.focus')) {
    assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === id), `walkthrough runs ${id}, which is not contributed`);
  }
});

test('server settings and contributed settings match, with the same defaults', () => {
  for (const spec of Object.values(SETTING_SPECS)) {
    const key = `lockwise.${spec.key}`;
    const contributed = properties[key];
    assert.ok(contributed, `${key} is read by server/src/settings.ts but not contributed`);
    assert.deepEqual(contributed.default, spec.default, `${key} default`);
    const type = Array.isArray(spec.default) ? 'array' : typeof spec.default;
    assert.equal(contributed.type, type, `${key} type`);
  }
  const ours = Object.keys(properties).filter((k) => !k.startsWith('lockwise.redis.'));
  for (const key of ours) {
    assert.ok(
      serverKeys.includes(key) || CLIENT_LIBRARY_KEYS.includes(key),
      `${key} is contributed but nothing reads it`,
    );
  }
  for (const key of CLIENT_LIBRARY_KEYS) assert.ok(properties[key], `${key} not contributed`);
  // vscode-languageclient finds `<id>.trace.server` through the id the client is created with.
  assert.match(read('client/src/language-client.ts'), /CLIENT_ID = 'lockwise'/);
});

test('every contributed setting has a type, a default, a scope and a description', () => {
  for (const [key, p] of Object.entries(properties)) {
    for (const field of ['type', 'default', 'scope']) assert.ok(field in p, `${key} has no ${field}`);
    assert.ok(typeof (p.description ?? p.markdownDescription) === 'string', `${key} has no description`);
  }
});

test('the extension activates on the languages the client serves, and main is the client bundle', () => {
  const languages = [...read('client/src/language-client.ts').matchAll(/LANGUAGES = \[([^\]]*)\]/g)][0][1]
    .split(',')
    .map((s) => s.trim().replace(/'/g, ''));
  assert.deepEqual(languages.sort(), ['javascript', 'javascriptreact', 'typescript', 'typescriptreact']);
  for (const language of languages) assert.ok(pkg.activationEvents.includes(`onLanguage:${language}`), language);
  assert.equal(pkg.main, './dist/client.js');
});
