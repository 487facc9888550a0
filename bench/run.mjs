// `npm run bench`: builds, then runs every bench/*.bench.ts in turn; each prints its own figures and
// ratios against a baseline measured in the same run. Usage: node bench/run.mjs [substring ...]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const filters = process.argv.slice(2);
const benches = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

const build = spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file}`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
