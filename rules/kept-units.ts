// The parts of a file an edit can re-analyse alone (rules/kept-analysis.ts). Each top-level function and
// each method of a top-level class is a unit; the rest (imports, module constants and clients, a class's
// heading and fields) is the context every unit is analysed with. A unit's findings depend only on its own
// text and the context unless it shares something with another unit, through one of three channels:
// a name (a helper it calls, a field or module variable it writes), a lock key (the model files keys by
// their canonical text and their glob), or the whole-file text tests of the model. What each unit
// declares, mentions and keys is recorded here, so an edit can tell whether its unit shares any of it.
import { ts } from './engine/typescript';
import { informative, type KeyRef } from './engine/keys';
import { blank } from './engine/lock-text';
import { firstAtOrAfter } from './engine/sorted';
import type { LockModel } from './engine/model';
import type { Finding } from './types';

/** What one unit shares and what it was found to hold. */
export interface UnitFacts {
  pos: number;
  end: number;
  /** Names other code could reach it or its state by: its own, fields and module variables it writes. */
  declared: string[];
  /** Every word of its text (comments and strings too: more than needed, never less). */
  words: Set<string>;
  /** Its keys' canonical texts and informative globs. */
  keys: Set<string>;
  /** It holds text the model reads file-wide (engine/model.ts): named scripts, legacy clients, batches. */
  fileWide: boolean;
  /** Its findings (before suppressions), offsets in the analysed text. */
  findings: Finding[];
  /** Its node's kind: a unit re-parsed alone must still be of it. */
  kind: ts.SyntaxKind;
  /** It ends where no code after it can continue it (endsClosed). */
  closed: boolean;
}

/** A unit's range; `pos` takes its leading comments and blanks. */
export interface UnitPlace {
  pos: number;
  end: number;
}

/** A unit's node and range. */
export interface UnitNode extends UnitPlace {
  node: ts.Node;
}

const WORD = /[A-Za-z_$][\w$]*/g;
/** Written fields: `this.lock = ...`, `this.count += 1`. */
const FIELD_WRITE = /this\s*\.\s*([A-Za-z_$][\w$]*)\s*(?:[-+*/%&|^]|\*\*|\?\?|&&|\|\||<<|>>>?)?=(?![=>])/g;
/** What the model reads of the whole file's text (named scripts, legacy clients, MULTI and pipelines). */
const FILE_WIDE = /defineCommand|\.script(?:Load)?\s*\(|SCRIPT_LOAD|scripts\s*:|legacyMode|\.legacy\(|multi\(|pipeline\(|batch\(|Batch\(|Transaction\(/;

function isFunctionValue(node: ts.Node | undefined): boolean {
  while (node && ts.isParenthesizedExpression(node)) node = node.expression;
  return !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

function isUnitStatement(statement: ts.Statement): boolean {
  if (ts.isFunctionDeclaration(statement)) return !!statement.body && !!statement.name;
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.every((d) => ts.isIdentifier(d.name) && isFunctionValue(d.initializer));
  return false;
}

function isUnitMember(member: ts.ClassElement): boolean {
  if (ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) return !!member.body;
  if (ts.isConstructorDeclaration(member)) return !!member.body;
  return ts.isPropertyDeclaration(member) && isFunctionValue(member.initializer);
}

/** The file's units in document order. */
export function unitsOf(sourceFile: ts.SourceFile): UnitNode[] {
  const units: UnitNode[] = [];
  for (const statement of sourceFile.statements) {
    if (isUnitStatement(statement)) units.push({ node: statement, pos: statement.pos, end: statement.end });
    else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) if (isUnitMember(member)) units.push({ node: member, pos: member.pos, end: member.end });
    }
  }
  return units;
}

/** The names a unit's declaration gives it. */
function ownNames(node: ts.Node): string[] {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => (d.name as ts.Identifier).text);
  if (ts.isConstructorDeclaration(node)) return ['constructor'];
  const name = (node as { name?: ts.Node }).name;
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)) ? [name.text] : name ? [name.getText()] : [];
}

function wordsOf(text: string): Set<string> {
  return new Set(text.match(WORD) ?? []);
}

/** The identifiers written in `node`, but not in the nodes `skip` accepts: the model ties code by names, never by strings. */
function identifiersIn(node: ts.Node, into: Set<string>, skip?: (n: ts.Node) => boolean): Set<string> {
  const visit = (n: ts.Node): void => {
    if (skip?.(n)) return;
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) into.add(n.text);
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return into;
}

/** Names declared with `let` or `var` in the context: a unit that mentions one may write it for another to read. */
export function moduleVariables(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement) || isUnitStatement(statement)) continue;
    if (statement.declarationList.flags & (ts.NodeFlags.Const | ts.NodeFlags.Using)) continue;
    for (const d of statement.declarationList.declarations) for (const word of wordsOf(d.name.getText())) names.add(word);
  }
  return names;
}

