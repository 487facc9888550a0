// The bench's inputs, installed once from the npm registry at pinned versions (idempotent; both
// folders are git-ignored):
// - bench/.corpus: real packages with thousands of JS/TS files, some with genuine Redis lock code,
//   laid out as a source tree in bench/.corpus/src (see flatten() for why);
// - bench/.tools: ESLint with @typescript-eslint/parser, the tool a user would otherwise reach for.
// Usage: node bench/corpus.mjs  (check.bench.ts runs it first; run from the repository root).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CORPUS_PACKAGES = [
  'typeorm@1.1.1',
  'bullmq@6.7.0',
  'ioredis@6.0.0',
  'redlock@4.2.0',
  '@sesamecare-oss/redlock@1.4.0',
  'redis-semaphore@5.8.0',
  '@nestjs/core@12.5.1',
  '@nestjs/common@12.5.1',
  'redis@6.3.1',
  '@redis/client@6.3.1',
  'rxjs@7.8.2',
];
const TOOL_PACKAGES = ['eslint@10.15.0', '@typescript-eslint/parser@8.74.0', 'typescript@5.9.3'];

const CORPUS_DIR = 'bench/.corpus';
const CORPUS_SRC = join(CORPUS_DIR, 'src');
const TOOLS_DIR = 'bench/.tools';

const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;
// Lockwise skips larger files (and says so); the corpus leaves them out so every tool sees the same files.
const MAX_FILE_BYTES = 2 * 1024 * 1024;
// Folder names the Lockwise walk skips by design; renamed so their (real) code is part of the corpus.
const RENAMED_DIRS = new Set(['node_modules', 'dist', 'build']);

/** `npm install` into `prefix` unless the same pinned list is already there. */
function install(prefix, packages) {
  const marker = join(prefix, '.installed.json');
  const wanted = JSON.stringify(packages);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return false;
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  console.log(`installing into ${prefix}: ${packages.join(' ')}`);
  // Peer dependencies are not installed (--legacy-peer-deps): several packages name conflicting
  // optional peers (typeorm wants ioredis 5, the corpus pins 6) and only the pinned code is wanted.
  const run = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', ...packages],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) throw new Error(`npm install into ${prefix} failed (exit ${run.status})`);
  writeFileSync(marker, wanted);
  return true;
}

/** Says how flatten() lays the tree out: a tree laid out otherwise is laid out again. */
const LAYOUT = 'layout 2: JS/TS files and package.json files';

/**
 * Lockwise (like ESLint) never walks node_modules, and it also skips dist/ and build/, where most
 * published packages keep their code. So the installed packages are laid out as a source tree:
 * src/<package>/..., with those folder names prefixed by "_" and only JS/TS files and each package's
 * package.json (a checkout has them: they bound a package), hard-linked.
 * src/.git makes the tree its own repository, so this repository's .gitignore (which ignores
 * bench/.corpus) does not apply to it, as it would not to a real checkout.
 */
function flatten() {
  const done = join(CORPUS_SRC, '.complete');
  if (existsSync(done) && readFileSync(done, 'utf8').startsWith(LAYOUT)) return;
  rmSync(CORPUS_SRC, { recursive: true, force: true });
  let files = 0;
  let tooLarge = 0;
  const copy = (from, to) => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const source = join(from, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === '.bin') continue;
        copy(source, join(to, RENAMED_DIRS.has(entry.name) ? `_${entry.name}` : entry.name));
      } else if (entry.isFile() && entry.name === 'package.json') {
        mkdirSync(to, { recursive: true });
        copyFileSync(source, join(to, entry.name));
      } else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
        if (statSync(source).size > MAX_FILE_BYTES) {
          tooLarge++;
          continue;
        }
        mkdirSync(to, { recursive: true });
        const target = join(to, entry.name);
        try {
          linkSync(source, target);
        } catch {
          copyFileSync(source, target);
        }
        files++;
      }
    }
  };
  copy(join(CORPUS_DIR, 'node_modules'), CORPUS_SRC);
  mkdirSync(join(CORPUS_SRC, '.git'), { recursive: true });
  writeFileSync(done, `${LAYOUT}\n${files} files (${tooLarge} over 2 MB left out)\n`);
}

function ensureCorpus() {
  if (install(CORPUS_DIR, CORPUS_PACKAGES)) rmSync(CORPUS_SRC, { recursive: true, force: true });
  flatten();
  install(TOOLS_DIR, TOOL_PACKAGES);
  console.log(`corpus: ${readFileSync(join(CORPUS_SRC, '.complete'), 'utf8').trim().split('\n').pop()} in ${CORPUS_SRC}`);
}

ensureCorpus();
