// A baseline of known findings, so a legacy code base can fail CI on new findings only. Entries are
// matched by rule, file and a fingerprint that survives line moves: a hash of the rule, the file and
// the flagged line's text without whitespace (never its number), plus which occurrence of that same
// line text it is. SARIF's partialFingerprints are the same value, so code scanning tracks alerts alike.
import { lineStarts, offsetToPosition } from './positions';
import type { Finding } from './types';

export interface BaselineEntry {
  rule: string;
  /** Relative to the baseline file's folder, '/' separators. */
  file: string;
  fingerprint: string;
  /** For the reader of the file only; matching ignores it. */
  message?: string;
}

export interface Baseline {
  version: 1;
  entries: BaselineEntry[];
}

export class BaselineError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'BaselineError';
  }
}

/** One fingerprint per finding, in the findings' order (occurrences count in that order). */
export function fingerprints(file: string, text: string, findings: readonly Finding[]): string[] {
  if (findings.length === 0) return [];
  const starts = lineStarts(text);
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const line = offsetToPosition(starts, Math.min(f.span.start, text.length)).line;
    const end = line + 1 < starts.length ? starts[line + 1] : text.length;
    const key = `${f.rule}\u0000${file}\u0000${text.slice(starts[line], end).replace(/\s+/g, '')}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    // Required here, not imported: `lockwise check` without a baseline never loads node:crypto (CLI start).
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    return `${createHash('sha256').update(key).digest('hex').slice(0, 32)}:${n}`;
  });
}

/** Validates a parsed baseline file; throws BaselineError naming the file and the problem. */
export function parseBaseline(raw: unknown, file: string): Baseline {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BaselineError(file, 'a baseline must be a JSON object');
  const { version, entries } = raw as Record<string, unknown>;
  if (version !== 1) throw new BaselineError(file, `unsupported baseline version ${JSON.stringify(version)} (expected 1)`);
  if (!Array.isArray(entries)) throw new BaselineError(file, '"entries" must be an array');
  entries.forEach((e: unknown, i) => {
    const entry = e as Record<string, unknown> | null;
    const ok = typeof entry === 'object' && entry !== null && ['rule', 'file', 'fingerprint'].every((k) => typeof entry[k] === 'string' && entry[k] !== '');
    if (!ok) throw new BaselineError(file, `entry ${i} needs non-empty "rule", "file" and "fingerprint" strings`);
  });
  return { version: 1, entries: entries as BaselineEntry[] };
}

export function serializeBaseline(entries: readonly BaselineEntry[]): string {
  const sorted = [...entries].sort((a, b) => a.file.localeCompare(b.file) || a.rule.localeCompare(b.rule) || a.fingerprint.localeCompare(b.fingerprint));
  return `${JSON.stringify({ version: 1, entries: sorted }, null, 2)}\n`;
}

/** Each entry suppresses one finding; entries left over at the end are stale (fixed or moved away). */
export class BaselineMatcher {
  private readonly remaining = new Map<string, number>();
  private total = 0;
  private used = 0;

  constructor(entries: readonly BaselineEntry[]) {
    for (const e of entries) {
      const key = keyOf(e.rule, e.file, e.fingerprint);
      this.remaining.set(key, (this.remaining.get(key) ?? 0) + 1);
      this.total++;
    }
  }

  /** Marks which of one file's findings the baseline holds (consuming those entries). */
  match(file: string, text: string, findings: readonly Finding[]): boolean[] {
    const prints = fingerprints(file, text, findings);
    return findings.map((f, i) => {
      const key = keyOf(f.rule, file, prints[i]);
      const left = this.remaining.get(key) ?? 0;
      if (left === 0) return false;
      this.remaining.set(key, left - 1);
      this.used++;
      return true;
    });
  }

  get stale(): number {
    return this.total - this.used;
  }
}

function keyOf(rule: string, file: string, fingerprint: string): string {
  return `${rule}\u0000${file}\u0000${fingerprint}`;
}

/** The entries that record `findings` of one file. */
export function entriesFor(file: string, text: string, findings: readonly Finding[]): BaselineEntry[] {
  const prints = fingerprints(file, text, findings);
  return findings.map((f, i) => ({ rule: f.rule, file, fingerprint: prints[i], message: f.message.length > 160 ? `${f.message.slice(0, 157)}...` : f.message }));
}
