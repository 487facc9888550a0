// Exit codes of `lockwise check`: 0 clean, 1 findings, 2 usage and configuration errors.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkJson, makeTree, NO_LOCKS, runCli, SETNX_THEN_EXPIRE, type Tree } from './cli-process';

let tree: Tree;
before(() => {
  tree = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE, 'src/plain.ts': NO_LOCKS, 'clean/plain.ts': NO_LOCKS });
});
after(() => tree.remove());

test('exits 0 without findings and 1 with an error finding', () => {
  const clean = checkJson(['clean'], tree.root);
  assert.equal(clean.run.status, 0);
  assert.deepEqual(clean.report.findings, []);

  const dirty = checkJson([], tree.root);
  assert.equal(dirty.run.status, 1, dirty.run.stdout);
  assert.deepEqual(
    dirty.report.findings.map((f) => `${f.file} ${f.rule} ${f.severity}`),
    ['src/lock.ts atomic-acquire error'],
  );
});

test('--rule changes severities; warnings count against --max-warnings; --quiet drops them', () => {
  const off = checkJson(['--rule', 'atomic-acquire=off'], tree.root);
  assert.equal(off.run.status, 0);
  assert.deepEqual(off.report.findings, []);

  const warning = ['--rule=atomic-acquire=warning'];
  const warned = checkJson(warning, tree.root);
  assert.equal(warned.run.status, 1);
  assert.deepEqual(
    warned.report.findings.map((f) => f.severity),
    ['warning'],
  );
  assert.equal(checkJson([...warning, '--max-warnings', '1'], tree.root).run.status, 0);
  assert.equal(checkJson([...warning, '--max-warnings', '0'], tree.root).run.status, 1);

  const quiet = checkJson([...warning, '--quiet'], tree.root);
  assert.equal(quiet.run.status, 0);
  assert.deepEqual(quiet.report.findings, []);
});

test('usage errors exit 2 with a message on stderr', () => {
  const cases: [string[], RegExp][] = [
    [['--rule', 'no-such-rule=off'], /unknown rule "no-such-rule" \(known rules: .*atomic-acquire/],
    [['--rule', 'atomic-acquire=fatal'], /unknown severity "fatal"/],
    [['--rule', 'atomic-acquire'], /expects <id>=<severity>/],
    [['--format', 'xml'], /unknown format "xml"/],
    [['--max-warnings', '-1'], /--max-warnings/],
    [['--no-such-option'], /Unknown option '--no-such-option'/],
    [['missing-folder'], /no such file or folder: missing-folder/],
  ];
  for (const [args, message] of cases) {
    const run = runCli(['check', ...args], tree.root);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message);
    assert.equal(run.stdout, '');
  }
  const help = runCli(['check', '--help'], tree.root);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--max-warnings/);
});

test('a broken config is exit 2 naming the file and the problem; --config picks one file', () => {
  const project = makeTree({ 'src/lock.ts': SETNX_THEN_EXPIRE });
  try {
    const configFile = join(project.root, 'lockwise.config.json');
    const broken: [string, RegExp][] = [
      ['{ "rules": ', /lockwise\.config\.json: not valid JSON/],
      ['{ "rulez": {} }', /lockwise\.config\.json: unknown key "rulez"/],
      ['{ "rules": { "nope": "off" } }', /lockwise\.config\.json: unknown rule "nope"/],
      ['{ "rules": { "atomic-acquire": "loud" } }', /lockwise\.config\.json: rule "atomic-acquire" has severity "loud"/],
    ];
    for (const [text, message] of broken) {
      writeFileSync(configFile, text);
      const run = runCli(['check'], project.root);
      assert.equal(run.status, 2, text);
      assert.match(run.stderr, message);
    }

    writeFileSync(configFile, JSON.stringify({ rules: { 'atomic-acquire': 'off' } }));
    assert.equal(runCli(['check'], project.root).status, 0, 'the config turns the rule off');
    const other = join(project.root, 'strict.json');
    writeFileSync(other, JSON.stringify({ rules: { 'atomic-acquire': 'error' } }));
    assert.equal(runCli(['check', '--config', 'strict.json'], project.root).status, 1, '--config replaces the nearest config');
    const missing = runCli(['check', '--config', 'absent.json'], project.root);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /absent\.json: cannot read the file \(ENOENT\)/);
  } finally {
    project.remove();
  }
});
