// The outline (rules/engine/outline.ts) of a text edited since the last one resumes the previous run near
// the edit and takes the rest from it: it must equal the outline of the same text lexed from the top,
// after random edits (which break strings, templates, comments and brackets) and after edits that keep
// the code valid, in top-level statements and in the members of top-level classes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outline, outlineWork, type Run } from '../../rules/engine/outline';
import { textEdit, type TextEdit } from '../../rules/engine/text-edit';
import { lockHeavyFile } from '../../bench/fixtures/lock-heavy-file';
import { filler, FILLER_METHOD } from './helpers/filler';
import { applyEdit, exampleFiles, randomEdit, seeded } from '../server/helpers/random-edits';

/** The run of the lexer over `before`, and the edit from it to `after`: what the outline of `after` resumes. */
function previousOf(before: string, after: string): { run: Run; edit: TextEdit } | undefined {
  let run: Run | undefined;
  outline(before, undefined, (r) => (run = r));
  return run && { run, edit: textEdit(before, after) };
}

/** A class whose members are filler: edits in it resume inside the class body. */
const fillerClass = (n: number) => `export class Rows${n} {\n${Array.from({ length: 6 }, (_, k) => FILLER_METHOD(n * 10 + k)).join('')}}\n`;

function texts(): Map<string, string> {
  const files = exampleFiles();
  files.set('all.ts', [...files.values()].join('\n'));
  files.set('heavy.ts', lockHeavyFile(600));
  files.set('filler.ts', `${filler(9)}${fillerClass(1)}${filler(4)}${fillerClass(2)}`);
  return files;
}

function assertResumes(name: string, before: string, after: string, where: string): boolean {
  const expected = outline(after);
  assert.deepEqual(outline(after, previousOf(before, after)), expected, `${name}, ${where}`);
  return expected !== undefined;
}

test('after random edits, the resumed outline equals the outline from the top', () => {
  const random = seeded(20261203);
  let lexed = 0;
  for (const [name, original] of texts()) {
    let text = original;
    for (let step = 0; step < 25; step++) {
      const next = applyEdit(text, randomEdit(text, random));
      if (assertResumes(name, text, next, `step ${step}`)) lexed++;
      // Broken code lexes nowhere: start again from the original now and then.
      text = random() < 0.3 ? original : next;
    }
  }
  assert.ok(lexed >= 60, `only ${lexed} edited texts lexed at all`);
});

test('each edit of a sequence resumes the run of the one before, and the outline equals the outline from the top', () => {
  const random = seeded(31);
  let resumedRuns = 0;
  for (const [name, original] of texts()) {
    let text = original;
    let run: Run | undefined;
    outline(text, undefined, (r) => (run = r));
    for (let step = 0; step < 30; step++) {
      // Lines typed and deleted again, as an editor sends them: the code stays valid, the runs chain.
      const lines = text.split('\n');
      const line = Math.floor(random() * lines.length);
      const next = random() < 0.5 ? [...lines.slice(0, line), '  const y = 2;', ...lines.slice(line)].join('\n') : [...lines.slice(0, line), ...lines.slice(line + 1)].join('\n');
      const before = outlineWork.lexed;
      const previous = run && { run, edit: textEdit(text, next) };
      run = undefined;
      const resumed = outline(next, previous, (r) => (run = r));
      if (outlineWork.lexed - before < next.length / 2) resumedRuns++;
      assert.deepEqual(resumed, outline(next), `${name}, step ${step}`);
      text = next;
    }
  }
  assert.ok(resumedRuns >= 60, `only ${resumedRuns} runs resumed`);
});

test('after edits that keep the code valid, the resumed outline equals the outline from the top', () => {
  const random = seeded(7);
  const pieces = [' ', '\n', '// } { ` \'\n', '/* ; */', 'const x = 1;\n', '}\nfunction added() {\n', 'if (a) b(); else c();\n', '`${`}`}`;\n', 'x = a / b / c;\n', 'x = /[}]/g;\n'];
  let compared = 0;
  for (const [name, original] of texts()) {
    const lines = original.split('\n');
    for (let step = 0; step < 40; step++) {
      const line = Math.floor(random() * lines.length);
      const at = lines.slice(0, line).join('\n').length + (line > 0 ? 1 : 0);
      const piece = pieces[Math.floor(random() * pieces.length)];
      // Typed, then deleted again: both directions of the same edit.
      const edited = original.slice(0, at) + piece + original.slice(at);
      assertResumes(name, original, edited, `typing ${JSON.stringify(piece)} at ${at}`);
      assertResumes(name, edited, original, `deleting ${JSON.stringify(piece)} at ${at}`);
      compared += 2;
    }
  }
  assert.ok(compared >= 400);
});

test('a run resumed inside a class body keeps the members before and after the edit', () => {
  const text = `const a = 1;\n${fillerClass(3)}const b = 2;\n`;
  const full = outline(text);
  assert.ok(full && full.classBodies.length === 1 && full.classBodies[0].members.length >= 5, 'the class has its members');
  const at = text.indexOf('describeRow33');
  const edited = `${text.slice(0, at)}  ${text.slice(at)}`;
  const resumed = outline(edited, previousOf(text, edited));
  assert.deepEqual(resumed, outline(edited));
  const moved = (b: number) => (b > at ? b + 2 : b);
  assert.deepEqual(resumed?.classBodies[0].members, full.classBodies[0].members.map(moved));
});

test('an edit that merges two classes into one moves the members of the second into the first', () => {
  const text = `${fillerClass(4)}\n${fillerClass(5)}const c = 3;\n`;
  const seam = text.indexOf('}\n\nexport class Rows5 {');
  const merged = text.slice(0, seam) + text.slice(text.indexOf('{', seam + 1) + 1);
  assertResumes('merged', text, merged, 'two classes merged');
  assert.equal(outline(merged)?.classBodies.length, 1);
});

test('a keystroke in a large file lexes only the code around it', () => {
  const text = lockHeavyFile(5000);
  const at = text.indexOf('\n', text.length / 2);
  const edited = `${text.slice(0, at)} ${text.slice(at)}`;
  const previous = previousOf(text, edited);
  const before = outlineWork.lexed;
  const resumed = outline(edited, previous);
  const lexed = outlineWork.lexed - before;
  assert.deepEqual(resumed, outline(edited));
  assert.ok(lexed < text.length / 50, `the edit lexed ${lexed} of ${text.length} characters`);
});
