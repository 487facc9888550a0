// `// lockwise-disable-next-line <id>[, <id>]` and `// lockwise-disable-line <id>`. Without ids, all rules.
import { lineStarts, offsetToPosition } from './positions';
import type { Finding } from './types';

const DIRECTIVE = /\/[/*]\s*lockwise-disable-(next-line|line)\b([^\n*]*)/g;

interface Suppression {
  line: number;
  /** Empty = every rule. */
  rules: string[];
}

function parseSuppressions(text: string, starts: number[]): Suppression[] {
  const found: Suppression[] = [];
  if (!text.includes('lockwise-disable')) return found;
  for (const match of text.matchAll(DIRECTIVE)) {
    const line = offsetToPosition(starts, match.index ?? 0).line + (match[1] === 'next-line' ? 1 : 0);
    const rules = match[2]
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter((s) => /^[a-z][a-z0-9-]*$/.test(s));
    found.push({ line, rules });
  }
  return found;
}

export function applySuppressions(text: string, findings: Finding[]): Finding[] {
  if (findings.length === 0 || !text.includes('lockwise-disable')) return findings;
  const starts = lineStarts(text);
  const suppressions = parseSuppressions(text, starts);
  return findings.filter((f) => {
    const line = offsetToPosition(starts, f.span.start).line;
    return !suppressions.some((s) => s.line === line && (s.rules.length === 0 || s.rules.includes(f.rule)));
  });
}
