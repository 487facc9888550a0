// The analysis of an open document, kept for its next edit. An edit that changed the analysed text only
// in blanks between top-level statements or between the members of a top-level class (outside comments,
// no line break added or removed) leaves every statement's tokens, and so the tree, the lock model, every
// rule's reasoning and the code messages quote, as they were: the findings are the previous ones with
// their offsets moved. That covers every keystroke inside a declaration that cannot hold lock code,
// because the lean parse blanks such declarations (engine/lock-text.ts). An edit inside one function or
// method (a unit: rules/kept-units.ts) that shares no name, key or file-wide text with another unit
// re-analyses that unit alone, with the file's context and every other unit left out, and keeps the other
// units' findings. The language server offers an edit before re-parsing the file (analyzeEdit): blanks
// are checked against the tree of an earlier text with the same tokens, and for a unit edit the parse of
// that unit alone stands for the whole file's. Any other edit is analysed afresh.
import { activeRules, changedSpan, parseLean, runRules, withModel, type AnalyzeOptions, type NextTreeText } from './analyze';
import { emptyConfig } from './config';
import { buildModel } from './engine/model';
import type { KeyRef } from './engine/keys';
import { contextWords, endsClosed, keySignatures, modelKeys, modelNames, moduleVariables, recordingKeys, unitAt, unitFacts, unitsOf, withOneUnit, type Part, type UnitFacts, type UnitNode, type UnitPlace } from './kept-units';
import { applySuppressions } from './suppressions';
import { ts } from './engine/typescript';
import type { AnalysisResult, Finding, RelatedLocation, Span } from './types';

type Result = Omit<AnalysisResult, 'parsed'>;
type Options = Omit<AnalyzeOptions, 'fixes' | 'only'>;

interface Kept {
  /** The analysed tree's own text (a lean tree's has statements without lock code blanked). */
  text: string;
  /**
   * The text of the last tree analysed, while `text` differs from it only in blanks a blank edit may move
   * (so both have the same tokens); undefined once a unit edit without a tree changed a token.
   */
  treeText?: string;
  config: AnalyzeOptions['config'];
  /** Before suppressions: a moved line break is no edit here, but a moved comment could be. */
  unsuppressed: Finding[];
  ruleFailures: Result['ruleFailures'];
  /** What the units share; undefined when no edit may re-analyse one unit alone. */
  units?: Units;
}

/** The units' facts, and how many units (the context counting as one) hold each word, name and key. */
interface Units {
  facts: UnitFacts[];
  /** Facts of units some finding ties to another unit (by its related places). */
  tied: Set<UnitFacts>;
  words: Map<string, number>;
  declared: Map<string, number>;
  keys: Map<string, number>;
  /** Module variables (the context is the same for every unit edit). */
  mutable: Set<string>;
}

/** Where an edit left the text: [start, oldEnd) of the old text became [start, start + inserted) of the new. */
interface Edit {
  start: number;
  oldEnd: number;
  delta: number;
}

const BLANKS = /^[ \t]*$/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

export class KeptAnalysis {
  private kept?: Kept;
  /**
   * How many analyses were re-used (of them, how many without a tree of the edited text), re-ran one
   * unit (of them, how many without a tree), and ran afresh (the bench and the tests read them).
   */
  readonly stats = { reused: 0, reusedWithoutTree: 0, unit: 0, withoutTree: 0, fresh: 0 };

  /** The next analysis is a fresh one (the project's meaning of the file changed, or its tree was parsed anew). */
  forget(): void {
    this.kept = undefined;
  }

  /** The findings (without fixes) of `sourceFile`, re-used from the kept analysis where the edit allows. */
  analyze(sourceFile: ts.SourceFile, options: Options): Result {
    const kept = this.kept;
    this.kept = undefined; // a throw below leaves nothing to re-use
    const edit = kept && kept.config === options.config ? blankEdit(kept.text, sourceFile) : undefined;
    if (kept && edit) {
      this.stats.reused++;
      return this.moveKept(kept, edit, sourceFile.text, sourceFile.text);
    }
    const unsuppressed = kept && kept.config === options.config ? this.unitEdit(kept, sourceFile, options) : undefined;
    if (unsuppressed) {
      this.stats.unit++;
      return { findings: applySuppressions(sourceFile.text, unsuppressed), ruleFailures: [] };
    }
    this.stats.fresh++;
    const config = options.config ?? emptyConfig();
    const active = activeRules(config);
    const keys: KeyRef[] = [];
    let names: ReturnType<typeof modelNames> = [];
    const result: Result =
      active.length === 0
        ? { findings: [], ruleFailures: [] }
        : withModel(sourceFile, config, (model) => {
            const found = runRules(recordingKeys(model, (k) => keys.push(k)), active, config, false, false);
            keys.push(...modelKeys(model));
            names = modelNames(model);
            return found;
          }, options.project);
    // A project helper's place has a line and character, which a move in this file would have to follow:
    // findings with one are not kept (simpler than telling this file's places from another's).
    if (!result.findings.some((f) => f.related.some((r) => r.file))) {
      const units = result.ruleFailures.length === 0 && !isJsxFile(sourceFile) ? unitsFound(sourceFile, result.findings, keys, names) : undefined;
      this.kept = { text: sourceFile.text, treeText: sourceFile.text, config: options.config, unsuppressed: result.findings, ruleFailures: result.ruleFailures, units };
    }
    return { findings: applySuppressions(sourceFile.text, result.findings), ruleFailures: result.ruleFailures };
  }

