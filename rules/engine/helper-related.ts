// Related locations that point into a project helper, so a finding at a call site says why.
import type { HelperVia } from './model';
import type { RelatedLocation } from '../types';

export function helperRelated(via: HelperVia | undefined, message: string): RelatedLocation[] {
  if (!via) return [];
  const at = via.at;
  return [{
    span: { start: at.start, end: at.end },
    message,
    file: at.path,
    range: { line: at.line, character: at.character, endLine: at.endLine, endCharacter: at.endCharacter },
  }];
}
