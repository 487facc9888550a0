// Where the top-level statements of a script end, and the members of its top-level classes, found by a
// small lexer instead of the parser (a tenth of its cost): strings, templates, comments, regular
// expressions and bracket depth are all it tracks. It may miss a boundary, never invent one that splits
// a statement the parser would read as one: a `}` ends a statement only when the next token cannot
// continue it. Callers still check the result against a parse (lock-text.ts). Not for JSX, where
// `<div>` text defeats a lexer this small. An editor outlines the same document after every keystroke:
// the lexer then starts at the last statement (or class member) boundary before the edit and stops at
// the first one after it where it is in the state the previous run was in, taking the rest from that run.
import { firstAtOrAfter } from './sorted';
import type { TextEdit } from './text-edit';

/** Keywords after which a `/` starts a regular expression, and which cannot end an expression. */
const OPERATOR_WORDS = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await',
  'extends', 'export', 'default', 'declare', 'async', 'abstract', 'import', 'from', 'as', 'satisfies', 'keyof', 'readonly',
]);
/** Words that, after a `}`, continue the statement it closes. */
const CONTINUATIONS = new Set(['else', 'catch', 'finally', 'while', 'in', 'instanceof', 'as', 'satisfies', 'of', 'extends', 'implements', 'from']);
/** Words that start a statement no expression can run into, so a line break before one ends the previous statement. */
const DECLARATIONS = new Set(['import', 'export', 'const', 'let', 'var', 'function', 'class', 'interface', 'enum']);

const LF = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;

function isLineBreak(c: number): boolean {
  return c === LF || c === CR || c === 0x2028 || c === 0x2029;
}

// Character classes of ASCII, looked up rather than compared: the lexer reads every character.
const WORD = 1;
const SPACE = 2;
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c === 35 || c === BACKSLASH) ASCII[c] = WORD;
  else if (c === 32 || c === 9 || c === 11 || c === 12) ASCII[c] = SPACE;
}

function isSpace(c: number): boolean {
  return c < 128 ? ASCII[c] === SPACE : c === 0xa0 || c === 0xfeff || /\s/.test(String.fromCharCode(c));
}

function isWordChar(c: number): boolean {
  return c < 128 ? ASCII[c] === WORD : !isSpace(c) && !isLineBreak(c);
}

/** The keywords the lexer acts on (all 2-10 lowercase letters), by first letter. */
const KEYWORDS: string[][] = [];
for (const word of new Set([...OPERATOR_WORDS, ...DECLARATIONS, 'class'])) (KEYWORDS[word.charCodeAt(0)] ??= []).push(word);

/** The keyword the word text[start, end) is, or '': compared in place, since most words are names. */
function keywordAt(text: string, start: number, end: number): string {
  const length = end - start;
  if (length < 2 || length > 10) return '';
  const candidates = KEYWORDS[text.charCodeAt(start)];
  if (candidates) for (const keyword of candidates) if (keyword.length === length && text.startsWith(keyword, start)) return keyword;
  return '';
}

/** Offset just past a string literal opened at `start`; -1 when unterminated. */
function skipString(text: string, start: number): number {
  const quote = text.charCodeAt(start);
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) return i + 1;
    if (c === BACKSLASH) i++;
    else if (c === LF || c === CR) return -1;
  }
  return -1;
}

/** Offset just past a regular expression opened at `start` (flags included); -1 when unterminated. */
function skipRegex(text: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isLineBreak(c)) return -1;
    if (c === BACKSLASH) i++;
    else if (c === 91) inClass = true; // [
    else if (c === 93) inClass = false; // ]
    else if (c === SLASH && !inClass) {
      let end = i + 1;
      while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
      return end;
    }
  }
  return -1;
}

/** Offset of the next token at or after `from`, past spaces, line breaks and comments. */
function nextToken(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || isLineBreak(c)) i++;
    else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) i = lineEnd(text, i);
    else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return text.length;
      i = close + 2;
    } else break;
  }
  return i;
}

function lineEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Where a statement that ends at `end` hands over to the next: past the comments on the rest of its
 * line and that line break, so `stmt; // lockwise-disable-line` stays with its statement.
 */