  /**
   * The findings after an edit, without a tree of the edited text: `next` is what reparseSource would
   * parse of `tree` (nextTreeText), the document's tree of an earlier text. An edit of blanks between
   * that tree's statements or class members re-uses the kept findings; for an edit inside one unit, the
   * parse of that unit alone, which the unit edit makes anyway, confirms that the whole text's units are
   * the kept ones (confirmedUnit). The re-parse of the whole file, most of an edit's work, is left to
   * whatever needs the tree next. Undefined when the tree is needed to be sure; nothing kept has changed then.
   */
  analyzeEdit(fileName: string, next: NextTreeText, options: Options, tree: ts.SourceFile): Result | undefined {
    const kept = this.kept;
    if (!kept || kept.config !== options.config) return undefined;
    const edit = blankEditWithoutTree(kept, tree, next.text);
    if (edit) {
      this.stats.reused++;
      this.stats.reusedWithoutTree++;
      return this.moveKept(kept, edit, next.text, kept.treeText);
    }
    const unsuppressed = this.unitEdit(kept, { fileName, ...next }, options);
    if (!unsuppressed) return undefined;
    this.stats.unit++;
    this.stats.withoutTree++;
    return { findings: applySuppressions(next.text, unsuppressed), ruleFailures: [] };
  }

  /** The kept findings after a blank edit, which changed no token: moved to `text`, the analysed text now. */
  private moveKept(kept: Kept, edit: Edit, text: string, treeText: string | undefined): Result {
    const unsuppressed = kept.unsuppressed.map((f) => moved(f, edit));
    this.kept = { ...kept, text, treeText, unsuppressed, units: kept.units && placed(kept.units, edit) };
    return { findings: applySuppressions(text, unsuppressed), ruleFailures: kept.ruleFailures };
  }

