// The withLock helper as "Convert to withLock" creates it for a config "server", written out and
// imported as a module of its own, so tests run the very text a project gets.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerKind } from '../../rules/config';
import type * as Template from '../../rules/templates/with-lock';
import { forServer } from '../../server/src/code-actions/with-lock-server';

const TEMPLATE_TS = readFileSync(join(import.meta.dirname, '..', '..', 'rules', 'templates', 'with-lock.ts'), 'utf8');
const DIR = join(import.meta.dirname, '..', '.tmp', `created-helpers-${process.pid}`);

export async function createdHelper(server: ServerKind): Promise<typeof Template> {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, `with-lock-${server}.ts`);
  writeFileSync(file, forServer(TEMPLATE_TS, server));
  return (await import(pathToFileURL(file).href)) as typeof Template;
}

export function removeCreatedHelpers(): void {
  rmSync(DIR, { recursive: true, force: true });
}
