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
import { outline, type Run } from './outline';
import { firstAtOrAfter } from './sorted';
import { textEdit, type TextEdit } from './text-edit';
import { ts } from './typescript';

/** The text with declarations that cannot hold lock code blanked, and the blanked spans [start, end). */
export interface LeanText {
  text: string;
  blanked: Array<[number, number]>;
  /** What a leanText of the next version of the text (an editor's keystroke later) re-uses. */
  kept: KeptLean;
}

/**
 * A lean text's outline run, evidence answers by place, and blanks: the next version re-tests only the
 * declarations the edit changed and takes the blanks of the others from here.
 */
export interface KeptLean {
  text: string;
  names: string;
  run?: Run;
  /** Each declaration tested, by its start: its end and where its first evidence is. */
  answers: Map<number, [end: number, evidence: Evidence]>;
  blanked: Array<[number, number]>;
  lean: string;
}

// One case-insensitive pass. The lock-name words (LOCK_NAME) as plain substrings, which also finds
// `block` and `clock` (keeping a little more than needed is safe; a second pass cost a third more).
// The lock libraries' methods only as calls, in any case as the engine reads them: as words they
// would keep every SQL statement with USING or RELEASE SAVEPOINT in it.
const EVIDENCE = new RegExp(
  [
    'lock|mutex|mtx|semaphore|leader|latch',
    // Commands a lock is taken, released, extended or fenced with, in any client's spelling (bluebird's
    // `delAsync` too), and SET's options.
    String.raw`\b(?:setnx|del|unlink|getdel|delex|delifeq|p?expire(?:at)?|eval(?:sha)?|incr|sendcommand|send_command|customcommand|invokescript|callbuffer|multi|pipeline|nx|xx|ifeq|onlyifdoesnotexist|onlyifequal)(?:async)?\b`,
    // SET with a TTL (a GET-compare-SET renewal, a GET-then-SET claim): `'EX'`, `"PX"`, node-redis `{ EX: 60 }`.
    String.raw`['"\x60](?:ex|px)['"\x60]|\b(?:EX|PX)\s*:`,
    // Lua scripts loaded or registered under a name.
    String.raw`\b(?:definecommand|script|scriptload|script_load)\b`,
    String.raw`\b(?:acquire|tryacquire|release|extend|using)\s*(?:<[^()]*>\s*)?(?:\?\.\s*)?\(|['"\x60](?:acquire|tryacquire|release|extend|using)['"\x60]`,
    // A catch that hands the error back: a helper whose awaited work never throws (engine/never-throws.ts).
    String.raw`\bcatch\b[^{}]*\{[^{}]*\breturn\b`,
    // A timer handed a bare resolve: a sleep helper, a wait that never throws (engine/never-throws.ts).
    String.raw`\bsetTimeout\s*\(\s*[\w$]+\s*,`,
    // A client made (in a getter whose null answer may say Redis is not configured: configured-client.ts).
    String.raw`\bnew\s+(?:Redis|IORedis|Cluster)\s*\(|\bcreateClient\s*\(`,
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

/** Where a declaration's first evidence is, [start, end) of the text; null when it holds none. */
type Evidence = [number, number] | null;

/** The first evidence in [start, end) of the text; a search stops at the first word it finds. */
function evidenceIn(text: string, start: number, end: number, names: readonly string[]): Evidence {
  const code = text.slice(start, end);
  const found = EVIDENCE.exec(code);
  if (found) return [start + found.index, start + found.index + found[0].length];
  for (const name of names) {
    const at = code.indexOf(name);
    if (at >= 0) return [start + at, start + at + name.length];
  }
  return null;
}

/**
 * The evidence of declaration [start, end) after `edit`, from the last text's answers: an unchanged
 * declaration's, or, in the one that holds the edit, evidence clear of it with the characters next to it
 * (a word boundary); undefined when the declaration must be searched again.
 */
function evidenceKept(answers: KeptLean['answers'], edit: TextEdit, start: number, end: number): Evidence | undefined {
  const delta = edit.newEnd - edit.oldEnd;
  if (end <= edit.start || start >= edit.newEnd) {
    const shift = end <= edit.start ? 0 : delta;
    const old = answers.get(start - shift);
    if (old?.[0] !== end - shift) return undefined;
    return old[1] && [old[1][0] + shift, old[1][1] + shift];
  }
  if (start > edit.start || end < edit.newEnd) return undefined;
  const old = answers.get(start);
  if (old?.[0] !== end - delta || !old[1]) return undefined;
  const [from, to] = old[1];
  if (to < edit.start) return old[1];
  return from > edit.oldEnd ? [from + delta, to + delta] : undefined;
}

/** Spans between consecutive boundaries, from `start` to `end`. */
function spans(start: number, end: number, boundaries: number[]): Array<[number, number]> {
  const inside = boundaries.filter((b) => b > start && b < end);
  return [start, ...inside].map((from, k) => [from, k < inside.length ? inside[k] : end]);
}

/**
 * The lean text of a script, or undefined when there is too little to blank (or it cannot be cut safely).
 * `previous` is what the lean text of an earlier version of the script kept.
 */
export function leanText(text: string, helpers: HelperNames, isJsx: boolean, previous?: KeptLean): LeanText | undefined {
  if (isJsx || SCRIPTS_OPTION.test(text)) return undefined;
  const edit = previous && textEdit(previous.text, text);
  let run: Run | undefined;
  const shape = outline(text, previous?.run && edit && { run: previous.run, edit }, (r) => (run = r));
  if (!shape || (shape.statements.length === 0 && shape.classBodies.length === 0)) return undefined;
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  for (const [, , script] of text.matchAll(DEFINE_COMMAND)) {
    if (!script) return undefined;
    names.push(script);
  }
  const namesKey = names.join('\0');
  const before = previous?.names === namesKey ? previous : undefined;
  /** The same code in the last text: [start, end) there, or undefined where the edit changed it. */
  const unchanged = (start: number, end: number): [number, number] | undefined => {
    if (!edit) return undefined;
    if (end <= edit.start) return [start, end];
    const delta = edit.newEnd - edit.oldEnd;
    return start >= edit.newEnd ? [start - delta, end - delta] : undefined;
  };
  const answers: KeptLean['answers'] = new Map();
  const holdsEvidence = ([start, end]: [number, number]) => {
    const asked = answers.get(start);
    let evidence = asked?.[0] === end ? asked[1] : before && edit && evidenceKept(before.answers, edit, start, end);
    if (evidence === undefined) evidence = evidenceIn(text, start, end, names);
    answers.set(start, [end, evidence]);
    return evidence !== null;
  };

  const blanked: Array<[number, number]> = [];
  const statements = spans(0, text.length, shape.statements);
  // Only functions and classes are blanked: the cheap anchored test first, the evidence search (kept by
  // place, so a class asked again for its members is not searched twice) only where it may matter.
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
  const saved = blanked.reduce((n, [start, end]) => n + end - start, 0);
  if (saved < text.length * WORTH_BLANKING) return undefined;
  blanked.sort((a, b) => a[0] - b[0]);
  const lean = before && edit ? leanAfterEdit(text, blanked, edit, before.lean, before.blanked, unchanged) : blankedText(text, blanked);
  return { text: lean, blanked, kept: { text, names: namesKey, run, answers, blanked, lean } };
}

function blankedText(text: string, blanked: Array<[number, number]>, blankOf = (start: number, end: number) => blank(text.slice(start, end))): string {
  let lean = '';
  let at = 0;
  for (const [start, end] of blanked) {
    lean += text.slice(at, start) + blankOf(start, end);
    at = end;
  }
  return lean + text.slice(at);
}

/**
 * The lean text after `edit`, from the last one: with the same declarations blanked and the edit in none
 * of them, the last lean text with the edited part replaced; else the blanks of unchanged declarations
 * taken from it.
 */
function leanAfterEdit(text: string, blanked: Array<[number, number]>, edit: TextEdit, lean: string, wasBlanked: Array<[number, number]>, unchanged: (start: number, end: number) => [number, number] | undefined): string {
  const blankedBefore = new Map(wasBlanked);
  const was = blanked.map(([start, end]) => unchanged(start, end));
  const taken = (k: number) => was[k] !== undefined && blankedBefore.get(was[k][0]) === was[k][1];
  if (blanked.length === wasBlanked.length && was.every((_, k) => taken(k))) {
    return lean.slice(0, edit.start) + text.slice(edit.start, edit.newEnd) + lean.slice(edit.oldEnd);
  }
  return blankedText(text, blanked, (start, end) => {
    const k = firstAtOrAfter(blanked, start, ([s]) => s);
    const from = was[k];
    return from && taken(k) ? lean.slice(from[0], from[1]) : blank(text.slice(start, end));
  });
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
  const scanner = ts.createScanner(sourceFile.languageVersion, false, ts.LanguageVariant.Standard, sourceFile.text);
  // A span is blanks only, so the node after it starts past it unless a token of the node comes before
  // it: only the text from the node's full start to the span is scanned, never the blanks (a node's
  // getStart would skip them all, once per edit, which cost more than the rest of the re-parse).
  const startsAfter = (node: ts.Node, start: number) => {
    scanner.setText(sourceFile.text, node.pos, start - node.pos);
    let kind = scanner.scan();
    while (TRIVIA.has(kind)) kind = scanner.scan();
    return kind === ts.SyntaxKind.EndOfFileToken;
  };
  return joined(blanked).every(([start, end]) => {
    const holder = statements[firstAtOrAfter(statements, start + 1, (st) => st.end)];
    if (!holder || startsAfter(holder, start)) return true;
    // Inside a class: between its braces, and the first member that ends after the span starts after it.
    if (!ts.isClassDeclaration(holder) || start < holder.members.pos || end >= holder.end) return false;
    const next = holder.members[firstAtOrAfter(holder.members, start + 1, (m) => m.end)];
    return !next || startsAfter(next, start);
  });
}

const TRIVIA = new Set([
  ts.SyntaxKind.WhitespaceTrivia,
  ts.SyntaxKind.NewLineTrivia,
  ts.SyntaxKind.SingleLineCommentTrivia,
  ts.SyntaxKind.MultiLineCommentTrivia,
  ts.SyntaxKind.ShebangTrivia,
  ts.SyntaxKind.ConflictMarkerTrivia,
]);

/** Sorted spans with the ones that touch joined: a run of blanked members is one gap between two nodes. */
function joined(spans: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = out[out.length - 1];
    if (last && last[1] === start) last[1] = end;
    else out.push([start, end]);
  }
  return out;
}
