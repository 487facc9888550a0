// Bad input never crashes `lockwise check`: syntax errors, truncations, random insertions, deep
// nesting, huge lines, non-UTF-8 bytes, empty files are all analysed; line endings and a BOM do not
// shift positions.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkJson, makeTree, runCli, SETNX_THEN_EXPIRE } from './cli-process';

/** Deterministic PRNG (mulberry32) so a failing mutation can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INSERTIONS = ['{', '}', '(', ')', '`', '"', "'", '/*', '*/', '=>', 'await ', ';', '\n', '${', '<T>', '\u2028', '\ud83d'];

function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  switch (Math.floor(next() * 3)) {
    case 0:
      return text.slice(0, at); // truncated
    case 1:
      return text.slice(0, at) + INSERTIONS[Math.floor(next() * INSERTIONS.length)] + text.slice(at);
    default:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 20)); // a chunk deleted
  }
}

const SOURCE_FILE = /\.[cm]?[jt]sx?$/;

function exampleSources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : exampleSources(path);
    return SOURCE_FILE.test(name) && !name.includes('.d.') ? [readFileSync(path, 'utf8')] : [];
  });
}

test('mutated and pathological files are reported or analysed, never a crash', () => {
  const next = random(20240607);
  const seeds = [SETNX_THEN_EXPIRE, ...exampleSources('examples')];
  const files: Record<string, string | Buffer> = {
    'control.ts': SETNX_THEN_EXPIRE,
    'crlf.ts': SETNX_THEN_EXPIRE.replace(/\n/g, '\r\n'),
    'bom.ts': `\ufeff${SETNX_THEN_EXPIRE}`,
    'empty.ts': '',
    'syntax-error.ts': 'async function f( { await redis.setnx(key, 1)\n redis.expire(key',
    'deep-parens.ts': `const lock = ${'('.repeat(3000)}1${')'.repeat(3000)};\n`,
    'deep-binary.js': `const lock = redis.setnx(k, 1)${' + x'.repeat(20_000)};\nredis.expire(k, 1);\n`,
    'deep-blocks.ts': `${'{'.repeat(2000)}redis.setnx(k, 1); redis.expire(k, 1);${'}'.repeat(2000)}\n`,
    // Minified code: one 1 MB line with lock code in the middle.
    'huge-line.js': `${'var a=b+c;'.repeat(50_000)}redis.setnx(k,1);redis.expire(k,1);${'var a=b+c;'.repeat(50_000)}\n`,
    'latin1.js': Buffer.concat([Buffer.from('// caf'), Buffer.from([0xe9, 0xff, 0xfe]), Buffer.from(`\n${SETNX_THEN_EXPIRE}`)]),
  };
  for (let i = 0; i < 60; i++) {
    let text = seeds[i % seeds.length];
    for (let round = 1 + Math.floor(next() * 3); round > 0; round--) text = mutate(text, next);
    files[`mutated/m${i}.ts`] = text;
  }
  const tree = makeTree(files);
  try {
    const { run, report } = checkJson([], tree.root);
    assert.doesNotMatch(run.stderr, /internal error/);
    assert.equal(report.filesScanned, Object.keys(files).length);
    assert.deepEqual(report.errors, [], 'every file was analysed');
    assert.equal(run.status, 1);

    const setnxLine = SETNX_THEN_EXPIRE.split('\n').findIndex((l) => l.includes('setnx')) + 1;
    const at = (file: string) => report.findings.filter((f) => f.file === file && f.rule === 'atomic-acquire').map((f) => `${f.line}:${f.column}`);
    const control = at('control.ts');
    assert.equal(control.length, 1, 'the run went on to the well-formed file');
    assert.equal(control[0].split(':')[0], String(setnxLine));
    assert.deepEqual(at('crlf.ts'), control, 'CRLF line endings do not shift lines');
    assert.deepEqual(at('bom.ts'), control, 'a BOM does not shift columns');
    // Too deep for the default stack: analysed again with a large one.
    for (const deep of ['deep-binary.js', 'deep-blocks.ts']) assert.equal(at(deep).length, 1, deep);
    assert.deepEqual(at('latin1.js').map((p) => Number(p.split(':')[0]) - 1), control.map((p) => Number(p.split(':')[0])));

    const pretty = runCli(['check', 'huge-line.js'], tree.root);
    assert.ok(pretty.stdout.length < 2_000, 'the code frame shows a window of the 1 MB line, not all of it');

    for (const f of report.findings) {
      const text = Buffer.isBuffer(files[f.file]) ? files[f.file].toString('latin1') : (files[f.file] as string);
      const lineCount = text.split(/\r\n|\r|\n/).length;
      assert.ok(f.line >= 1 && f.endLine >= f.line && f.endLine <= lineCount, `${f.file} ${f.line}-${f.endLine}`);
    }
  } finally {
    tree.remove();
  }
});
