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
 * `const key = (id) => \`lock:${id}\``, a method `lockKey(id) { return ... }`; a string or template
 * literal, or an expression without braces.
 * Read from the text as written (a lean tree may blank the function), once per file and name.
 */
export function returnedText(sourceFile: ts.SourceFile, name: string): string | undefined {
  let known = returnedByName.get(sourceFile);
  if (!known) returnedByName.set(sourceFile, (known = new Map()));
  if (known.has(name)) return known.get(name);
  const escaped = name.replace(/\$/g, '\\$');
  const value = '(`[^`]*`|\'[^\'\\n]*\'|"[^"\\n]*"|[^;{}\\n]+?)';
  // A function, an arrow held in a variable, or a method opening its line (`private lockKey(id) {`).
  const found = new RegExp(`\\bfunction\\s+${escaped}\\s*\\([^)]*\\)[^{]*\\{\\s*return\\s+${value}\\s*;?\\s*\\}|\\b(?:const|let|var)\\s+${escaped}\\s*=\\s*\\([^)]*\\)\\s*(?::[^=]+)?=>\\s*${value}\\s*(?:[;\\n]|$)|(?:^|\\n)[ \\t]*(?:(?:private|protected|public|static|override)\\s+)*${escaped}\\s*\\([^)]*\\)[^{;]*\\{\\s*return\\s+${value}\\s*;?\\s*\\}`).exec(writtenText(sourceFile));
  const text = found?.[1] ?? found?.[2] ?? found?.[3];
  known.set(name, text);
  return text;
}

const throwingByName = new WeakMap<ts.SourceFile, Map<string, boolean>>();
/** After a function's parameter list: a `never` return type, or a body that opens with `throw`. */
const THROWS_AFTER_PARAMETERS = /^\s*(?::\s*never\b|(?::[^{;=]*?)?(?:=>\s*)?\{\s*throw\b)/;

/** The index just after the parenthesis that closes the one at `open`, or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * Does a function or method of the file of this name never return: declared `: never`
 * (`function fail(code: string): never`), or its body opens with a `throw`? A call to it ends the branch
 * it is in. Read from the text as written (a lean tree may blank it), once per file and name.
 */
export function alwaysThrows(sourceFile: ts.SourceFile, name: string): boolean {
  let known = throwingByName.get(sourceFile);
  if (!known) throwingByName.set(sourceFile, (known = new Map()));
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  const text = writtenText(sourceFile);
  let throws = false;
  for (const { end } of parameterListEnds(text, name)) {
    if (THROWS_AFTER_PARAMETERS.test(text.slice(end, end + 200))) {
      throws = true;
      break;
    }
  }
  known.set(name, throws);
  return throws;
}

/**
 * Where each declaration of a function or method of this name ends its parameter list, as written, and
 * whether it is async: a function statement, a method (its name opening a line, after modifiers), or a
 * const arrow.
 */
function* parameterListEnds(text: string, name: string): Generator<{ end: number; async: boolean }> {
  const escaped = name.replace(/\$/g, '\\$');
  const declared = new RegExp(`\\bfunction(?:\\s*\\*\\s*|\\s+)${escaped}\\s*(?:<[^>]*>)?\\s*\\(|^[ \\t]*(?:(?:private|protected|public|static|async|override)\\s+)*${escaped}\\s*(?:<[^>]*>)?\\s*\\(|\\b(?:const|let|var)\\s+${escaped}\\s*=\\s*(?:async\\s*)?\\(`, 'gm');
  for (const match of text.matchAll(declared)) {
    const at = match.index ?? 0;
    const end = closingParen(text, at + match[0].length - 1);
    if (end > 0) yield { end, async: /\basync\b/.test(match[0]) || /\basync\s+$/.test(text.slice(Math.max(0, at - 12), at)) };
  }
}

const syncThrowingByName = new WeakMap<ts.SourceFile, Map<string, boolean>>();
/** A call of a function or method of the file in a body: `name(`, `this.name(`, `Class.name(` (a member call's name is what counts). */
const CALLED = /(?:\bthis\s*\.\s*|\b[A-Z][\w$]*\s*\.\s*|(?<![\w$.]))([\w$]+)\s*\(/g;
const NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'await', 'new', 'super']);

/** The index of the brace that closes the one at `open`, or -1. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The body of a function whose parameter list ends at `end`, as written: the first `{` after its return
 * type (which may hold braces of its own, `: { start: string }`) to the matching `}`; none for a
 * signature or an expression body (a `;` first).
 */
function bodyAfter(text: string, end: number): string | undefined {
  let depth = 0;
  for (let i = end; i < text.length; i++) {
    const c = text[i];
    if (c === ';' && depth === 0) return undefined;
    if (c === '(' || c === '[' || c === '<') depth++;
    else if (c === ')' || c === ']' || (c === '>' && text[i - 1] !== '=')) depth--;
    else if (c === '{') {
      const close = closingBrace(text, i);
      if (close < 0) return undefined;
      // After `)`, a type's last word or `=>`, a brace opens the body; after `:` or `|` it opens a type literal.
      const between = text.slice(end, i).trim();
      if (depth === 0 && /[\w$)\]>}]/.test(between.slice(-1) || ')')) {
        // Only a return type or an arrow comes between: `check(x)` on a line of its own, then `if (...) {`, is a call.
        return between === '' || between.startsWith(':') || between.startsWith('=>') ? text.slice(i, close + 1) : undefined;
      }
      i = close;
    }
  }
  return undefined;
}

/**
 * Can a call of this function or method of the file throw where it is called: a function that is not
 * async (an async one rejects instead) whose body throws, itself or through another such function of
 * the file it calls (`this.buildWindow(now)` calling `this.monthBounds(key)` that throws on a bad key).
 * Read from the text as written (a lean tree may blank both), once per file and name.
 */
export function throwsWhenCalled(sourceFile: ts.SourceFile, name: string, depth = 0): boolean {
  let known = syncThrowingByName.get(sourceFile);
  if (!known) syncThrowingByName.set(sourceFile, (known = new Map()));
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  known.set(name, false); // a cycle, or a body being read: no answer from it
  const text = writtenText(sourceFile);
  let throws = false;
  for (const { end, async } of parameterListEnds(text, name)) {
    const body = async ? undefined : bodyAfter(text, end);
    if (!body) continue;
    if (/\bthrow\b/.test(body) || (depth < 3 && [...body.matchAll(CALLED)].some(([, callee]) => callee !== name && !NOT_CALLS.has(callee) && throwsWhenCalled(sourceFile, callee, depth + 1)))) {
      throws = true;
      break;
    }
  }
  known.set(name, throws);
  return throws;
}
