// An editor's analysis re-used across edits (rules/kept-analysis.ts) equals a fresh analysis of the same
// text after every edit of random sequences: characters and lines typed and deleted at random places and
// in lock calls, keys, try/finally and imports, with runs of blanks typed and deleted, which is where the
// kept findings are re-used; edits inside lock functions only, where one function is re-analysed alone;
// and typing in code without lock code, re-used without a tree of the edited text, as the server does.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeSource, nextTreeText, parseSource, reparseSource, type ModelProvider } from '../../rules/analyze';
import { ProjectIndex } from '../../rules/project/project-index';
import { KeptAnalysis } from '../../rules/kept-analysis';
import type { ts } from '../../rules/engine/typescript';
import type { Finding } from '../../rules/types';
import { lockHeavyFile } from '../../bench/fixtures/lock-heavy-file';
import { filler } from './helpers/filler';
import { tables } from './tables';
import type { RuleCases } from './harness';

function exampleFiles(dir = 'examples/src'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? exampleFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A function without lock code, which the lean parse blanks: edits in it re-use the kept findings. */
const plain = (i: number) => `
export function total${i}(values: number[], weights: Map<string, number>): number {
  let sum = 0;
  for (const v of values) {
    if (v % 2 === 0) sum += v * ${i}; // "a comment" with 'quotes'
    else sum -= v;
  }
  for (const [name, weight] of weights) {
    const label = \`\${name}:\${weight}\`;
    if (label.length > 10) sum += weight / 2;
  }
  return sum;
}
`;

/** A class with lock code in one method: the lean parse blanks its other, larger members. */
const lockingClass = (i: number) => `
export class Worker${i} {
  constructor(private readonly redis: Redis) {}

  async claim(id: string): Promise<boolean> {
    return (await this.redis.set(\`lock:worker${i}:\${id}\`, 'me', 'PX', 5000, 'NX')) === 'OK';
  }

  summarise(rows: Array<{ name: string; count: number }>): string {
    const parts: string[] = [];
    for (const row of rows) {
      if (row.count === 0) continue; // "skip" the 'empty' ones
      parts.push(\`\${row.name}=\${row.count}\`);
    }
    const total = rows.reduce((n, row) => n + row.count, 0);
    return parts.join(', ') + ' of ' + String(total) + ' rows in ' + String(rows.length) + ' groups';
  }
}
`;

/** Lock code in every other function. */
function lockHeavyText(): string {
  return lockHeavyFile(200).split('\nexport ').join(`${plain(0)}\nexport `);
}

/** The examples' lock code, right and wrong, between plain code and classes with some lock code. */
function mixedText(): string {
  return exampleFiles().sort().slice(0, 6).map((f, i) => readFileSync(f, 'utf8') + plain(i) + lockingClass(i)).join('\n');
}

/** The examples' lock code between filler and classes with some lock code: the lean parse blanks most of it. */
function paddedText(): string {
  return exampleFiles().sort().slice(0, 6).map((f, i) => readFileSync(f, 'utf8') + filler(3) + lockingClass(i)).join('\n');
}

/** A small deterministic PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TYPED = [' ', ' ', '  ', '\t', '\n', 'x', '(', ')', '{', '}', ';', "'", '`', '/', '*', '// ', 'await ', 'finally ', 'lock', ':', ','];
const PLACES = ['setnx', 'redis.set(', 'lock:', 'finally', 'try {', 'import ', '.del(', 'release', 'expire', "'", '`', '//', '\n\n'];

/** Words inside lock functions: their calls, keys and results. */
const IN_LOCK_CODE = ['redis.', '.set(', '.setnx(', '.del(', '.eval(', '.expire(', 'acquire', 'release', 'extend', 'lock:', 'token', 'finally', 'if (!', 'return '];

/** One random edit of `text`: returns the new text. With `inLockCode`, always next to a word of lock code. */
function edit(text: string, next: () => number, inLockCode = false): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  let at = Math.floor(next() * (text.length + 1));
  if (inLockCode) {
    const word = pick(IN_LOCK_CODE);
    const hits: number[] = [];
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) hits.push(i);
    if (hits.length > 0) at = pick(hits) + Math.floor(next() * (word.length + 3));
  } else if (next() < 0.5) {
    // Near a lock call, a key, try/finally or an import.
    const word = pick(PLACES);
    const hits: number[] = [];
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) hits.push(i);
    if (hits.length > 0) at = pick(hits) + Math.floor(next() * (word.length + 3));
  }
  at = Math.min(at, text.length);
  const kind = next();
  if (kind < 0.35) return text.slice(0, at) + pick(TYPED) + text.slice(at); // type
  if (kind < 0.55) return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3)); // delete characters
  if (kind < 0.75) {
    // At the next blank: delete the blanks there (the undo of typing them), or type more.
    while (at < text.length && !' \t\n'.includes(text[at])) at++;
    let end = at;
    while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
    if (end - at >= 2 && next() < 0.5) return text.slice(0, at) + text.slice(end - 1); // keep one: tokens stay apart
    return end > at && next() < 0.3 ? text.slice(0, at) + text.slice(end) : text.slice(0, at) + ' '.repeat(1 + Math.floor(next() * 3)) + text.slice(at);
  }
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = text.indexOf('\n', at);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd + 1);
  if (kind < 0.85) return text.slice(0, lineStart) + text.slice(lineStart + line.length); // delete a line
  return text.slice(0, lineStart) + line + text.slice(lineStart); // duplicate a line
}

