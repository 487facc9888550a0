// DocumentTree keeps an open document's syntax tree and re-parses it across whatever changed since.
// Whatever the edits, the re-parsed tree must be the tree a fresh parse of the same text gives, and
// analyse the same: same findings, same lock sites.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ts } from 'ts-morph';
import { parseLean, parseSource } from '../../rules/analyze';
import { analyzeWithSites } from '../../rules/sites';
import { DocumentTree } from '../../server/src/document-tree';
import { filler } from '../rules/helpers/filler';
import { applyEdit, exampleFiles, randomEdit, seeded } from './helpers/random-edits';

const SEED = 20261129;
const STEPS = 30;

/** The tree as kinds and ranges, nested: what must not depend on how it was parsed. */
function shape(tree: ts.SourceFile): string {
  const out: string[] = [];
  const visit = (node: ts.Node, depth: number): void => {
    out.push(`${' '.repeat(depth)}${ts.SyntaxKind[node.kind]} ${node.pos}-${node.end}`);
    ts.forEachChild(node, (child) => visit(child, depth + 1));
  };
  visit(tree, 0);
  return out.join('\n');
}

const NO_HELPERS = { acquire: [], release: [], extend: [] };

test('after each of many random edits, the re-parsed tree analyses exactly like a fresh parse', () => {
  const random = seeded(SEED);
  const files = exampleFiles();
  files.set('examples/all.ts', [...files.values()].join('\n'));
  let reused = 0;
  for (const [name, original] of files) {
    const tree = new DocumentTree();
    let text = original;
    let last = tree.parse(name, text, NO_HELPERS);
    for (let step = 0; step < STEPS; step++) {
      // One to three changes between analyses, as when several arrive while one runs.
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        text = applyEdit(text, randomEdit(text, random));
      }
      const firstBefore = last.statements[0];
      const incremental = tree.parse(name, text, NO_HELPERS);
      const fresh = parseSource(name, text);
      // A small edit keeps a whole tree whole (analyze.ts SMALL_EDIT) even where a fresh parse of the
      // new text would blank: the tree is then compared with a fresh whole parse, and analyses the same
      // as the fresh parse whichever it is.
      const sameKind = incremental.text === text ? parseLean(name, text, NO_HELPERS, true).sourceFile : fresh;
      const where = `${name}, step ${step}`;
      assert.equal(incremental.text, sameKind.text, where);
      assert.equal(shape(incremental), shape(sameKind), where);
      assert.deepEqual(analyzeWithSites(incremental), analyzeWithSites(fresh), where);
      if (firstBefore && incremental.statements[0] === firstBefore) reused++;
      last = incremental;
    }
  }
  // Re-parsing that silently parsed everything afresh would pass the comparisons above.
  assert.ok(reused >= 50, `only ${reused} re-parses re-used the first statement`);
});

test('edits that turn blanked filler into lock code and back re-parse like a fresh parse', () => {
  // Random edits break the syntax within a step or two, and a file with errors is parsed whole:
  // these keep it valid, so the kept tree stays lean while code moves in and out of the blanked part.
  const random = seeded(SEED);
  let text = [...exampleFiles().values()].map((code) => `${code}\n${filler(4)}`).join('\n');
  const tree = new DocumentTree();
  tree.parse('padded.ts', text, NO_HELPERS);
  const inserted: Array<{ at: number; piece: string }> = [];
  let lean = 0;
  for (let step = 0; step < 40; step++) {
    const undo = inserted.length > 0 && random() < 0.4 ? inserted.pop() : undefined;
    if (undo) text = text.slice(0, undo.at) + text.slice(undo.at + undo.piece.length);
    else {
      const lines = text.split('\n');
      const line = Math.floor(random() * lines.length);
      const at = lines.slice(0, line).join('\n').length + (line > 0 ? 1 : 0);
      const piece = ['// lock\n', '/* del */ ', ' ', '\n'][Math.floor(random() * 4)];
      // Later insertions must not move earlier ones: undo is last-in, first-out.
      if (inserted.some((i) => i.at >= at)) continue;
      text = text.slice(0, at) + piece + text.slice(at);
      inserted.push({ at, piece });
    }
    const incremental = tree.parse('padded.ts', text, NO_HELPERS);
    const fresh = parseSource('padded.ts', text);
    assert.equal(incremental.text, fresh.text, `step ${step}`);
    assert.equal(shape(incremental), shape(fresh), `step ${step}`);
    assert.deepEqual(analyzeWithSites(incremental), analyzeWithSites(fresh), `step ${step}`);
    if (incremental.text !== text) lean++;
  }
  assert.ok(lean >= 20, `only ${lean} re-parses had filler blanked`);
});

