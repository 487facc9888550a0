// One build for every bundle: the VS Code client, the language server, the ESLint plugin and the CLI's five bundles.
// `--production` minifies and drops source maps (used by packaging); the default keeps maps for debugging.
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// The CLI is split so each command loads only what it uses: `cli` is the `bin`, a small dispatcher that
// requires one command bundle at run time; `cli-check` walks, pre-checks and reports, and starts the
// analysis worker `cli-worker` once a file passes the pre-check, which loads `cli-analyzer` (TypeScript
// and the rules: most of the size); `cli-redis` holds the Redis clients for locks, release and extend.
const cliBundles = [
  { in: 'cli/src/main.ts', out: 'cli', banner: '#!/usr/bin/env node', executable: true },
  { in: 'cli/src/commands/check.ts', out: 'cli-check', codeCache: true },
  { in: 'cli/src/worker.ts', out: 'cli-worker' },
  // The analyzer is minified in every build (its source map still maps it): each check's worker reads
  // and compiles all of it, and at 3.8 MB instead of 10 MB that takes a third less CPU.
  // LOCKWISE_UNMINIFIED=1 keeps it whole, for profiles that attribute time per source line.
  { in: 'cli/src/analyzer.ts', out: 'cli-analyzer', manifest: true, typescriptOnly: true, codeCache: true, minify: process.env.LOCKWISE_UNMINIFIED !== '1' },
  { in: 'cli/src/commands/redis.ts', out: 'cli-redis' },
];
const bundles = [
  { in: 'client/src/extension.ts', out: 'client', external: ['vscode'] },
  { in: 'server/src/entry.ts', out: 'server', banner: '#!/usr/bin/env node', executable: true },
  // The ESLint plugin (package.json "exports": lockwise/eslint-plugin): the analyzer with TypeScript only.
  { in: 'eslint/plugin.ts', out: 'eslint-plugin', typescriptOnly: true },
  ...cliBundles,
];

// An import of another CLI bundle's entry stays a run-time require of that bundle's file (all of them
// sit side by side in dist/), instead of being inlined.
function splitCli(own) {
  const entries = new Map(cliBundles.map((b) => [resolve(b.in).replace(/\.ts$/, ''), b.out]));
  return {
    name: 'split-cli',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const out = entries.get(resolve(args.resolveDir, args.path).replace(/\.ts$/, ''));
        return out && out !== own ? { path: `./${out}.js`, external: true } : undefined;
      });
    },
  };
}

// The analyzer takes from ts-morph only the TypeScript compiler it ships (rules/engine/typescript.ts). The
// CLI's analyzer bundle, loaded on every check run, gets that same compiler without the rest of ts-morph
// (4 of its 14 MB). Should the analyzer import anything else from ts-morph, this bundle fails to build.
function typescriptFromTsMorph() {
  return {
    name: 'typescript-from-ts-morph',
    setup(build) {
      build.onResolve({ filter: /^ts-morph$/ }, () => ({ path: 'ts-morph', namespace: 'typescript-from-ts-morph' }));
      build.onLoad({ filter: /.*/, namespace: 'typescript-from-ts-morph' }, () => ({
        contents: "export { default as ts } from '@ts-morph/common/dist/typescript';",
        resolveDir: process.cwd(),
      }));
    },
  };
}

// npm marks a package's bin executable when it links it, but `prepare` builds dist/cli.js after that
// (and esbuild writes files 0644), so `npx lockwise` in a fresh clone would be refused: mark it here.
function executable(file) {
  return {
    name: 'executable',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length === 0) chmodSync(file, 0o755);
      });
    },
  };
}

// After each build of the analyzer: `check` must know the rules (for --rule, configs, --help and SARIF)
// and the analysed extensions before it loads the analyzer, and without loading it when no file needs
// it, so ask the built bundle (in a child process) and write the answer next to it.
function analyzerManifest(bundle) {
  return {
    name: 'analyzer-manifest',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        const json = execFileSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(resolve(bundle))}).manifest))`]);
        writeFileSync(bundle.replace(/\.js$/, '.json'), json);
      });
    },
  };
}

// A bundle loaded with a V8 code cache (cli/src/code-cache.ts) loses it at each build: V8 checks a
// cache against the source's length only, so it would not know the cache belongs to the previous build.
function dropCodeCache(bundle) {
  return {
    name: 'drop-code-cache',
    setup(build) {
      build.onEnd(() => rmSync(bundle.replace(/\.js$/, '.cache'), { force: true }));
    },
  };
}

const contexts = await Promise.all(
  bundles.map((b) =>
    esbuild.context({
      entryPoints: { [b.out]: b.in },
      outdir: 'dist',
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: b.external ?? [],
      sourcemap: !production,
      minify: production || b.minify === true,
      legalComments: 'none',
      banner: b.banner ? { js: b.banner } : undefined,
      define: { 'process.env.LOCKWISE_VERSION': JSON.stringify(version) },
      logLevel: 'warning',
      plugins: [
        ...(cliBundles.includes(b) ? [splitCli(b.out)] : []),
        ...(b.typescriptOnly ? [typescriptFromTsMorph()] : []),
        ...(b.executable ? [executable(`dist/${b.out}.js`)] : []),
        ...(b.manifest ? [analyzerManifest(`dist/${b.out}.js`)] : []),
        ...(b.codeCache ? [dropCodeCache(`dist/${b.out}.js`)] : []),
      ],
    }),
  ),
);

if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
