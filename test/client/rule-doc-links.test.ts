// The client's rewrite of a diagnostic's code link: a Lockwise diagnostic as the server makes it gets the
// command URI that opens the doc as a markdown preview in VS Code; anything else is left alone. (What
// other LSP editors receive, the file: URI of the bundled doc, is checked against the bundled server by
// test/server/fix-all.test.ts; the click itself by test/e2e/diagnostic-links.e2e.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ruleDocCommandUri } from '../../client/src/rule-doc-links';
import { analyzeText } from '../../rules/analyze';
import { toDiagnostics } from '../../server/src/diagnostics';
import { SHOW_RULE_DOC_COMMAND } from '../../server/src/protocol';

const SETNX_THEN_DEL = `import Redis from 'ioredis';
const redis = new Redis();
export async function job(token: string) {
  if (!(await redis.setnx('lock:job', token))) return;
  await redis.expire('lock:job', 30);
  await redis.del('lock:job');
}
`;

/** The command and its arguments, read back the way VS Code's command opener reads a command URI. */
function commandOf(uri: string): { command: string; args: unknown } {
  const url = new URL(uri);
  assert.equal(url.protocol, 'command:');
  return { command: url.pathname, args: JSON.parse(decodeURIComponent(url.search.slice(1))) };
}

test('the code link of every Lockwise diagnostic becomes the command that previews its rule doc', () => {
  const findings = analyzeText('job.ts', SETNX_THEN_DEL).findings;
  const diagnostics = toDiagnostics('file:///work/job.ts', SETNX_THEN_DEL, findings);
  assert.deepEqual([...new Set(diagnostics.map((d) => d.code))].sort(), ['atomic-acquire', 'owner-checked-release']);
  for (const d of diagnostics) {
    assert.ok(d.codeDescription?.href.endsWith(`/${String(d.code)}.md`), 'the server links the doc itself');
    const target = ruleDocCommandUri(d.source, d.code!);
    assert.ok(target, `a link for ${String(d.code)}`);
    assert.deepEqual(commandOf(target), { command: SHOW_RULE_DOC_COMMAND, args: [d.code] });
  }
});

test('diagnostics of other sources, numeric codes and codes that are no rule id keep their link', () => {
  assert.equal(ruleDocCommandUri('ts', 'owner-checked-release'), undefined);
  assert.equal(ruleDocCommandUri(undefined, 'owner-checked-release'), undefined);
  assert.equal(ruleDocCommandUri('lockwise', 2304), undefined);
  for (const code of ['../../etc/passwd', 'Owner-Checked', 'a"]', '']) {
    assert.equal(ruleDocCommandUri('lockwise', code), undefined, code);
  }
});
