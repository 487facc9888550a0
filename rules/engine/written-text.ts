// A lean tree's text has the declarations with no lock word blanked (lock-text.ts). The few questions
// asked of code outside the lock code (is this function of the file async?) are asked of the text as
// written, so that a lean tree and a whole one answer them alike.
import type { ts } from './typescript';

const written = new WeakMap<ts.SourceFile, string>();

/** Records the text a lean tree was made from. */
export function rememberWrittenText(sourceFile: ts.SourceFile, text: string): void {
  if (text !== sourceFile.text) written.set(sourceFile, text);
}

/** The file's text as written: a lean tree's source, else the tree's own text. */
export function writtenText(sourceFile: ts.SourceFile): string {
  return written.get(sourceFile) ?? sourceFile.text;
}
