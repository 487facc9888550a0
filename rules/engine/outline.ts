// Where the top-level statements of a script end, and the members of its top-level classes, found by a
// small lexer instead of the parser (a tenth of its cost): strings, templates, comments, regular
// expressions and bracket depth are all it tracks. It may miss a boundary, never invent one that splits
// a statement the parser would read as one: a `}` ends a statement only when the next token cannot
// continue it. Callers still check the result against a parse (lock-text.ts). Not for JSX, where
// `<div>` text defeats a lexer this small.

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

/** The outline of a script; undefined when it does not lex (unbalanced brackets, an unterminated string). */
export function outline(text: string): Outline | undefined {
  const statements: number[] = [];
  const classBodies: ClassBody[] = [];
  const templateDepths: number[] = []; // bracket depth outside each open `${`
  let depth = 0;
  let regexAllowed = true;
  // The previous token ends an expression (a name, a literal, a closing bracket): a line break and a
  // declaration keyword after it end its statement.
  let valueEnd = -1;
  let lineBreakSince = false;
  let previous = 0; // the previous token's first character
  let classAhead = false; // a top-level `class` keyword whose body has not opened yet
  let body: ClassBody | undefined; // the top-level class body the lexer is in
  let i = text.startsWith('#!') ? lineEnd(text, 0) : 0;
  const boundary = (at: number) => {
    if (depth === 0) statements.push(handOver(text, at));
    else if (body && depth === 1) body.members.push(handOver(text, at));
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
          classBodies.push(body);
          body = undefined;
        }
        i++;
        if (startsStatement(text, nextToken(text, i), depth > 0)) boundary(i);
        value = true;
      }
    } else if (c === 59) {
      i++;
      // `if (x) a(); else b();` is one statement.
      const next = nextToken(text, i);
      if (!(text.startsWith('else', next) && !isWordChar(text.charCodeAt(next + 4)))) boundary(i);
      if (depth === 0) classAhead = false;
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
  }
  if (depth !== 0 || templateDepths.length > 0) return undefined;
  return { statements: ascending(statements), classBodies: classBodies.map((b) => ({ ...b, members: ascending(b.members) })) };
}

/** handOver may have moved two boundaries to the same line end. */
function ascending(offsets: number[]): number[] {
  return offsets.filter((b, k) => k === 0 || b > offsets[k - 1]);
}
