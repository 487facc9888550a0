// The file-level pre-check (prefilter.ts) at the level of declarations: in a large file with a little
// lock code, the top-level functions and classes, and the members of top-level classes, that hold no
// word the lock model is built from are blanked out before parsing, so the parser and every walk after
// it see only the rest. Blanking keeps every line break and the length, so offsets, lines and columns
// are those of the file as written.
//
// Only declarations go: each has its own scope, so no rule's reading of another function changes
// (control flow, the uses of a result, closures). Every other top-level statement stays, as do
// small class members (property initialisers a key may be read from). The words: a Redis command a
// lock uses, a lock library, a name that says lock, a Redis module, a configured helper, a catch that
// returns (a helper that hands errors back, which release-on-all-paths reads).
// test/rules/lock-text.test.ts holds the analysis of the lean text to that of the whole file.
import type { HelperNames } from '../config';
import { outline } from './outline';
import { firstAtOrAfter } from './sorted';
import { ts } from './typescript';

/** The text with declarations that cannot hold lock code blanked, and the blanked spans [start, end). */
export interface LeanText {
  text: string;
  blanked: Array<[number, number]>;
}

// One case-insensitive pass. The lock-name words (LOCK_NAME) as plain substrings, which also finds
// `block` and `clock` (keeping a little more than needed is safe; a second pass cost a third more).
// The lock libraries' methods only as calls, in any case as the engine reads them: as words they
// would keep every SQL statement with USING or RELEASE SAVEPOINT in it.
const EVIDENCE = new RegExp(
  [
    'lock|mutex|mtx|semaphore|leader|latch',
    // Commands a lock is taken, released, extended or fenced with, in any client's spelling, and SET's options.
    String.raw`\b(?:setnx|del|unlink|getdel|delex|delifeq|p?expire(?:at)?|eval(?:sha)?|incr|sendcommand|send_command|customcommand|invokescript|callbuffer|multi|pipeline|nx|xx|ifeq|onlyifdoesnotexist|onlyifequal)\b`,
    // SET with a TTL (a GET-compare-SET renewal, a GET-then-SET claim): `'EX'`, `"PX"`, node-redis `{ EX: 60 }`.
    String.raw`['"\x60](?:ex|px)['"\x60]|\b(?:EX|PX)\s*:`,
    // Lua scripts loaded or registered under a name.
    String.raw`\b(?:definecommand|script|scriptload|script_load)\b`,
    String.raw`\b(?:acquire|tryacquire|release|extend|using)\s*(?:<[^()]*>\s*)?(?:\?\.\s*)?\(|['"\x60](?:acquire|tryacquire|release|extend|using)['"\x60]`,
    // A catch that hands the error back: a helper whose awaited work never throws (engine/never-throws.ts).
    String.raw`\bcatch\b[^{}]*\{[^{}]*\breturn\b`,
    // Modules that decide the client style and the library a class comes from.
    String.raw`['"\x60](?:ioredis|redis|@redis\/[\w-]+|@valkey\/valkey-glide|redlock|@sesamecare-oss\/redlock|redis-semaphore)['"\x60]|\brequire\s*\(`,
  ].join('|'),
  'i',
);
// A script registered with defineCommand makes a method of its name a lock command: the name is
// evidence too. One that is not a literal, or scripts passed as a client option, and the file is parsed whole.
const DEFINE_COMMAND = /defineCommand\s*\(\s*(?:(['"\x60])([\w$]+)\1)?/g;
const SCRIPTS_OPTION = /\bscripts\s*:/;
const LEADING = String.raw`^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*`;
const FUNCTION_OR_CLASS = new RegExp(`${LEADING}(?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:function|class)\\b`);
const CLASS = new RegExp(`${LEADING}(?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:abstract\\s+)?class\\b`);
/** Members up to this size stay: blanking them saves little, and a key or TTL may be read from one. */
const SMALL_MEMBER = 300;
/** Below this share of the text blanked, parsing the whole file is cheaper than blanking it. */
const WORTH_BLANKING = 0.3;

/** Spans between consecutive boundaries, from `start` to `end`. */
function spans(start: number, end: number, boundaries: number[]): Array<[number, number]> {
  const inside = boundaries.filter((b) => b > start && b < end);
  return [start, ...inside].map((from, k) => [from, k < inside.length ? inside[k] : end]);
}

/**
 * The answers of the last leanText by declaration text (with the helper names they were tested for): an
 * editor's next keystroke re-tests only the declaration it changed, not the 5,000 lines around it.
 */
let lastTests = { names: '', holds: new Map<string, boolean>() };
/** The blanked form of each declaration the last leanText blanked, by its text. */
let lastBlanks = new Map<string, string>();

/** The lean text of a script, or undefined when there is too little to blank (or it cannot be cut safely). */
export function leanText(text: string, helpers: HelperNames, isJsx: boolean): LeanText | undefined {
  if (isJsx || SCRIPTS_OPTION.test(text)) return undefined;
  const shape = outline(text);
  if (!shape || (shape.statements.length === 0 && shape.classBodies.length === 0)) return undefined;
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  for (const [, , script] of text.matchAll(DEFINE_COMMAND)) {
    if (!script) return undefined;
    names.push(script);
  }
  // Slices share the file's characters, and a test stops at the first word it finds.
  const namesKey = names.join('\0');
  const previous = lastTests.names === namesKey ? lastTests.holds : undefined;
  const holds = new Map<string, boolean>();
  const holdsEvidence = ([start, end]: [number, number]) => {
    const code = text.slice(start, end);
    let answer = holds.get(code) ?? previous?.get(code);
    answer ??= EVIDENCE.test(code) || names.some((name) => code.includes(name));
    holds.set(code, answer);
    return answer;
  };

  const blanked: Array<[number, number]> = [];
  const statements = spans(0, text.length, shape.statements);
  // Only functions and classes are blanked: the cheap anchored test first, the evidence search (kept by
  // text, so a class asked again for its members is not searched twice) only where it may matter.
  for (let k = 1; k < statements.length; k++) {
    // The first statement stays: fixes add imports before it.
    const statement = statements[k];
    if (FUNCTION_OR_CLASS.test(text.slice(statement[0], statement[1])) && !holdsEvidence(statement)) blanked.push(statement);
  }
  for (const body of shape.classBodies) {
    const holder = statements[firstAtOrAfter(statements, body.start + 1, ([, end]) => end)];
    if (!holder || !CLASS.test(text.slice(holder[0], body.start)) || !holdsEvidence(holder)) continue;
    for (const member of spans(body.start, body.end, body.members)) {
      if (member[1] - member[0] > SMALL_MEMBER && !holdsEvidence(member)) blanked.push(member);
    }
  }
  lastTests = { names: namesKey, holds };
  const saved = blanked.reduce((n, [start, end]) => n + end - start, 0);
  if (saved < text.length * WORTH_BLANKING) return undefined;

  blanked.sort((a, b) => a[0] - b[0]);
  const previousBlanks = lastBlanks;
  lastBlanks = new Map();
  let lean = '';
  let at = 0;
  for (const [start, end] of blanked) {
    const code = text.slice(start, end);
    let blanks = previousBlanks.get(code);
    if (blanks === undefined) blanks = blank(code);
    lastBlanks.set(code, blanks);
    lean += text.slice(at, start) + blanks;
    at = end;
  }
  return { text: lean + text.slice(at), blanked };
}

/** Spaces for everything but line breaks, so offsets and lines stay as written. */
export function blank(s: string): string {
  if (/\r(?!\n)|[\u2028\u2029]/.test(s)) return s.replace(/[^\r\n\u2028\u2029]+/g, (run) => ' '.repeat(run.length));
  // Line by line: one repeat per line is cheaper than a regular expression over the whole span.
  return s
    .split('\n')
    .map((line) => (line.endsWith('\r') ? `${' '.repeat(line.length - 1)}\r` : ' '.repeat(line.length)))
    .join('\n');
}

/**
 * Did the parser read the lean text without errors, with every blanked span between top-level
 * statements or between the members of a top-level class? If the lexer was wrong about a boundary, a
 * span cuts through a node or the parse fails; the caller then parses the whole file.
 */
export function leanParseHolds(sourceFile: ts.SourceFile, blanked: Array<[number, number]>): boolean {
  if ((sourceFile as unknown as { parseDiagnostics: readonly unknown[] }).parseDiagnostics.length > 0) return false;
  const statements = sourceFile.statements;
  // Runs of blanked members share the member after them: find where each starts once.
  const starts = new Map<ts.Node, number>();
  const startOf = (node: ts.Node) => {
    let start = starts.get(node);
    if (start === undefined) starts.set(node, (start = node.getStart(sourceFile)));
    return start;
  };
  return blanked.every(([start, end]) => {
    const holder = statements[firstAtOrAfter(statements, start + 1, (st) => st.end)];
    if (!holder || startOf(holder) >= end) return true;
    // Inside a class: between its braces, and the first member that ends after the span starts after it.
    if (!ts.isClassDeclaration(holder) || start < holder.members.pos || end >= holder.end) return false;
    const next = holder.members[firstAtOrAfter(holder.members, start + 1, (m) => m.end)];
    return !next || startOf(next) >= end;
  });
}
