// `npm run test:e2e`: installs the tools (cached in .e2e/tools), packages the .vsix with `npm run package`,
// then runs test/e2e/*.e2e.ts with Node's test runner. Not part of `npm test` (its glob is *.test.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { installAll } from '../../scripts/e2e-tools.mjs';

installAll();
const packaged = spawnSync(process.execPath, ['scripts/package.mjs'], { stdio: 'inherit' });
if (packaged.status !== 0) process.exit(packaged.status ?? 1);

const files = readdirSync('test/e2e').filter((f) => f.endsWith('.e2e.ts')).map((f) => join('test/e2e', f));
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
