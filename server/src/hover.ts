// Hover on a recognised lock acquisition: which Redis keys it takes (as a glob, the form the Redis
// Locks view and SCAN use), its TTL, where its token comes from and where it is released.
// Findings are not repeated here: the editor already shows the diagnostics in the same hover.
import { MarkupKind, type Hover, type HoverParams } from 'vscode-languageserver/node';
import { lineStarts, positionToOffset } from '../../rules/positions';
import type { LockSiteInfo } from '../../rules/sites';
import { PositionMap } from './diagnostics';
import type { LiveDocuments } from './documents';

const KIND_TEXT: Record<string, string> = {
  'set-nx': 'SET … NX',
  setnx: 'SETNX',
  lua: 'a Lua script',
  redlock: 'Redlock acquire',
  'redlock-using': 'Redlock using',
  semaphore: 'redis-semaphore acquire',
  'semaphore-try': 'redis-semaphore tryAcquire',
  'with-lock': 'withLock',
  helper: 'a project helper',
};

/** Markdown inline code that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

export function hoverMarkdown(site: LockSiteInfo, positions: PositionMap): string {
  const lines = [`**Redis lock** ${code(site.keyGlob)}`, ''];
  lines.push(`- Key: ${site.keyText ? code(site.keyText) : 'not recognised'}`);
  lines.push(`- Acquired with: ${KIND_TEXT[site.kind] ?? site.kind}`);
  lines.push(`- TTL: ${site.ttlText ? code(site.ttlText) : '**none**: held forever if this process dies before releasing'}`);
  if (site.tokenText) lines.push(`- Token: ${code(site.tokenText)}`);
  const releases = site.releaseSpans.map((r) => `line ${positions.range(r).start.line + 1}`);
  lines.push(`- Released: ${releases.length > 0 ? releases.join(', ') : 'not in this function'}`);
  return lines.join('\n');
}

export async function provideHover(params: HoverParams, live: LiveDocuments): Promise<Hover | null> {
  const result = await live.current(params.textDocument.uri);
  if (!result) return null;
  const offset = positionToOffset(lineStarts(result.text), params.position, result.text.length);
  // The innermost site under the cursor (a call nested in another call's arguments).
  const site = live
    .sitesOf(result)
    .filter((s) => s.span.start <= offset && offset <= s.span.end)
    .sort((a, b) => a.span.end - a.span.start - (b.span.end - b.span.start))[0];
  if (!site) return null;
  const positions = new PositionMap(result.text);
  return { contents: { kind: MarkupKind.Markdown, value: hoverMarkdown(site, positions) }, range: positions.range(site.span) };
}
