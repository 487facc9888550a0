// `lockwise/lockSites`: every lock acquisition in the workspace, for the Redis Locks view. Files on
// disk answer from the scan (their sites were kept when they were analysed); open documents answer
// from their current text.
import type { LockSiteInfo } from '../../rules/sites';
import { PositionMap } from './diagnostics';
import type { LiveDocuments } from './documents';
import type { LockSite, LockSitesParams, LockSitesResult } from './protocol';
import { uriToPath } from './uris';
import type { WorkspaceFolders } from './workspace-folders';
import type { WorkspaceScan } from './workspace-scan';

export function toLockSites(uri: string, text: string, sites: readonly LockSiteInfo[]): LockSite[] {
  if (sites.length === 0) return [];
  const positions = new PositionMap(text);
  return sites.map((s) => {
    const site: LockSite = {
      uri,
      range: positions.range(s.span),
      keyText: s.keyText,
      keyGlob: s.keyGlob,
      kind: s.kind,
      findings: s.findings.map((f) => ({ rule: f.rule, message: f.message })),
      releases: s.releaseSpans.map((r) => positions.range(r)),
    };
    if (s.ttlText !== undefined) site.ttlText = s.ttlText;
    if (s.tokenText !== undefined) site.tokenText = s.tokenText;
    return site;
  });
}

export async function lockSites(
  params: LockSitesParams | null | undefined,
  live: LiveDocuments,
  scan: WorkspaceScan,
  folders: WorkspaceFolders,
): Promise<LockSitesResult> {
  const folder = params?.folderUri ? folders.all().find((f) => f.uri === params.folderUri) : undefined;
  if (params?.folderUri && !folder) return { sites: [] };
  const inScope = (path: string | undefined) => !folder || (path !== undefined && folders.folderOf(path) === folder);

  const sites: LockSite[] = [];
  const openPaths = new Set<string>();
  for (const uri of live.documents.keys()) {
    const path = uriToPath(uri);
    if (path) openPaths.add(path);
    if (!inScope(path)) continue;
    const result = await live.current(uri);
    if (result) sites.push(...toLockSites(uri, result.text, live.sitesOf(result)));
  }
  for (const [path, fileSites] of scan.sites()) {
    if (!openPaths.has(path) && inScope(path)) sites.push(...fileSites);
  }
  sites.sort((a, b) => a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return scan.firstScanDone ? { sites } : { sites, partial: true };
}
