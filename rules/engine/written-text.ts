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

const returnedByName = new WeakMap<ts.SourceFile, Map<string, string | undefined>>();

/**
 * The one expression a function of the file returns, as written: `function next(...) { return ++seq; }`,
 * `const key = (id) => \`lock:${id}\``; a string or template literal, or an expression without braces.
 * Read from the text as written (a lean tree may blank the function), once per file and name.
 */
export function returnedText(sourceFile: ts.SourceFile, name: string): string | undefined {
  let known = returnedByName.get(sourceFile);
  if (!known) returnedByName.set(sourceFile, (known = new Map()));
  if (known.has(name)) return known.get(name);
  const escaped = name.replace(/\$/g, '\\$');
  const value = '(`[^`]*`|\'[^\'\\n]*\'|"[^"\\n]*"|[^;{}\\n]+?)';
  const found = new RegExp(`\\bfunction\\s+${escaped}\\s*\\([^)]*\\)[^{]*\\{\\s*return\\s+${value}\\s*;?\\s*\\}|\\b(?:const|let|var)\\s+${escaped}\\s*=\\s*\\([^)]*\\)\\s*(?::[^=]+)?=>\\s*${value}\\s*(?:[;\\n]|$)`).exec(writtenText(sourceFile));
  const text = found?.[1] ?? found?.[2];
  known.set(name, text);
  return text;
}
