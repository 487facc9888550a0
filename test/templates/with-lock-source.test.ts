// The helper as a source file users receive: its token and fence-key formats, the committed .js
// being derived from the .ts, strict type-checking in user-like configurations against the real
// client types, and Lockwise's own analyzer having nothing to say about it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { analyzeText } from '../../rules/analyze';
import { SERVER_KINDS } from '../../rules/config';
import { forServer } from '../../server/src/code-actions/with-lock-server';
import { createLockToken, fenceKeyFor, parseLockToken } from '../../rules/templates/with-lock';

const TEMPLATE_TS = join('rules', 'templates', 'with-lock.ts');
const TEMPLATE_JS = join('rules', 'templates', 'with-lock.js');
const BUILD_JS = join('rules', 'templates', 'build-js.mjs');

test('tokens are lw1:<host>:<pid>:<32 hex>, unique, and decode back', () => {
  const tokens = new Set(Array.from({ length: 1000 }, () => createLockToken()));
  assert.equal(tokens.size, 1000);
  const [token = ''] = tokens;
  assert.match(token, /^lw1:[A-Za-z0-9._-]+:\d+:[0-9a-f]{32}$/);
  const parsed = parseLockToken(token);
  assert.equal(parsed?.pid, process.pid);
  assert.equal(token, `lw1:${parsed?.host}:${parsed?.pid}:${parsed?.nonce}`);
  assert.deepEqual(parseLockToken('lw1:web-1:42:0123456789abcdef0123456789abcdef'), {
    host: 'web-1',
    pid: 42,
    nonce: '0123456789abcdef0123456789abcdef',
  });
  const hex = '0123456789abcdef0123456789abcdef';
  const notOurs = [hex, 'lw1:h:1:0123', `lw1:h:x:${hex}`, `lw1:h:1:${hex.toUpperCase()}`, `lw2:h:1:${hex}`, `lw1::1:${hex}`];
  for (const other of notOurs) {
    assert.equal(parseLockToken(other), undefined, other);
  }
});

test('the fence key shares the lock key’s Cluster slot', () => {
  assert.equal(fenceKeyFor('lock:order:7'), '{lock:order:7}:fence');
  assert.equal(fenceKeyFor('lock:{order}:7'), 'lock:{order}:7:fence');
  // A lone '{' is part of the name; '{}' is no tag, and an appended suffix would change the slot.
  assert.equal(fenceKeyFor('lock:{7'), '{lock:{7}:fence');
  assert.throws(() => fenceKeyFor('lock:{}:7'), TypeError);
  assert.throws(() => fenceKeyFor('lock:7}'), TypeError);
});

test('the committed with-lock.js is what build-js.mjs makes of with-lock.ts', () => {
  const check = spawnSync(process.execPath, [BUILD_JS, '--check'], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  const js = readFileSync(TEMPLATE_JS, 'utf8');
  assert.match(js, /^export async function withLock\(client, key, options, work\)/m);
  assert.match(js, /\/\/ Everything is caught: a timer callback must never throw/, 'comments are kept');
  assert.doesNotMatch(js, /interface |: Promise<|__lockwise_blank_line__/);

  // And the check does catch a stale file.
  const dir = join('test', '.tmp', `build-js-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const stale = join(dir, 'with-lock.js');
    writeFileSync(stale, js.replace('ttlMs / 3', 'ttlMs / 2'));
    const staleCheck = spawnSync(process.execPath, [BUILD_JS, '--check', TEMPLATE_TS, stale], { encoding: 'utf8' });
    assert.equal(staleCheck.status, 1);
    assert.match(staleCheck.stderr, /not up to date/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The real ioredis / node-redis clients and clusters are passed as LockClient in clients.ts and
// with-lock-cluster.test.ts, so `tsc -b` proves they fit. This checks the helper on its own under the
// strictest flags users turn on, with the DOM library too (where setTimeout returns a number).
test('type-checks alone under the strictest user settings, DOM library included, for every "server"', () => {
  const dir = join('test', '.tmp', `strict-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const files = SERVER_KINDS.map((server) => {
    const file = join(dir, `with-lock-${server}.ts`);
    writeFileSync(file, forServer(readFileSync(TEMPLATE_TS, 'utf8'), server));
    return file;
  });
  const program = ts.createProgram(files, {
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    noPropertyAccessFromIndexSignature: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});

test("Lockwise's analyzer reports nothing on the helper, in either language, for every \"server\"", () => {
  for (const [file, text] of [
    [TEMPLATE_TS, readFileSync(TEMPLATE_TS, 'utf8')],
    [TEMPLATE_JS, readFileSync(TEMPLATE_JS, 'utf8')],
  ] as const) {
    for (const server of SERVER_KINDS) {
      const result = analyzeText(file, forServer(text, server));
      assert.deepEqual(result.findings.map((f) => `${f.rule}: ${f.message}`), [], `${file} (${server})`);
      assert.deepEqual(result.ruleFailures, [], `${file} (${server})`);
    }
  }
});

test('the template says its server on one line, which forServer sets and nothing else', () => {
  for (const file of [TEMPLATE_TS, TEMPLATE_JS]) {
    const text = readFileSync(file, 'utf8');
    assert.equal(forServer(text, 'redis'), text, `${file} is the "redis" helper as it stands`);
    for (const server of ['redis-8.4', 'valkey-9'] as const) {
      const created = forServer(text, server);
      const changed = created.split('\n').filter((line, i) => line !== text.split('\n')[i]);
      assert.deepEqual(changed, [file.endsWith('.ts') ? `const SERVER: LockServer = '${server}';` : `const SERVER = '${server}';`], file);
    }
  }
  assert.throws(() => forServer('export const x = 1;\n', 'valkey-9'), /no SERVER line/);
});