function handOver(text: string, end: number): number {
  let i = end;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) i++;
    else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) return lineBreakEnd(text, lineEnd(text, i));
    else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || /[\r\n\u2028\u2029]/.test(text.slice(i, close))) return end;
      i = close + 2;
    } else if (isLineBreak(c)) return lineBreakEnd(text, i);
    else return end;
  }
  return i;
}

function lineBreakEnd(text: string, at: number): number {
  if (at >= text.length) return at;
  return text.charCodeAt(at) === CR && text.charCodeAt(at + 1) === LF ? at + 2 : at + 1;
}

/** Does the token at `at`, after a `}` that closed a top-level statement (or a class member), start a new one? */
function startsStatement(text: string, at: number, member: boolean): boolean {
  if (at >= text.length) return true;
  const c = text.charCodeAt(at);
  if (c === 64 || c === 39 || c === 34) return true; // @decorator, 'string', "string"
  if (member && (c === 91 || c === STAR)) return true; // [computed]() {}, *generator() {}
  if (!isWordChar(c) || (c >= 48 && c <= 57)) return false;
  let end = at;
  while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
  return !CONTINUATIONS.has(text.slice(at, end));
}

/** A top-level class body: its inside (between the braces) and where one member hands over to the next. */
export interface ClassBody {
  start: number;
  end: number;
  members: number[];
}

export interface Outline {
  /** Sorted offsets where one top-level statement hands over to the next. */
  statements: number[];
  classBodies: ClassBody[];
}

/**
 * The lexer's state just after a top-level statement or a member of a top-level class ended: a run over
 * a text that differs only after `readTo` may start here instead of at the top (an editor's keystroke).
 */
interface Checkpoint {
  /** Where the lexer goes on. */
  at: number;
  /** Every character the lexer read to get here is before this offset (look-ahead included). */
  readTo: number;
  depth: number;
  regexAllowed: boolean;
  valueEnd: number;
  previous: number;
  classAhead: boolean;
  /** The open class body's start, or -1. */
  bodyStart: number;
  /** How many statement boundaries, boundaries of the open body's members, and closed bodies there were. */
  statements: number;
  members: number;
  bodies: number;
}

/** One run of the lexer: the boundaries as found (before `ascending`), and where a later run may resume. */
export interface Run {
  text: string;
  statements: number[];
  bodies: ClassBody[];
  checkpoints: Checkpoint[];
}

/** Characters lexed, for the tests: an edit must not lex the whole text again. */
export const outlineWork = { lexed: 0 };

/**
 * The outline of a script; undefined when it does not lex (unbalanced brackets, an unterminated string).
 * `previous`, the run of an earlier text and the edit from it (an editor outlines the same document after
 * every keystroke), is resumed where it can be; the run of this text is handed to `keep` for the next.
 */
export function outline(text: string, previous?: { run: Run; edit: TextEdit }, keep?: (run: Run) => void): Outline | undefined {
  const run = (previous && resumed(previous.run, previous.edit, text)) ?? lex(text);
  if (run) keep?.(run);
  return run && { statements: ascending(run.statements), classBodies: run.bodies.map((b) => ({ ...b, members: ascending(b.members) })) };
}

/**
 * The run over `text` that starts at the last checkpoint of `previous` before the edit and, once past the
 * edit, ends at the first checkpoint in the same state as one of `previous`, whose later boundaries are
 * then the old ones moved. Undefined when the whole text must be lexed (no checkpoint before the edit).
 */
function resumed(previous: Run, edit: TextEdit, text: string): Run | undefined {
  const { checkpoints } = previous;
  let k = checkpoints.length - 1;
  while (k >= 0 && checkpoints[k].readTo > edit.start) k--;
  return k < 0 ? undefined : lex(text, { previous, from: checkpoints[k], edit });
}

interface Resume {
  previous: Run;
  from: Checkpoint;
  edit: TextEdit;
}