/** The facts of one unit of `text`; `keys` and `findings` are filled by the caller. */
export function unitFacts(unit: UnitNode, text: string, mutable: ReadonlySet<string>): UnitFacts {
  const own = text.slice(unit.pos, unit.end);
  const words = identifiersIn(unit.node, new Set());
  const declared = ownNames(unit.node);
  for (const m of own.matchAll(FIELD_WRITE)) declared.push(m[1]);
  for (const word of words) if (mutable.has(word)) declared.push(word);
  return { pos: unit.pos, end: unit.end, declared, words, keys: new Set(), fileWide: FILE_WIDE.test(own), findings: [], kind: unit.node.kind, closed: endsClosed(unit.node, text) };
}

/** Declarations that end with their body or their specifier: nothing written after them continues them. */
const CLOSED_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration, ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.Constructor, ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor, ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.ModuleDeclaration, ts.SyntaxKind.ImportDeclaration, ts.SyntaxKind.ExportDeclaration,
]);

/**
 * Does `node` (a statement or class member of `text`) end so that the parse of the code after it starts
 * afresh, whatever that code is? A declaration with a body, or a `;` (no other token ends with one). An
 * expression without one could be continued by a `(` or `[` on the next line.
 */
export function endsClosed(node: ts.Node, text: string): boolean {
  if (CLOSED_KINDS.has(node.kind)) return !ts.isFunctionLike(node) || !!(node as ts.FunctionLikeDeclaration).body;
  return text[node.end - 1] === ';';
}

/** The identifiers outside every unit. */
export function contextWords(sourceFile: ts.SourceFile, units: readonly UnitNode[]): Set<string> {
  const inUnits = new Set(units.map((u) => u.node));
  return identifiersIn(sourceFile, new Set(), (n) => inUnits.has(n));
}

export function keySignatures(key: KeyRef): string[] {
  return informative(key.glob) ? [`c:${key.canonical}`, `g:${key.glob}`] : [`c:${key.canonical}`];
}

/** A model whose keyOf also hands each key it makes to `seen` (rules make keys of their own). */
export function recordingKeys(model: LockModel, seen: (key: KeyRef) => void): LockModel {
  return {
    ...model,
    keyOf: (node) => {
      const key = model.keyOf(node);
      seen(key);
      return key;
    },
  };
}

/**
 * Names the model ties operations together by, wherever they are written: a library object's variable,
 * an acquire's lock object, a release's or extend's handle (`mutex`, `this.lock`).
 */
export function modelNames(model: LockModel): Array<{ pos: number; names: Set<string> }> {
  const named: Array<{ pos: number; names: Set<string> }> = [];
  const add = (pos: number, name: string | undefined) => name && named.push({ pos, names: wordsOf(name) });
  for (const o of model.libraryObjects) add(o.node.pos, o.name);
  for (const a of model.acquires) add(a.call.pos, a.owner);
  for (const op of [...model.releases, ...model.extends]) add(op.call.pos, op.handle);
  return named;
}

/** Every key the model holds: its commands', acquires', releases' and extends'. */
export function modelKeys(model: LockModel): KeyRef[] {
  const keys: KeyRef[] = [];
  for (const c of model.commands) for (const k of c.keys) keys.push(model.keyOf(k));
  for (const op of [...model.acquires, ...model.releases, ...model.extends]) if (op.key) keys.push(op.key);
  return keys;
}

/** The unit holding offset `at` (its index), or -1 in the context. */
export function unitAt(units: readonly { pos: number; end: number }[], at: number): number {
  const i = firstAtOrAfter(units, at + 1, (u) => u.end);
  return i < units.length && units[i].pos <= at ? i : -1;
}

/** A text with every unit but one left out, and the way back to the offsets of the whole text. */
export interface Part {
  text: string;
  /** The offset in the whole text of an offset of the part (never one inside a unit left out). */
  toWhole(offset: number): number;
}

/**
 * `text` with every unit but `kept` left out: each reduced to its line breaks, so lines stay where they
 * were (messages give lines) and the part is small to parse; offsets are mapped back with `toWhole`.
 * A text with lone carriage returns keeps every unit's length, blanked.
 */
export function withOneUnit(text: string, units: readonly UnitPlace[], kept: number): Part {
  const loneReturns = text.includes('\r') && /\r(?!\n)/.test(text);
  const parts: string[] = [];
  // After `at` in the part, offsets are `removed` short of the whole text's.
  const cuts: Array<{ at: number; removed: number }> = [];
  let from = 0;
  let length = 0;
  let removed = 0;
  units.forEach((unit, i) => {
    if (i === kept) return;
    const before = text.slice(from, unit.pos);
    const left = loneReturns ? blank(text.slice(unit.pos, unit.end)) : '\n'.repeat(lineBreaks(text, unit.pos, unit.end));
    parts.push(before, left);
    length += before.length + left.length;
    removed += unit.end - unit.pos - left.length;
    cuts.push({ at: length, removed });
    from = unit.end;
  });
  parts.push(text.slice(from));
  // The last cut at or before the offset says how much was removed before it.
  const toWhole = (offset: number) => offset + (cuts[firstAtOrAfter(cuts, offset + 1, (c) => c.at) - 1]?.removed ?? 0);
  return { text: parts.join(''), toWhole };
}

function lineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
