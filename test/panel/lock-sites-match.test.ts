// Matching lock keys to the acquire sites the language server reports (Redis glob semantics), and
// choosing which of their globs are worth an extra SCAN.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LockSite } from '../../server/src/protocol';
import { MAX_CODE_GLOBS, scanGlobsFromSites, sitesForKey } from '../../client/src/panel/lock-sites-match';
import { redisGlobToRegExp } from '../../client/src/panel/redis-glob';

const site = (keyGlob: string, line = 0, uri = 'file:///w/src/a.ts'): LockSite => ({
  uri,
  range: { start: { line, character: 2 }, end: { line, character: 20 } },
  keyText: keyGlob,
  keyGlob,
  kind: 'set-nx',
  findings: [],
});

test('Redis glob semantics: * spans separators, ? is one character, classes, escapes', () => {
  const cases: [string, string, boolean][] = [
    ['lock:*', 'lock:order:1', true],
    ['lock:*', 'lock', false],
    ['lock:order:?', 'lock:order:7', true],
    ['lock:order:?', 'lock:order:17', false],
    ['lock:[ab]:*', 'lock:b:x', true],
    ['lock:[^ab]:*', 'lock:b:x', false],
    ['lock:[a-c]', 'lock:c', true],
    ['lock:\\*', 'lock:*', true],
    ['lock:\\*', 'lock:x', false],
    ['lock:(x).+', 'lock:(x).+', true],
    ['{lock:order}:*', '{lock:order}:fence', true],
    ['a/b*', 'a/b/c', true],
  ];
  for (const [glob, key, expected] of cases) assert.equal(redisGlobToRegExp(glob).test(key), expected, `${glob} vs ${key}`);
});

test('sitesForKey: matching sites, most specific glob first, a bare * never matches', () => {
  const sites = [site('*', 1), site('lock:*', 2), site('lock:order:*', 3), site('lock:user:*', 4)];
  assert.deepEqual(sitesForKey('lock:order:42', sites).map((s) => s.range.start.line), [3, 2]);
  assert.deepEqual(sitesForKey('cache:1', sites), []);
});

test('scanGlobsFromSites adds only globs no pattern covers, and never one without a literal prefix', () => {
  const sites = [site('lock:order:*'), site('job-lock:*:run'), site('job-lock:eu:*'), site('*:lock'), site('?x'), site('job-lock:*:run')];
  assert.deepEqual(scanGlobsFromSites(sites, ['lock:*', 'mutex:*']), ['job-lock:*:run', 'job-lock:eu:*']);
  assert.deepEqual(scanGlobsFromSites([site('orders:*'), site('orders:eu:*')], []), ['orders:*']);
  assert.deepEqual(scanGlobsFromSites([site('lock:*')], ['lock:*']), []);
});

test('code globs are capped: more than MAX_CODE_GLOBS merge by first key segment, then the most used are kept', () => {
  assert.equal(MAX_CODE_GLOBS, 4);
  const few = ['a:x:*', 'b:y:*', 'c:z:*', 'd:w:*'].map((g) => site(g));
  assert.deepEqual(scanGlobsFromSites(few, []), ['a:x:*', 'b:y:*', 'c:z:*', 'd:w:*'], 'up to the cap nothing changes');
  // Ten tenants' locks share the first segment "tenant-": one glob covers them all.
  const tenants = Array.from({ length: 10 }, (_, i) => site(`tenant-${i}:lock:*`));
  assert.deepEqual(scanGlobsFromSites(tenants, ['lock:*']), ['tenant-*']);
  // 500 prefixes that share no leading text: only the four covering the most sites are scanned.
  const spread = Array.from({ length: 500 }, (_, i) => site(`k${i}q:job:*`));
  spread.push(site('k7q:job:*', 1), site('k7q:job:*', 2), site('k300q:job:*', 1));
  const chosen = scanGlobsFromSites(spread, ['lock:*']);
  assert.equal(chosen.length, MAX_CODE_GLOBS);
  assert.deepEqual(chosen, ['k0q:*', 'k100q:*', 'k300q:*', 'k7q:*'], 'k7q and k300q cover more sites; then by name');
});
