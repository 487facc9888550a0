// The scan's disk reader: the size limit in bytes, multi-byte text, empty files, errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { diskReader } from '../../server/src/scan-reader';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;

before(() => {
  ws = tempWorkspace('scan-reader', { 'empty.ts': '', 'orders.ts': 'const é = 1;\n', 'dir/kept.ts': 'x' });
});

after(() => ws?.remove());

const bytes = Buffer.byteLength('const é = 1;\n');

test('a file is read whole up to the limit in bytes, and given as undefined one byte over it', () => {
  assert.equal(diskReader.read(ws.file('orders.ts'), bytes), 'const é = 1;\n');
  assert.equal(diskReader.read(ws.file('orders.ts'), bytes - 1), undefined);
  assert.equal(diskReader.read(ws.file('empty.ts'), 0), '');
});

test('a missing file or a folder throws', () => {
  assert.throws(() => diskReader.read(ws.file('missing.ts'), 1024), { code: 'ENOENT' });
  assert.throws(() => diskReader.read(ws.file('dir'), 1024 * 1024), { code: 'EISDIR' });
});
