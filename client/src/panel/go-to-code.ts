// "Go to Code That Takes This Lock": asks the language server for the workspace's acquire sites,
// keeps those whose key glob matches the lock's key, and opens the one the user picks.
import * as vscode from 'vscode';
import type { LockSite, LockSitesParams, LockSitesResult } from '../../../server/src/protocol';
import { sitesForKey } from './lock-sites-match';

/** Calls the server's `lockwise/lockSites` request (exported by the language client). */
export type LockSitesProvider = (params?: LockSitesParams) => Promise<LockSitesResult>;

async function open(site: LockSite): Promise<void> {
  const { start, end } = site.range;
  const range = new vscode.Range(start.line, start.character, end.line, end.character);
  await vscode.window.showTextDocument(vscode.Uri.parse(site.uri), { selection: range });
}

export async function goToLockCode(key: string, lockSites: LockSitesProvider | undefined): Promise<void> {
  if (!lockSites) {
    void vscode.window.showInformationMessage('Lockwise: the language server is not running, so lock sites are unknown.');
    return;
  }
  let sites: LockSite[];
  try {
    ({ sites } = await lockSites());
  } catch (err) {
    void vscode.window.showWarningMessage(`Lockwise: could not ask the language server for lock sites: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const matches = sitesForKey(key, sites);
  if (matches.length === 0) {
    void vscode.window.showInformationMessage(`Lockwise: no acquire call in this workspace builds a key like ${key}.`);
    return;
  }
  if (matches.length === 1) return open(matches[0]!);
  const picked = await vscode.window.showQuickPick(
    matches.map((site) => ({
      label: `${vscode.workspace.asRelativePath(vscode.Uri.parse(site.uri))}:${site.range.start.line + 1}`,
      description: site.keyText,
      detail: [site.kind, ...site.findings.map((f) => `${f.rule}: ${f.message}`)].join(' · '),
      site,
    })),
    { title: `Code that takes ${key}`, matchOnDescription: true, matchOnDetail: true },
  );
  if (picked) await open(picked.site);
}