  /** The findings after an edit inside one unit that shares nothing with the others; else undefined. */
  private unitEdit(kept: Kept, source: ts.SourceFile | ({ fileName: string } & NextTreeText), options: Options): Finding[] | undefined {
    const units = kept.units;
    if (!units) return undefined;
    const text = source.text;
    const { span, newLength } = changedSpan(kept.text, text);
    const edit = { start: span.start, oldEnd: span.start + span.length, delta: newLength - span.length };
    const at = unitAt(units.facts, edit.start);
    const old = units.facts[at];
    if (!old || edit.oldEnd > old.end || units.tied.has(old)) return undefined;
    // The same units, the edited one grown or shrunk by the edit and those after it moved: as the tree
    // has them, or (without one) as the parse of the part must confirm.
    const places = units.facts.map((f, i) => ({ pos: i > at ? f.pos + edit.delta : f.pos, end: i >= at ? f.end + edit.delta : f.end }));
    const nodes = 'kind' in source ? unitsOf(source) : undefined;
    if (nodes && (nodes.length !== places.length || nodes.some((n, i) => n.pos !== places[i].pos || n.end !== places[i].end))) return undefined;
    const findings = kept.unsuppressed;
    const first = findings.findIndex((f) => f.span.start >= old.pos);
    const before = first < 0 ? findings : findings.slice(0, first);
    const after = findings.slice(before.length).filter((f) => f.span.start >= old.end);
    // Messages that give a line ("released on line 12") would have to follow a line break typed above them.
    const lineBreaks = (s: string) => s.split('\n').length;
    if (lineBreaks(kept.text.slice(edit.start, edit.oldEnd)) !== lineBreaks(text.slice(edit.start, edit.start + newLength)) && [...before, ...after].some((f) => /\bline \d/.test(f.message))) {
      return undefined;
    }
    // What the unit's text alone says it shares is checked before the work; its keys and objects after.
    let facts = nodes && unitFacts(nodes[at], text, units.mutable);
    if (facts && (facts.fileWide || shares(units, old, facts))) return undefined;

    const config = options.config ?? emptyConfig();
    const part = withOneUnit(text, places, at);
    const tree = parseLean(source.fileName, part.text, config.helpers, true).sourceFile;
    if (!facts) {
      const unit = 'blanked' in source ? confirmedUnit(tree, part, places, at, units.facts, source.blanked) : undefined;
      if (!unit) return undefined;
      facts = { ...unitFacts(unit, part.text, units.mutable), pos: places[at].pos, end: places[at].end };
      if (facts.fileWide || shares(units, old, facts)) return undefined;
    }
    const model = options.project ? options.project.partModelOf?.(tree, config) : buildModel(tree, config.helpers);
    if (!model) return undefined;
    const keys: KeyRef[] = [];
    const result = runRules(recordingKeys(model, (k) => keys.push(k)), activeRules(config), config, false, false);
    keys.push(...modelKeys(model));
    const inUnit = (offset: number) => facts.pos <= offset && offset < facts.end;
    const whole = (s: Span): Span => ({ start: part.toWhole(s.start), end: part.toWhole(s.end) });
    const found = result.findings.map((f) => ({ ...f, span: whole(f.span), related: f.related.map((r) => ({ ...r, span: whole(r.span) })) }));
    if (result.ruleFailures.length > 0 || !found.every((f) => inUnit(f.span.start) && f.related.every((r) => !r.file))) return undefined;
    for (const key of keys) if (inUnit(part.toWhole(key.node.pos))) for (const sig of keySignatures(key)) facts.keys.add(sig);
    for (const { pos, names } of modelNames(model)) if (inUnit(part.toWhole(pos))) facts.declared.push(...names);
    if (shares(units, old, facts)) return undefined;

    forgetUnit(units, old);
    countUnit(units, facts);
    units.facts[at] = facts;
    for (let i = at + 1; i < places.length; i++) {
      units.facts[i].pos = places[i].pos;
      units.facts[i].end = places[i].end;
    }
    // A finding before the unit may point past it (at the context's release script).
    const unsuppressed = [...before.map((f) => moved(f, edit)), ...found, ...after.map((f) => moved(f, edit))];
    // A tree-less edit changed tokens the last tree does not have.
    this.kept = { ...kept, text, treeText: nodes ? text : undefined, unsuppressed, units };
    return unsuppressed;
  }
}

/**
 * The edited unit in the parse of the part (which holds the context and that unit), when that parse
 * shows the whole text's parse has the kept units: no syntax error; one unit, of the kind it was, at
 * its place; it and what comes before it in the whole text end so that the parse of what follows starts
 * afresh (endsClosed: the code next to the unit in the part is not the code next to it in the whole
 * text); and the lean text's blanks in front of it lie before its first token (leanParseHolds).
 */
function confirmedUnit(tree: ts.SourceFile, part: Part, places: readonly UnitPlace[], at: number, facts: readonly UnitFacts[], blanked: ReadonlyArray<[number, number]>): UnitNode | undefined {
  if ((tree as unknown as { parseDiagnostics: readonly unknown[] }).parseDiagnostics.length > 0) return undefined;
  const found = unitsOf(tree);
  const unit = found[0];
  const place = places[at];
  // Its first token in its place (in the part, the units left out are blanks in front of it).
  const start = found.length === 1 ? part.toWhole(unit.node.getStart(tree)) : -1;
  if (found.length !== 1 || unit.node.kind !== facts[at].kind || start < place.pos || part.toWhole(unit.end) !== place.end) return undefined;
  if (!endsClosed(unit.node, tree.text)) return undefined;
  // Before it in the whole text: the unit before (left out of the part), or what the part has there too.
  const afterUnit = at > 0 && places[at - 1].end === place.pos;
  if (afterUnit ? !facts[at - 1].closed : !closedBefore(unit.node, tree.text)) return undefined;
  return blanked.every(([from]) => from < place.pos || from >= place.end || start >= from) ? unit : undefined;
}

/** Is `node` first in its file or class, or after a statement or member that ends closed? */
function closedBefore(node: ts.Node, text: string): boolean {
  const siblings: readonly ts.Node[] = ts.isSourceFile(node.parent) ? node.parent.statements : ts.isClassDeclaration(node.parent) ? node.parent.members : [];
  const i = siblings.indexOf(node);
  return i === 0 || (i > 0 && endsClosed(siblings[i - 1], text));
}

