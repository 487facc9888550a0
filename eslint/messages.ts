// ESLint messages are Lockwise's messages with the related locations appended: ESLint has no field for them.
import { relative } from 'node:path';
import type { Finding } from '../rules/types';

export interface Loc {
  /** 1-based. */
  line: number;
  /** 0-based, as ESLint counts. */
  column: number;
}

/** `... Related: 12:5 message; lib/lock.js:4:10 message`, 1-based like `lockwise check`'s pretty output. */
export function messageWithRelated(finding: Finding, locOf: (offset: number) => Loc, fileName = ''): string {
  if (finding.related.length === 0) return finding.message;
  const related = finding.related.map((r) => {
    // A project helper's place in its own file, relative to the current folder as ESLint prints files.
    if (r.file && r.range && r.file !== fileName) return `${relative(process.cwd(), r.file)}:${r.range.line + 1}:${r.range.character + 1} ${r.message}`;
    const at = locOf(r.span.start);
    return `${at.line}:${at.column + 1} ${r.message}`;
  });
  return `${finding.message} Related: ${related.join('; ')}`;
}