/** Words of the filler and of the class members without lock code, which the lean parse blanks. */
const IN_PLAIN_CODE = ['ratio', 'label', 'out +=', 'row.', 'tags', 'parts', 'total', 'width'];
const TYPED_IN_PLAIN_CODE = [' ', '  ', '\t', 'x', 'y1'];

/** Makes one edit of a text, the next in a sequence. */
type Change = (text: string, next: () => number) => string;
const anywhere: Change = (text, next) => edit(text, next);
const inLockFunctions: Change = (text, next) => edit(text, next, true);

/**
 * Typing that keeps the code valid, as in a function being written: letters and blanks typed next to
 * a word of code without lock code (see IN_PLAIN_CODE), and taken back, the last typed first.
 */
function typingInPlainCode(): Change {
  const typed: Array<{ at: number; piece: string }> = [];
  return (text, next) => {
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const last = typed[typed.length - 1];
    // Past what was typed before, so that taking it back finds it where it was typed.
    const from = last ? last.at + last.piece.length : 0;
    const word = pick(IN_PLAIN_CODE);
    const hits: number[] = [];
    for (let i = text.indexOf(word, from); i >= 0; i = text.indexOf(word, i + 1)) hits.push(i);
    if (last && (hits.length === 0 || next() < 0.4)) {
      typed.pop();
      return text.slice(0, last.at) + text.slice(last.at + last.piece.length);
    }
    if (hits.length === 0) return text;
    const at = pick(hits) + (next() < 0.5 ? 0 : word.length);
    const piece = pick(TYPED_IN_PLAIN_CODE);
    typed.push({ at, piece });
    return text.slice(0, at) + piece + text.slice(at);
  };
}

const shown = (findings: readonly Finding[]) => findings.map((f) => ({ rule: f.rule, severity: f.severity, message: f.message, span: f.span, related: f.related }));

/**
 * Runs `edits` random edits on `text`; returns how many analyses were re-used, wholly or but for one unit.
 * With `withoutTree`, as the language server does (server/src/document-tree.ts): each edit is first
 * offered to the kept analysis without a tree, and the tree is re-parsed, across every edit since it
 * was last, only when that analysis needs one.
 */
function checkSequence(text: string, seed: number, edits: number, kept = new KeptAnalysis(), change: Change = anywhere, projectOf?: (text: string) => ModelProvider, withoutTree = false): number {
  const next = random(seed);
  let tree: ts.SourceFile = parseSource('edited.ts', text);
  kept.analyze(tree, { project: projectOf?.(text) });
  let reused = 0;
  for (let i = 0; i < edits; i++) {
    text = change(text, next);
    const before = kept.stats.reused + kept.stats.unit;
    const nextText = withoutTree ? nextTreeText(tree, text) : undefined;
    let incremental = nextText && kept.analyzeEdit('edited.ts', nextText, { project: projectOf?.(text) }, tree);
    if (!incremental) {
      tree = reparseSource(tree, text);
      incremental = kept.analyze(tree, { project: projectOf?.(text) });
    }
    reused += kept.stats.reused + kept.stats.unit - before;
    const fresh = analyzeSource(parseSource('edited.ts', text), { fixes: false, project: projectOf?.(text) });
    assert.deepEqual(shown(incremental.findings), shown(fresh.findings), `edit ${i + 1} of seed ${seed}:\n${text}`);
  }
  return reused;
}

test('lock-heavy text: every edit of random sequences gets the findings of a fresh analysis', () => {
  const text = lockHeavyText();
  let reused = 0;
  for (let seed = 1; seed <= 18; seed++) reused += checkSequence(text, seed, 20);
  assert.ok(reused >= 10, `the kept findings were re-used (${reused} times)`);
});

test('mixed text: every edit of random sequences gets the findings of a fresh analysis', () => {
  const text = mixedText();
  let reused = 0;
  for (let seed = 21; seed <= 38; seed++) reused += checkSequence(text, seed, 20);
  assert.ok(reused >= 5, `the kept findings were re-used (${reused} times)`);
});

