// Bad input never crashes or hangs the analyzer: syntax errors, truncations, random insertions, deep
// nesting, huge lines, invalid UTF-8 and empty files all return findings where the code still parses.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeText } from '../../rules/analyze';

function exampleFiles(dir = 'examples/src'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? exampleFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A small deterministic PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const INSERTS = ['{', '}', '(', ')', '`', '${', '/*', '"', "'", 'await ', 'redis.del(key);', 'if (', ';', '\n', '=>', 'new Mutex(', '\u0000'];

test('mutated example files (truncations and random insertions) always analyse', () => {
  const files = exampleFiles();
  assert.ok(files.length >= 5, 'the examples are there');
  const next = random(20261129);
  let runs = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (let i = 0; i < 25; i++) {
      const at = Math.floor(next() * text.length);
      const mutated = i % 2 === 0
        ? text.slice(0, at)
        : text.slice(0, at) + INSERTS[Math.floor(next() * INSERTS.length)] + text.slice(at);
      const result = analyzeText(file, mutated);
      assert.deepEqual(result.ruleFailures, [], `${file} mutation ${i} at ${at}`);
      for (const f of result.findings) assert.ok(f.span.start >= 0 && f.span.end <= mutated.length);
      runs++;
    }
  }
  assert.equal(runs, files.length * 25);
});

test('a file with syntax errors still gets findings where its code parses', () => {
  const text = `import Redis from 'ioredis';
const redis = new Redis();
export async function broken( {
  const x = ;
}
export async function run(key: string) {
  await redis.setnx(key, 'x');
  await redis.expire(key, 30);
}
`;
  const rules = analyzeText('broken.ts', text).findings.map((f) => f.rule);
  assert.ok(rules.includes('atomic-acquire'), rules.join(', '));
});

test('empty, whitespace-only and binary-ish files return no findings', () => {
  for (const text of ['', '\n\n  \t', Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0x6c, 0x6f, 0x63, 0x6b]).toString('utf8')]) {
    assert.deepEqual(analyzeText('x.ts', text).findings, []);
  }
});

test('a huge single line and deep nesting are analysed; absurd nesting is a clear error, not a crash', () => {
  const hugeLine = `const a = [${'1,'.repeat(300_000)}];\nredis.setnx('lock:a', 'x'); redis.expire('lock:a', 5);`;
  assert.ok(analyzeText('huge.ts', hugeLine).findings.some((f) => f.rule === 'atomic-acquire'));
  const deep = (n: number) => `const x = ${'('.repeat(n)}1${')'.repeat(n)};\nredis.setnx('lock:a', 'x'); redis.expire('lock:a', 5);`;
  assert.ok(analyzeText('deep.ts', deep(200)).findings.length > 0);
  // Either it is analysed, or it is refused with a message that says why; nothing else.
  let outcome: string;
  try {
    outcome = `analysed: ${analyzeText('deeper.ts', deep(50_000)).findings.length} findings`;
  } catch (err) {
    outcome = String(err);
  }
  assert.match(outcome, /^analysed: \d+ findings$|nested too deeply/);
});
