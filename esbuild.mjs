// One build for the three bundles: the VS Code client, the language server and the CLI.
// `--production` minifies and drops source maps (used by packaging); the default keeps maps for debugging.
import * as esbuild from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const bundles = [
  { in: 'client/src/extension.ts', out: 'client', external: ['vscode'] },
  { in: 'server/src/server.ts', out: 'server', external: [] },
  { in: 'cli/src/main.ts', out: 'cli', external: [], banner: '#!/usr/bin/env node', executable: true },
];

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

const contexts = await Promise.all(
  bundles.map((b) =>
    esbuild.context({
      entryPoints: { [b.out]: b.in },
      outdir: 'dist',
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: b.external,
      sourcemap: !production,
      minify: production,
      legalComments: 'none',
      banner: b.banner ? { js: b.banner } : undefined,
      define: { 'process.env.LOCKWISE_VERSION': JSON.stringify(version) },
      logLevel: 'warning',
      plugins: b.executable ? [executable(`dist/${b.out}.js`)] : [],
    }),
  ),
);

if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
