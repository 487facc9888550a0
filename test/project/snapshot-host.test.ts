// The host `lockwise check` resolves modules through: one folder listing answers every probe in it.
// Its answers must be those of the file system itself for files, folders, links and missing paths.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileSystemHost, snapshotHost } from '../../rules/project/host';
import { ModuleResolver } from '../../rules/project/resolve-module';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'lockwise-host-'));
  mkdirSync(join(root, 'lib/lock'), { recursive: true });
  writeFileSync(join(root, 'lib/lock/index.ts'), 'export const x = 1;\n');
  writeFileSync(join(root, 'lib/redis.ts'), 'export const r = 1;\n');
  symlinkSync(join(root, 'lib/redis.ts'), join(root, 'lib/linked.ts'));
  symlinkSync(join(root, 'lib/lock'), join(root, 'lib/folder-link.ts'));
  symlinkSync(join(root, 'lib/gone.ts'), join(root, 'lib/dangling.ts'));
});
after(() => rmSync(root, { recursive: true, force: true }));

test('snapshot host: fileExists answers as the file system does', () => {
  const host = snapshotHost();
  const probes = ['lib/redis.ts', 'lib/lock', 'lib/lock/index.ts', 'lib/linked.ts', 'lib/folder-link.ts', 'lib/dangling.ts', 'lib/none.ts', 'lib/redis.ts/index.ts', 'missing/x.ts'];
  for (const probe of probes) {
    const path = join(root, probe);
    assert.equal(host.fileExists(path), fileSystemHost.fileExists(path), probe);
  }
  assert.equal(host.fileExists(join(root, 'lib/redis.ts')), true);
  assert.equal(host.fileExists(join(root, 'lib/lock')), false, 'a folder is not a file');
  assert.equal(host.fileExists(join(root, 'lib/folder-link.ts')), false, 'a link to a folder is not a file');
});

test('snapshot host: specifiers resolve to the same files as through the plain file system', () => {
  const from = join(root, 'lib/caller.ts');
  const specifiers = ['./redis', './redis.js', './lock', './linked', './folder-link', './dangling', './none'];
  const plain = new ModuleResolver(fileSystemHost);
  const snapshot = new ModuleResolver(snapshotHost());
  for (const specifier of specifiers) assert.equal(snapshot.resolve(specifier, from), plain.resolve(specifier, from), specifier);
  assert.equal(snapshot.resolve('./lock', from), join(root, 'lib/lock/index.ts'));
});