/** Does the edited unit, before (`old`) or after (`now`), share a name or a key with another unit or the context? */
function shares(units: Units, old: UnitFacts, now: UnitFacts): boolean {
  const elsewhere = (counts: Map<string, number>, item: string, inOld: boolean) => (counts.get(item) ?? 0) - (inOld ? 1 : 0) > 0;
  const oldDeclared = new Set(old.declared);
  for (const name of [...old.declared, ...now.declared]) if (elsewhere(units.words, name, old.words.has(name))) return true;
  for (const word of now.words) if (elsewhere(units.declared, word, oldDeclared.has(word))) return true;
  for (const key of [...old.keys, ...now.keys]) if (elsewhere(units.keys, key, old.keys.has(key))) return true;
  return false;
}

function count(counts: Map<string, number>, items: Iterable<string>, by: number): void {
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + by);
}

function countUnit(units: Units, facts: UnitFacts): void {
  count(units.words, facts.words, 1);
  count(units.declared, new Set(facts.declared), 1);
  count(units.keys, facts.keys, 1);
}

function forgetUnit(units: Units, facts: UnitFacts): void {
  count(units.words, facts.words, -1);
  count(units.declared, new Set(facts.declared), -1);
  count(units.keys, facts.keys, -1);
}

/**
 * The units of a freshly analysed tree, or undefined when no unit may be re-analysed alone: a finding
 * in the context (it may stand on any unit), or a unit holding text the model reads file-wide.
 */
function unitsFound(sourceFile: ts.SourceFile, findings: readonly Finding[], keys: readonly KeyRef[], names: ReturnType<typeof modelNames>): Units | undefined {
  const nodes = unitsOf(sourceFile);
  const mutable = moduleVariables(sourceFile);
  const facts = nodes.map((u) => unitFacts(u, sourceFile.text, mutable));
  if (facts.some((f) => f.fileWide)) return undefined;
  const units: Units = { facts, tied: new Set(), words: new Map(), declared: new Map(), keys: new Map(), mutable };
  const contextKeys = new Set<string>();
  for (const key of keys) {
    const i = unitAt(facts, key.node.pos);
    for (const sig of keySignatures(key)) (i < 0 ? contextKeys : facts[i].keys).add(sig);
  }
  for (const { pos, names: words } of names) facts[unitAt(facts, pos)]?.declared.push(...words);
  for (const finding of findings) {
    const i = unitAt(facts, finding.span.start);
    if (i < 0) return undefined;
    for (const r of finding.related) {
      const j = unitAt(facts, r.span.start);
      if (j >= 0 && j !== i) units.tied.add(facts[i]).add(facts[j]);
    }
  }
  for (const f of facts) countUnit(units, f);
  count(units.words, contextWords(sourceFile, nodes), 1);
  count(units.keys, contextKeys, 1);
  return units;
}

/**
 * The units after a blank edit, at their new places. A unit starts and ends where a token ends (or at 0),
 * never inside the blanks the edit changed: at or before their start it stays, after it it moves.
 */
function placed(units: Units, edit: Edit): Units {
  const at = (offset: number) => (offset <= edit.start ? offset : offset + edit.delta);
  const facts = units.facts.map((f) => ({ ...f, pos: at(f.pos), end: at(f.end) }));
  const tied = new Set(facts.filter((_, i) => units.tied.has(units.facts[i])));
  return { ...units, facts, tied };
}

/** The edit from `before` to the tree's text when it only added or removed blanks between tokens; else undefined. */
function blankEdit(before: string, sourceFile: ts.SourceFile): Edit | undefined {
  if (isJsxFile(sourceFile)) return undefined; // blanks in JSX text are content
  const edit = blanksEdit(before, sourceFile.text);
  return edit && (isNoEdit(edit) || !inTokensOrComment(sourceFile, edit.start, edit.oldEnd + edit.delta)) ? edit : undefined;
}

/**
 * The edit from the kept analysis's text to `text` when it only added or removed blanks between tokens,
 * told by `tree`, a tree of an earlier text with the kept analysis's tokens; else undefined. The edit
 * from the tree's text to `text` must be blanks between its top-level statements or class members (in
 * the tree's offsets): `text` then has the tree's tokens, and so the kept analysis's.
 */
