// Each step of the e2e run leaves a screenshot in test/e2e/.artifacts/; a failing step also leaves the
// extension host and code-server logs next to it, so a red CI run can be read without re-running it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeServer } from './code-server';
import { ARTIFACTS } from './paths';
import type { Page } from './playwright';

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

export async function step(page: Page, server: CodeServer, name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    await page.screenshot({ path: artifactPath(`${name}.png`) });
  } catch (err) {
    await page.screenshot({ path: artifactPath(`${name}.FAILED.png`) }).catch(() => undefined);
    server.saveLogs(artifactPath(`${name}.FAILED-logs`));
    throw err;
  }
}
