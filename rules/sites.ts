// Lock acquisition sites of a file, for the language server's `lockwise/lockSites` request (the Redis
// Locks panel links a live key to the code that takes it) and for hovers.
import { activeRules, runRules, withModel, type ModelProvider } from './analyze';
import type { ts } from './engine/typescript';
import { emptyConfig, type LockwiseConfig } from './config';
import { firstAtOrAfter } from './engine/sorted';
import { spanOf } from './engine/nodes';
import { releasesOf } from './engine/paths';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import type { AnalysisResult, Finding, Span } from './types';
import { expiryOf, spelledName } from './engine/commands';

export interface LockSiteInfo {
  span: Span;
  /** The key expression as written. */
  keyText: string;
  /** The key as a Redis glob (`lock:order:*`); `*` when nothing is known. */
  keyGlob: string;
  kind: string;
  /** The TTL as written, with its unit (`30000 ms`, `30 s`); undefined when the acquire has none. */
  ttlText?: string;
  /** Where the token comes from, as written. */
  tokenText?: string;
  /** Releases of this lock in the same function. */
  releaseSpans: Span[];
  findings: Finding[];
}

const UNIT_TEXT: Record<string, string> = { PX: 'ms', EX: 's', PXAT: '(unix ms)', EXAT: '(unix s)' };

/** Findings and lock sites of a parsed file from one model (the workspace scan, hovers, the Redis Locks view). */
export function analyzeWithSites(
  sourceFile: ts.SourceFile,
  config: LockwiseConfig = emptyConfig(),
  options: { fixes?: boolean; project?: ModelProvider } = {},
): Omit<AnalysisResult, 'parsed'> & { sites: LockSiteInfo[] } {
  return withModel(sourceFile, config, (model) => {
    const result = runRules(model, activeRules(config), config, options.fixes);
    const spans = { spans: placedSpans(result.findings), findings: result.findings };
    const sites = model.acquires
      .filter((a) => !isRedisAcquire(a) || isLockAcquire(model, a) || a.laterExpire)
      .map((acquire) => {
        const span = spanOf(acquire.call);
        const ttl = acquire.ttl;
        const libraryTtl = !isRedisAcquire(acquire) ? acquire.call.arguments[1]?.getText() : undefined;
        return {
          span,
          keyText: acquire.key?.node.getText() ?? '',
          keyGlob: acquire.key?.glob ?? '*',
          kind: acquire.kind,
          ttlText: ttl?.value
            ? `${ttl.value.getText()} ${UNIT_TEXT[ttl.unit] ?? ''}`.trim()
            : acquire.laterExpire
              ? `${expiryOf(acquire.laterExpire)?.value?.getText() ?? '?'} ${expiryOf(acquire.laterExpire)?.unit === 'PX' ? 'ms' : 's'} (separate ${spelledName(acquire.laterExpire)})`
              : libraryTtl && (acquire.kind === 'redlock' || acquire.kind === 'redlock-using') ? `${libraryTtl} ms` : undefined,
          tokenText: acquire.token?.getText(),
          releaseSpans: releasesOf(model, acquire).map((r) => spanOf(r.call)),
          findings: findingsWithin(spans, span),
        };
      });
    return { ...result, sites };
  }, options.project);
}

interface PlacedSpan extends Span {
  /** Index of the finding in the analysis's (sorted) findings. */
  finding: number;
}

/** Every finding's own span and related spans, by start: a site's findings are then one range of it. */
function placedSpans(findings: readonly Finding[]): PlacedSpan[] {
  const spans = findings.flatMap((f, finding) => [{ ...f.span, finding }, ...f.related.map((r) => ({ ...r.span, finding }))]);
  return spans.sort((a, b) => a.start - b.start);
}

/** The findings with their span or a related span inside `site`, in their original order. */
function findingsWithin(placed: { spans: PlacedSpan[]; findings: readonly Finding[] }, site: Span): Finding[] {
  const { spans, findings } = placed;
  const hits = new Set<number>();
  for (let i = firstAtOrAfter(spans, site.start, (s) => s.start); i < spans.length && spans[i].start <= site.end; i++) if (spans[i].end <= site.end) hits.add(spans[i].finding);
  return [...hits].sort((a, b) => a - b).map((i) => findings[i]);
}
