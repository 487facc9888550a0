// Where the e2e harness finds the repository, its tool folder, the .vsix and where it writes artifacts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..', '..');
export const TOOLS_DIR = join(REPO, '.e2e', 'tools');
export const CODE_SERVER_ENTRY = join(TOOLS_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const ARTIFACTS = join(REPO, 'test', 'e2e', '.artifacts');
export const README_IMAGES = join(REPO, 'docs', 'images');
export const FIXTURE_WORKSPACE = join(REPO, 'test', 'e2e', 'fixtures', 'workspace');

const { name, version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; version: string };
/** What `npm run package` builds (test/e2e/run.mjs runs it first). */
export const VSIX = join(REPO, `${name}-${version}.vsix`);
