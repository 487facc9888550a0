// The one edit that turns one text into another (common prefix and suffix left out): the editor's
// incremental work (the re-parse, the outline, the lean text, the kept analysis) is told where it was.

/** [start, oldEnd) of the old text became [start, newEnd) of the new one. */
export interface TextEdit {
  start: number;
  oldEnd: number;
  newEnd: number;
}

// Texts are compared a block at a time first: string comparison is native, a loop over characters is not.
const BLOCK = 4096;

export function textEdit(before: string, after: string): TextEdit {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start + BLOCK <= shorter && before.slice(start, start + BLOCK) === after.slice(start, start + BLOCK)) start += BLOCK;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let suffix = 0;
  const most = shorter - start;
  while (suffix + BLOCK <= most && before.slice(before.length - suffix - BLOCK, before.length - suffix) === after.slice(after.length - suffix - BLOCK, after.length - suffix)) suffix += BLOCK;
  while (suffix < most && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  return { start, oldEnd: before.length - suffix, newEnd: after.length - suffix };
}

/** Where an offset of the old text is in the new one; undefined inside the replaced part. */
export function movedOffset(at: number, edit: TextEdit): number | undefined {
  if (at <= edit.start) return at;
  return at >= edit.oldEnd ? at + edit.newEnd - edit.oldEnd : undefined;
}
