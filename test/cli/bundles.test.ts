// The CLI is five bundles so that each command loads only what it uses: the dispatcher (dist/cli.js),
// check (dist/cli-check.js), the analysis worker (dist/cli-worker.js, started once a file passes the
// pre-check), which compiles the analyzer with TypeScript (dist/cli-analyzer.js) from its V8 code
// cache, and the Redis commands with their clients (dist/cli-redis.js). Node's module debug log says
// which files a run loaded through require; the two bundles loaded with a code cache (cli-check.js and
// cli-analyzer.js) are compiled by node:vm and leave no line there, so their loads are seen by the
// caches they leave (cli-check.cache) and by what they do.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ANALYZED_EXTENSIONS } from '../../rules/analyze';
import { allRules } from '../../rules/index';
import { makeTree, NO_LOCKS, runCli, SETNX_THEN_EXPIRE, type CliRun, type Tree } from './cli-process';

let tree: Tree;
before(() => {
  tree = makeTree({ 'locks/lock.ts': SETNX_THEN_EXPIRE, 'plain/plain.ts': NO_LOCKS });
});
after(() => tree.remove());

/** The dist/ files a run loaded, in load order. */
function loadedBundles(args: string[]): { run: CliRun; bundles: string[] } {
  const run = runCli(args, tree.root, { NODE_DEBUG: 'module' });
  const bundles = [...run.stderr.matchAll(/^MODULE \d+: load "([^"]+)" for module/gm)].map((m) => basename(m[1]));
  return { run, bundles };
}

test('--help and each command load only their own bundles', () => {
  assert.deepEqual(loadedBundles(['--help']).bundles, ['cli.js']);
  assert.deepEqual(loadedBundles(['locks', '--help']).bundles, ['cli.js', 'cli-redis.js']);
  assert.deepEqual(loadedBundles(['release', '--help']).bundles, ['cli.js', 'cli-redis.js']);
  const checkHelp = loadedBundles(['check', '--help']);
  assert.deepEqual(checkHelp.bundles, ['cli.js']);
  assert.match(checkHelp.run.stdout, /Usage: lockwise check/);
});

test('check loads the analyzer only when a file passes the pre-check', () => {
  const plain = loadedBundles(['check', 'plain']);
  assert.equal(plain.run.status, 0, plain.run.stderr);
  assert.deepEqual(plain.bundles, ['cli.js']);
  assert.match(plain.run.stdout, /1 files? scanned, 0 parsed/);

  const locks = loadedBundles(['check', 'locks']);
  assert.equal(locks.run.status, 1, locks.run.stderr);
  assert.deepEqual(locks.bundles, ['cli.js', 'cli-worker.js']);
  assert.match(locks.run.stdout, /atomic-acquire/);
});

test('a check with nothing to analyse loads none of worker_threads, os or the stream modules, and still prints its report through a pipe', () => {
  // Node's own list of the built-in modules it loaded, printed at exit by a preload.
  const dir = mkdtempSync(join(tmpdir(), 'lockwise-preload-'));
  try {
    const preload = join(dir, 'loaded.cjs');
    writeFileSync(preload, "process.on('exit', () => require('fs').writeSync(2, '\\nLOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));");
    const run = runCli(['check', 'plain'], tree.root, { NODE_OPTIONS: `--require ${preload}` });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /No problems found[\s\S]*1 files? scanned, 0 parsed/);
    const loaded = JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)![1]!) as string[];
    assert.deepEqual(loaded.filter((m) => /^NativeModule (worker_threads|os|stream|internal\/streams\/(readable|writable))$/.test(m)), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the analyzer and check code caches are written by the first run, used by the next, and replaced when bad', () => {
  // A copy of the CLI, so that this test alone writes its cache.
  const dist = mkdtempSync(join(tmpdir(), 'lockwise-dist-'));
  try {
    for (const file of ['cli.js', 'cli-check.js', 'cli-worker.js', 'cli-analyzer.js', 'cli-analyzer.json']) copyFileSync(join('dist', file), join(dist, file));
    const cache = join(dist, 'cli-analyzer.cache');
    const check = () => runCli(['check', '--format', 'json', 'locks'], tree.root, {}, join(dist, 'cli.js'));
    const findings = (run: CliRun) => (JSON.parse(run.stdout) as { findings: unknown[] }).findings;

    const first = check();
    assert.equal(first.status, 1, first.stderr);
    assert.ok(existsSync(cache) && statSync(cache).size > 1_000_000, 'the first run wrote the cache');
    const checkCache = join(dist, 'cli-check.cache');
    assert.ok(existsSync(checkCache) && statSync(checkCache).size > 1_000, 'and the cache of check itself');
    const written = readFileSync(cache);

    const cached = check();
    assert.deepEqual(findings(cached), findings(first));
    assert.deepEqual(readFileSync(cache), written, 'a usable cache is left alone');

    writeFileSync(cache, 'not a V8 code cache');
    const rejected = check();
    assert.deepEqual(findings(rejected), findings(first), 'a bad cache is only slower');
    assert.ok(statSync(cache).size > 1_000_000, 'and is replaced');
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});

test('the manifest check reads instead of loading the analyzer matches the analyzer', () => {
  assert.deepEqual(JSON.parse(readFileSync('dist/cli-analyzer.json', 'utf8')), {
    rules: allRules.map((r) => ({ id: r.id, defaultSeverity: r.defaultSeverity, summary: r.summary })),
    extensions: ANALYZED_EXTENSIONS,
  });
});