test('a word of the same length that makes blanked filler lock code, and back, re-parses like a fresh parse', () => {
  // The lean text of the next version re-uses what the last one found of each declaration by its place:
  // an edit that moves nothing must still be seen in the declaration it is in.
  const original = [...exampleFiles().values()].map((code) => `${code}\n${filler(2)}`).join('\n');
  const tree = new DocumentTree();
  tree.parse('padded.ts', original, NO_HELPERS);
  let edits = 0;
  for (let at = original.indexOf('const ratio'); at >= 0 && edits < 6; at = original.indexOf('const ratio', at + 1), edits++) {
    const edited = `${original.slice(0, at)}const mutex${original.slice(at + 'const ratio'.length)}`;
    for (const text of [edited, original]) {
      const incremental = tree.parse('padded.ts', text, NO_HELPERS);
      const fresh = parseSource('padded.ts', text);
      assert.equal(incremental.text, fresh.text, `at ${at}`);
      assert.deepEqual(analyzeWithSites(incremental), analyzeWithSites(fresh), `at ${at}`);
    }
  }
  assert.equal(edits, 6);
});

test('an edit re-uses the code before and after it, and analyses like a fresh parse', () => {
  const text = [...exampleFiles().values()].join('\n');
  const tree = new DocumentTree();
  const first = tree.parse('all.ts', text, NO_HELPERS);
  const middle = Math.floor(first.statements.length / 2);
  const at = first.statements[middle].getStart(first);
  const added = 'export const added = 1;\n';
  const edited = `${text.slice(0, at)}${added}${text.slice(at)}`;
  const before = first.statements.slice(0, middle - 1);
  const after = first.statements.slice(middle + 1);
  const next = tree.parse('all.ts', edited, NO_HELPERS);
  assert.ok(before.every((s, i) => s === next.statements[i]), 'the statements before the edit are the same nodes');
  assert.ok(after.every((s, i) => s === next.statements[next.statements.length - after.length + i]), 'so are those after it');
  assert.deepEqual(analyzeWithSites(next), analyzeWithSites(parseSource('all.ts', edited)));
});

test('an edit before code an earlier analysis looked at leaves the quick fixes of that code in place', () => {
  // Quick fixes that insert after a token (the '(' of a routine, the 'const' of a declaration). A
  // cache keyed by syntax node that outlives an analysis breaks this: TypeScript moves the nodes after
  // an edit, and ts-morph's token caches, which the analyzer once read through, kept the old offsets.
  let text = exampleFiles().get('examples/src/jobs/nightly-report.ts') as string;
  const tree = new DocumentTree();
  let current = tree.parse('report.ts', text, NO_HELPERS);
  for (const rule of ['respect-abort-signal', 'use-extended-lock']) {
    const finding = analyzeWithSites(current).findings.find((f) => f.rule === rule && f.fixes.length > 0);
    assert.ok(finding, `${rule} offers a fix in the report example`);
    const holder = current.statements.find((st) => st.pos <= finding.span.start && finding.span.start < st.end) as ts.Statement;
    // One space inside the statement before: the one holding the finding moves by one.
    const edit = { start: holder.pos - 1, end: holder.pos - 1, text: ' ' };
    text = applyEdit(text, edit);
    current = tree.parse('report.ts', text, NO_HELPERS);
    assert.deepEqual(analyzeWithSites(current), analyzeWithSites(parseSource('report.ts', text)), rule);
  }
});

test('the same text needs no parse, and a whole new text parses like a fresh one', () => {
  const text = [...exampleFiles().values()][0];
  const tree = new DocumentTree();
  const first = tree.parse('a.ts', text, NO_HELPERS);
  assert.equal(tree.parse('a.ts', text, NO_HELPERS), first);
  const whole = 'export const plain = 2;\n';
  assert.equal(shape(tree.parse('a.ts', whole, NO_HELPERS)), shape(parseSource('a.ts', whole)));
});

test('a parse that fails leaves no tree behind, and the next text parses afresh', () => {
  const tree = new DocumentTree();
  const deep = `export const x = ${'('.repeat(200_000)}1${')'.repeat(200_000)};\n`;
  tree.parse('a.ts', 'export const a = 1;\n', NO_HELPERS);
  assert.throws(() => tree.parse('a.ts', deep, NO_HELPERS));
  const text = 'export const b = 2;\n';
  assert.equal(shape(tree.parse('a.ts', text, NO_HELPERS)), shape(parseSource('a.ts', text)));
});