function lex(text: string, resume?: Resume): Run | undefined {
  const from = resume?.from;
  const statements: number[] = from ? resume.previous.statements.slice(0, from.statements) : [];
  const bodies: ClassBody[] = from ? resume.previous.bodies.slice(0, from.bodies) : [];
  const checkpoints: Checkpoint[] = from ? resume.previous.checkpoints.slice(0, resume.previous.checkpoints.indexOf(from) + 1) : [];
  const templateDepths: number[] = []; // bracket depth outside each open `${`
  let depth = from?.depth ?? 0;
  let regexAllowed = from?.regexAllowed ?? true;
  // The previous token ends an expression (a name, a literal, a closing bracket): a line break and a
  // declaration keyword after it end its statement.
  let valueEnd = from?.valueEnd ?? -1;
  let lineBreakSince = false;
  let previous = from?.previous ?? 0; // the previous token's first character
  let classAhead = from?.classAhead ?? false; // a top-level `class` keyword whose body has not opened yet
  // The top-level class body the lexer is in.
  let body: ClassBody | undefined = from && from.bodyStart >= 0 ? { start: from.bodyStart, end: from.bodyStart, members: resume.previous.bodies[from.bodies].members.slice(0, from.members) } : undefined;
  let i = from ? from.at : text.startsWith('#!') ? lineEnd(text, 0) : 0;
  const first = i;
  /** Set by a token that may end a statement or a member: how far the lexer read to decide. */
  let readTo = -1;
  const boundary = (at: number) => {
    if (depth === 0) statements.push(handOver(text, at));
    else if (body && depth === 1) body.members.push(handOver(text, at));
  };
  /** Past the edit, the old run's rest when this state is one it was in at the same (moved) place. */
  const synced = (here: Checkpoint): Run | undefined => {
    if (!resume || here.at < resume.edit.newEnd) return undefined;
    const { previous: old, edit } = resume;
    const delta = edit.newEnd - edit.oldEnd;
    const moved = (at: number) => (at < edit.start ? at : at + delta);
    const k = firstAtOrAfter(old.checkpoints, here.at - delta, (c) => c.at);
    const there = old.checkpoints[k];
    if (!there || there.at !== here.at - delta || there.depth !== here.depth || there.regexAllowed !== here.regexAllowed || there.previous !== here.previous) return undefined;
    if (there.classAhead !== here.classAhead || (there.valueEnd < 0 ? -1 : moved(there.valueEnd)) !== here.valueEnd || (there.bodyStart < 0 ? -1 : moved(there.bodyStart)) !== here.bodyStart) return undefined;
    const shift = (at: number) => at + delta;
    for (const at of old.statements.slice(there.statements)) statements.push(shift(at));
    old.bodies.slice(there.bodies).forEach((b, n) => {
      // The body the lexer is in: its members so far from this run, the rest from the old one.
      const open = n === 0 ? body : undefined;
      bodies.push(open ? { start: open.start, end: shift(b.end), members: [...open.members, ...b.members.slice(there.members).map(shift)] } : { start: shift(b.start), end: shift(b.end), members: b.members.map(shift) });
    });
    const counts = { statements: here.statements - there.statements, members: here.members - there.members, bodies: here.bodies - there.bodies };
    // Written out field by field: a spread copy of each of a thousand checkpoints was most of an edit's outline.
    for (let j = k + 1; j < old.checkpoints.length; j++) {
      const c = old.checkpoints[j];
      checkpoints.push({
        at: shift(c.at),
        readTo: shift(c.readTo),
        depth: c.depth,
        regexAllowed: c.regexAllowed,
        valueEnd: c.valueEnd < 0 ? -1 : moved(c.valueEnd),
        previous: c.previous,
        classAhead: c.classAhead,
        bodyStart: c.bodyStart < 0 ? -1 : moved(c.bodyStart),
        statements: c.statements + counts.statements,
        members: c.bodyStart === there.bodyStart && c.bodies === there.bodies ? c.members + counts.members : c.members,
        bodies: c.bodies + counts.bodies,
      });
    }
    return { text, statements, bodies, checkpoints };
  };

  const templateBody = (from: number): number => {
    for (let j = from; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) j++;
      else if (c === 96) return j + 1; // closing backtick
      else if (c === 36 && text.charCodeAt(j + 1) === 123) {
        templateDepths.push(depth++);
        return j + 2;
      }
    }
    return -1;
  };

  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isLineBreak(c)) {
      lineBreakSince = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      i = lineEnd(text, i);
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return undefined;
      if (/[\r\n\u2028\u2029]/.test(text.slice(i, close))) lineBreakSince = true;
      i = close + 2;
      continue;
    }
    const tokenStart = i;
    let value = false;
    if (c === SLASH) {
      if (regexAllowed) {
        i = skipRegex(text, i);
        if (i < 0) return undefined;
        value = true;
      } else i++;
    } else if (c === 39 || c === 34) {
      i = skipString(text, i);
      if (i < 0) return undefined;
      value = true;
    } else if (c === 96) {
      i = templateBody(i + 1);
      if (i < 0) return undefined;
      value = text.charCodeAt(i - 1) === 96;
    } else if (c === 123 || c === 40 || c === 91) {
      if (c === 123 && depth === 0 && classAhead) {
        body = { start: i + 1, end: i + 1, members: [] };
        classAhead = false;
      }
      depth++;
      i++;
    } else if (c === 41 || c === 93) {
      if (--depth < 0) return undefined;
      i++;
      value = true;
    } else if (c === 125) {
      if (templateDepths.length > 0 && templateDepths[templateDepths.length - 1] === depth - 1) {
        depth = templateDepths.pop() as number;
        i = templateBody(i + 1);
        if (i < 0) return undefined;
        value = text.charCodeAt(i - 1) === 96;
      } else {
        if (--depth < 0) return undefined;
        if (depth === 0 && body) {
          body.end = i;
          bodies.push(body);
          body = undefined;
        }
        i++;
        const next = nextToken(text, i);
        if (startsStatement(text, next, depth > 0)) boundary(i);
        readTo = lookedAt(text, next);
        value = true;
      }
    } else if (c === 59) {
      i++;
      // `if (x) a(); else b();` is one statement.
      const next = nextToken(text, i);
      if (!(text.startsWith('else', next) && !isWordChar(text.charCodeAt(next + 4)))) boundary(i);
      if (depth === 0) classAhead = false;
      readTo = lookedAt(text, next);
    } else if (isWordChar(c)) {
      while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      const word = keywordAt(text, tokenStart, i);
      if (depth === 0 && lineBreakSince && valueEnd >= 0 && DECLARATIONS.has(word)) boundary(valueEnd);
      if (depth === 0 && word === 'class' && previous !== 46) classAhead = true; // not `x.class`
      value = !OPERATOR_WORDS.has(word);
      // A number's exponent sign: 1e+5.
      const last = text.charCodeAt(i - 1);
      if (c >= 48 && c <= 57 && (last === 101 || last === 69) && (text[i] === '+' || text[i] === '-')) {
        i++;
        while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
      }
    } else {
      i++; // an operator or punctuation character
    }
    regexAllowed = !value;
    valueEnd = value ? i : -1;
    lineBreakSince = false;
    previous = c;
    if (readTo >= 0 && templateDepths.length === 0 && (depth === 0 || (body && depth === 1))) {
      const here: Checkpoint = {
        at: i,
        readTo: Math.max(readTo, checkpoints[checkpoints.length - 1]?.readTo ?? 0),
        depth,
        regexAllowed,
        valueEnd,
        previous,
        classAhead,
        bodyStart: body ? body.start : -1,
        statements: statements.length,
        members: body ? body.members.length : 0,
        bodies: bodies.length,
      };
      checkpoints.push(here);
      const rest = synced(here);
      if (rest) {
        outlineWork.lexed += i - first;
        return rest;
      }
    }
    readTo = -1;
  }
  outlineWork.lexed += i - first;
  if (depth !== 0 || templateDepths.length > 0) return undefined;
  return { text, statements, bodies, checkpoints };
}

/** Just past what the lexer may have read of the token at `at` (a word, or `else` and the character after it). */
function lookedAt(text: string, at: number): number {
  let end = at;
  while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
  return Math.max(end, at + 5) + 1;
}

/** handOver may have moved two boundaries to the same line end. */
function ascending(offsets: number[]): number[] {
  return offsets.filter((b, k) => k === 0 || b > offsets[k - 1]);
}
