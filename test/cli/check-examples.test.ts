// `lockwise check examples/` with the project-wide model, as the README's first command runs it: the
// mistaken files trigger exactly what examples/README.md lists (the same as each file analysed alone,
// test/examples.test.ts), and nothing fires in src/safe/. A project-level reading that the per-file
// analysis does not make (a client type taken from another module) must not add findings here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from 'node:path';
import { EXPECTED } from '../helpers/example-findings';
import { checkJson } from './cli-process';

test('lockwise check examples/ reports per file what examples/README.md lists, and nothing in src/safe/', () => {
  const { report } = checkJson(['examples'], resolve('.'));
  const found: Record<string, Record<string, number>> = {};
  for (const f of report.findings) {
    const file = f.file.replace(/^examples\/src\//, '');
    (found[file] ??= {})[f.rule] = (found[file]?.[f.rule] ?? 0) + 1;
  }
  assert.deepEqual(found, EXPECTED);
});