/** Every case of a rule's table in one file, each case's top-level functions renamed apart. */
function tableText(cases: RuleCases): string {
  return [...cases.valid, ...cases.invalid]
    .filter((c) => !/\.[cm]?jsx?$/.test(c.fileName ?? 'case.ts'))
    .map((c, i) => {
      const names = [...c.code.matchAll(/^(?:export )?(?:async )?function\*? ?([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
      return names.reduce((code, name) => code.replace(new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`, 'g'), `${name}_${i}`), c.code);
    })
    .join('\n');
}

test('lock-heavy text: edits inside lock functions re-analyse one function and get the findings of a fresh analysis', () => {
  const kept = new KeptAnalysis();
  const text = lockHeavyText();
  for (let seed = 41; seed <= 52; seed++) checkSequence(text, seed, 15, kept, inLockFunctions);
  assert.ok(kept.stats.unit >= 30, `one function was re-analysed alone ${kept.stats.unit} times`);
});

test('without a tree of the edited text, as the server analyses: edits inside lock functions get the findings of a fresh analysis', () => {
  const kept = new KeptAnalysis();
  for (let seed = 141; seed <= 152; seed++) checkSequence(lockHeavyText(), seed, 15, kept, inLockFunctions, undefined, true);
  for (let seed = 161; seed <= 172; seed++) checkSequence(mixedText(), seed, 15, kept, inLockFunctions, undefined, true);
  assert.ok(kept.stats.withoutTree >= 30, `one function was re-analysed without a tree ${kept.stats.withoutTree} times`);
});

test('without a tree of the edited text: every edit of random sequences gets the findings of a fresh analysis', () => {
  const kept = new KeptAnalysis();
  for (let seed = 181; seed <= 192; seed++) checkSequence(lockHeavyText(), seed, 20, kept, anywhere, undefined, true);
  assert.ok(kept.stats.withoutTree >= 3, `one function was re-analysed without a tree ${kept.stats.withoutTree} times`);
});

test('without a tree of the edited text: edits in code without lock code, several in a row, re-use the kept findings and get the findings of a fresh analysis', () => {
  // The tree falls behind by every edit taken without it: the next is checked against that older tree.
  const kept = new KeptAnalysis();
  for (let seed = 221; seed <= 232; seed++) checkSequence(paddedText(), seed, 20, kept, typingInPlainCode(), undefined, true);
  assert.ok(kept.stats.reusedWithoutTree >= 60, `the kept findings were re-used without a tree ${kept.stats.reusedWithoutTree} times`);
});

test('without a tree of the edited text: blanks taken out of lock code and typed back give the messages of a fresh analysis', () => {
  // The message quotes the delay as written. A blank between a function's tokens is no blank edit, and
  // once a unit edit has taken one out, the tree (with it) no longer has the kept analysis's text.
  const retry = (gap: string) => `import Redis from 'ioredis';
${filler(3)}
export async function acquireWithRetry(redis: Redis, key: string): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await redis.set(key, 'me', 'PX', 5000, 'NX')) return true;
    await new Promise((resolve) => setTimeout(resolve, 100${gap}* attempt));
  }
  return false;
}
`;
  const texts = [' ', '  ', ' ', '   ', '  '].map(retry);
  const scripted: Change = () => texts.shift() as string;
  const kept = new KeptAnalysis();
  checkSequence(retry('  '), 1, 5, kept, scripted, undefined, true);
  assert.ok(kept.stats.withoutTree >= 4, `the function was re-analysed without a tree ${kept.stats.withoutTree} times`);
});

test('mixed text: edits inside lock functions re-analyse one function and get the findings of a fresh analysis', () => {
  const kept = new KeptAnalysis();
  const text = mixedText();
  for (let seed = 61; seed <= 72; seed++) checkSequence(text, seed, 15, kept, inLockFunctions);
  assert.ok(kept.stats.unit >= 10, `one function was re-analysed alone ${kept.stats.unit} times`);
});

test("every rule table's cases in one file: edits inside lock functions get the findings of a fresh analysis", () => {
  const kept = new KeptAnalysis();
  let seed = 100;
  for (const cases of Object.values(tables)) {
    const text = tableText(cases);
    for (let i = 0; i < 3; i++) checkSequence(text, seed++, 12, kept, inLockFunctions);
  }
  assert.ok(kept.stats.unit >= 20, `one function was re-analysed alone ${kept.stats.unit} times`);
});

test('with a project index, as the server analyses: edits inside lock functions re-analyse one function and get the findings of a fresh analysis', () => {
  const path = '/project/src/edited.ts';
  const texts = new Map<string, string>();
  const index = new ProjectIndex({ host: { readFile: (p) => texts.get(p), fileExists: (p) => texts.has(p) } });
  // An edited open document, as server/src/project-model.ts hands it to the analysis.
  const projectOf = (text: string): ModelProvider => {
    texts.set(path, text);
    return { modelOf: (sourceFile, config) => index.modelOf(path, text, sourceFile, config, true), partModelOf: (part, config) => index.partModelOf(path, part, config) };
  };
  const kept = new KeptAnalysis();
  for (let seed = 81; seed <= 84; seed++) checkSequence(lockHeavyFile(400), seed, 10, kept, inLockFunctions, projectOf);
  assert.ok(kept.stats.unit >= 5, `one function was re-analysed alone ${kept.stats.unit} times`);
});