function blankEditWithoutTree(kept: Kept, tree: ts.SourceFile, text: string): Edit | undefined {
  if (isJsxFile(tree) || (tree.text !== kept.text && tree.text !== kept.treeText)) return undefined;
  const edit = blanksEdit(kept.text, text);
  const fromTree = edit && tree.text !== kept.text ? blanksEdit(tree.text, text) : edit;
  return fromTree && (isNoEdit(fromTree) || !inTokensOrComment(tree, fromTree.start, fromTree.oldEnd)) ? edit : undefined;
}

/** The edit from `before` to `after` when it only added or removed blanks, joining or splitting no token; else undefined. */
function blanksEdit(before: string, after: string): Edit | undefined {
  const { span, newLength } = changedSpan(before, after);
  const start = span.start;
  const oldEnd = start + span.length;
  const newEnd = start + newLength;
  if (!BLANKS.test(before.slice(start, oldEnd)) || !BLANKS.test(after.slice(start, newEnd))) return undefined;
  const edit = { start, oldEnd, delta: newEnd - oldEnd };
  if (isNoEdit(edit)) return edit; // the same text
  // Blanks next to a blank only widen or narrow a gap; between two other characters they could join
  // or split a token (`a b` -> `ab`).
  return isBlank(after[start - 1]) || isBlank(after[newEnd]) ? edit : undefined;
}

const isNoEdit = (edit: Edit) => edit.delta === 0 && edit.oldEnd === edit.start;

function isJsxFile(sourceFile: ts.SourceFile): boolean {
  return /\.[jt]sx$/i.test(sourceFile.fileName);
}

/**
 * Do the blanks at [from, to] of the tree's text lie in a token of a top-level statement, or of a member
 * of a top-level class, or in a comment? Between a function's tokens they would be no token's, but
 * messages quote code as written and rules test it with regular expressions; a statement or a class
 * member is never quoted whole (the lean parse blanks both for the same reason: engine/lock-text.ts).
 */
function inTokensOrComment(sourceFile: ts.SourceFile, from: number, to: number): boolean {
  const owns = (n: ts.Node) => n.pos <= from && to <= n.end && from < n.end;
  let owner: ts.Node | undefined = [...sourceFile.statements, sourceFile.endOfFileToken].find(owns);
  let comments = owner && leadingCommentsUpTo(sourceFile, owner, to);
  if (owner && !comments && ts.isClassDeclaration(owner)) {
    owner = owner.members.find(owns);
    comments = owner && leadingCommentsUpTo(sourceFile, owner, to);
  }
  // The blanks cannot hold a comment's first character, so they are in one only past its start (or at
  // `to`, where a comment may only seem to end).
  return !comments || comments.some((c) => c.pos < from && (from < c.end || c.end === to));
}

const COMMENTS = new Set([ts.SyntaxKind.SingleLineCommentTrivia, ts.SyntaxKind.MultiLineCommentTrivia]);
const TRIVIA = new Set([...COMMENTS, ts.SyntaxKind.WhitespaceTrivia, ts.SyntaxKind.NewLineTrivia, ts.SyntaxKind.ShebangTrivia, ts.SyntaxKind.ConflictMarkerTrivia]);

/**
 * The comments of `node`'s leading trivia before offset `to`, or undefined when a token of the node starts
 * before it. Only the text up to `to` is scanned: blanked declarations make leading trivia long, and a
 * node's getStart would skip all of it. A comment that goes on past `to` ends at `to` here.
 */
function leadingCommentsUpTo(sourceFile: ts.SourceFile, node: ts.Node, to: number): ts.TextRange[] | undefined {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, sourceFile.text, undefined, node.pos, to - node.pos);
  const comments: ts.TextRange[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (!TRIVIA.has(kind)) return undefined;
    if (COMMENTS.has(kind)) comments.push({ pos: scanner.getTokenFullStart(), end: scanner.getTokenEnd() });
  }
  return comments;
}

function moved(finding: Finding, edit: Edit): Finding {
  // Most findings of a large file are before the edit or moved by nothing: the same object, not a copy.
  const stays = (span: Span) => span.end < edit.start;
  if (edit.delta === 0 || (stays(finding.span) && finding.related.every((r) => stays(r.span)))) return finding;
  return { ...finding, span: movedSpan(finding.span, edit), related: finding.related.map((r): RelatedLocation => ({ ...r, span: movedSpan(r.span, edit) })) };
}

/** Starts at or after the removed blanks move; ends move when they are past the edit's start. */
function movedSpan(span: Span, edit: Edit): Span {
  const start = span.start >= edit.oldEnd ? span.start + edit.delta : span.start;
  const end = span.end > edit.start ? span.end + edit.delta : span.end;
  return { start, end: Math.max(start, end) };
}
