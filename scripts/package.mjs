// `npm run package`: minified bundles, then `vsce package --no-dependencies` (vsce from the tool folder,
// not a dependency of the extension), then prints the .vsix's size and checks what went in.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { installVsce, VSCE_BIN } from './e2e-tools.mjs';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
}

const { name, version } = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `${name}-${version}.vsix`;

run(process.execPath, ['esbuild.mjs', '--production']);
installVsce();
run(process.execPath, [VSCE_BIN, 'package', '--no-dependencies', '--out', out]);

const listing = spawnSync(process.execPath, [VSCE_BIN, 'ls', '--no-dependencies'], { encoding: 'utf8' });
const files = listing.stdout.trim().split('\n');
const unexpected = files.filter((f) => f.endsWith('.map') || f.startsWith('node_modules/') || /\.tsx?$/.test(f));
if (unexpected.length > 0) throw new Error(`the package must not contain: ${unexpected.join(', ')}`);
console.log(`${out}: ${(statSync(out).size / 1024).toFixed(1)} KiB, ${files.length} files (${files.join(', ')})`);
