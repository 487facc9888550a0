// Offsets <-> 0-based line/character, shared by the CLI (which prints 1-based) and the server.

export interface Position {
  line: number;
  character: number;
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    // LF only, the common case: indexOf finds each line end far faster than a loop over characters.
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return starts;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

export function offsetToPosition(starts: number[], offset: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

export function positionToOffset(starts: number[], pos: Position, textLength: number): number {
  if (pos.line >= starts.length) return textLength;
  const line = Math.max(0, pos.line);
  return Math.min(starts[line] + Math.max(0, pos.character), line + 1 < starts.length ? starts[line + 1] : textLength);
}
