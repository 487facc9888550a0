// `--format sarif` against the SARIF 2.1.0 JSON schema (draft-04, shipped in the @microsoft/jest-sarif
// npm package; nothing is fetched), with findings, related locations, fixes, a skipped file, a
// baseline and a file outside the current folder.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { makeTree, NO_LOCKS, runCli, SETNX_THEN_EXPIRE, type Tree } from './cli-process';

const schemaFile = join(createRequire(import.meta.url).resolve('@microsoft/jest-sarif/package.json'), '..', 'lib/schemas/sarif-2.1.0-rtm.5.json');
const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
// The schema's language pattern is not valid in Unicode mode (a stray ']'), which Ajv uses by default.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

let tree: Tree;
before(() => {
  tree = makeTree({ 'app/src/lock.ts': SETNX_THEN_EXPIRE, 'app/src/plain.ts': NO_LOCKS, 'app/big.js': `//${'x'.repeat(2 * 1024 * 1024)}`, 'other/lock.ts': SETNX_THEN_EXPIRE });
});
after(() => tree.remove());

function sarifOf(args: string[]): unknown {
  const run = runCli(['check', '--format', 'sarif', ...args], join(tree.root, 'app'));
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return JSON.parse(run.stdout);
}

test('the validator rejects what breaks the schema', () => {
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] }), false, 'a driver needs a name');
  assert.equal(validate({ version: '2.0.0', runs: [] }), false);
});

test('lockwise check --format sarif is valid SARIF 2.1.0', () => {
  const log = sarifOf(['.', '../other']) as { runs: { results: unknown[] }[] };
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
  assert.equal(log.runs[0].results.length, 2);

  runCli(['check', '--update-baseline', '--baseline', 'lockwise-baseline.json'], join(tree.root, 'app'));
  const baselined = sarifOf(['--baseline', 'lockwise-baseline.json']);
  assert.ok(validate(baselined), JSON.stringify(validate.errors, null, 2));
});
