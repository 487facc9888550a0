// ESLint messages are Lockwise's messages with the related locations appended: ESLint has no field for them.
import type { Finding } from '../rules/types';

export interface Loc {
  /** 1-based. */
  line: number;
  /** 0-based, as ESLint counts. */
  column: number;
}

/** `... Related: 12:5 message; 14:3 message`, 1-based like `lockwise check`'s pretty output. */
export function messageWithRelated(finding: Finding, locOf: (offset: number) => Loc): string {
  if (finding.related.length === 0) return finding.message;
  const related = finding.related.map((r) => {
    const at = locOf(r.span.start);
    return `${at.line}:${at.column + 1} ${r.message}`;
  });
  return `${finding.message} Related: ${related.join('; ')}`;
}
