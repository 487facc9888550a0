// What the server learns of each incremental change, to re-parse its kept tree across it: the offsets
// the change replaced in the text it applies to (each change of a notification applies to the text
// the one before left) and the length of its new text, exactly as TextDocument applies the change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ts } from 'ts-morph';
import { editTracking, type Edit } from '../../server/src/edit-tracking';
import { applyEdit, exampleFiles, lspChange, randomEdit, seeded } from './helpers/random-edits';

const SEED = 4117;

const change = (start: number, length: number, newLength: number) => ts.createTextChangeRange(ts.createTextSpan(start, length), newLength);

test('each change of a notification is reported as what it replaced in the text it applies to', () => {
  const random = seeded(SEED);
  let multi = 0;
  for (const [name, original] of exampleFiles()) {
    const reported: Edit[] = [];
    const tracking = editTracking((_, edit) => reported.push(edit));
    const document = tracking.create(`file:///${name}`, 'typescript', 1, original);
    let text = original;
    for (let version = 2; version < 20; version++) {
      const changes = [];
      const expected: Edit[] = [];
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const edit = randomEdit(text, random);
        changes.push(lspChange(text, edit));
        expected.push(change(edit.start, edit.end - edit.start, edit.text.length));
        text = applyEdit(text, edit);
      }
      if (changes.length > 1) multi++;
      reported.length = 0;
      tracking.update(document, changes, version);
      assert.equal(document.getText(), text, `${name}, version ${version}`);
      assert.deepEqual(reported, expected, `${name}, version ${version}`);
    }
  }
  assert.ok(multi > 50, `only ${multi} notifications had several changes`);
});

test('a reversed range, positions past the end and a whole new text', () => {
  const reported: Edit[] = [];
  const tracking = editTracking((_, edit) => reported.push(edit));
  const document = tracking.create('file:///a.ts', 'typescript', 1, 'abc\ndef\n');
  tracking.update(
    document,
    [
      { range: { start: { line: 1, character: 2 }, end: { line: 0, character: 1 } }, text: 'X' },
      { range: { start: { line: 9, character: 0 }, end: { line: 9, character: 4 } }, text: '!' },
    ],
    2,
  );
  assert.equal(document.getText(), 'aXf\n!');
  tracking.update(document, [{ text: 'whole' }], 3);
  assert.equal(document.getText(), 'whole');
  assert.deepEqual(reported, [change(1, 5, 1), change(4, 0, 1), 'whole']);
});
