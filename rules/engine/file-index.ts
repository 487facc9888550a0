// One walk over a parsed file that files the nodes rules ask for by kind (and identifiers by name), in document
// order. "The calls in this function", "the uses of `ok` after this line" then become a binary search
// instead of a walk of the subtree: rules ask such questions once per acquire, and a lock module has
// hundreds of acquires. Built once per tree, kept as long as the tree lives.
import { firstAtOrAfter } from './sorted';
import { ts } from './typescript';

// The kinds the recognisers and rules ask for; filing every node cost more than the walk itself.
const INDEXED_KINDS = new Set([
  ts.SyntaxKind.CallExpression, ts.SyntaxKind.NewExpression, ts.SyntaxKind.VariableDeclaration, ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.IfStatement, ts.SyntaxKind.AwaitExpression, ts.SyntaxKind.BinaryExpression, ts.SyntaxKind.TemplateExpression,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.ReturnStatement, ts.SyntaxKind.ThrowStatement,
]);
// Read once: every member of TypeScript's namespace object is a getter, and the walk visits every node.
const { SyntaxKind, forEachChild } = ts;
const indexed: boolean[] = [];
for (const kind of INDEXED_KINDS) indexed[kind] = true;

interface FileIndex {
  /** Indexed by SyntaxKind (an array: a Map lookup per node cost a third of the walk). */
  byKind: (ts.Node[] | undefined)[];
  identifiers: Map<string, ts.Identifier[]>;
}

const indexes = new WeakMap<ts.SourceFile, FileIndex>();
/**
 * The index of each top-level statement of a re-parsed tree. An edit re-parses the statement it is in;
 * TypeScript re-uses the other statements as they were (the same objects, their offsets moved in
 * place, so their nodes keep their order), and their parts are re-used with them.
 */
const statementParts = new WeakMap<ts.Node, FileIndex>();

/** Files `root`'s descendants into `index` (and `root` itself when `withRoot`), setting parent pointers. */
function walk(root: ts.Node, index: FileIndex, withRoot: boolean): void {
  const { byKind, identifiers } = index;
  let parent: ts.Node = root;
  // Recursion is safe: it is shallower per nesting level than the parser that built this tree.
  const visit = (node: ts.Node): void => {
    (node as { parent: ts.Node }).parent = parent;
    const kind = node.kind;
    if (indexed[kind]) {
      const list = byKind[kind];
      if (list) list.push(node);
      else byKind[kind] = [node];
    } else if (kind === SyntaxKind.Identifier) {
      const name = (node as ts.Identifier).text;
      const named = identifiers.get(name);
      if (named) named.push(node as ts.Identifier);
      else identifiers.set(name, [node as ts.Identifier]);
    }
    const outer = parent;
    parent = node;
    forEachChild(node, visit);
    parent = outer;
  };
  if (withRoot) {
    parent = root.parent;
    visit(root);
  } else ts.forEachChild(root, visit);
}

const emptyIndex = (): FileIndex => ({ byKind: [], identifiers: new Map() });

/** One walk of the whole tree: a fresh parse. */
function build(sourceFile: ts.SourceFile): FileIndex {
  const index = emptyIndex();
  walk(sourceFile, index, false);
  return index;
}

/**
 * A re-parsed tree: its new statements walked (which sets their parent pointers), each re-used statement's
 * part kept as it is. The parts are merged into the file's index only when a question about the whole
 * file is asked: an edit the kept analysis re-analyses in one function (rules/kept-analysis.ts) asks none.
 */
function walkNewStatements(sourceFile: ts.SourceFile): void {
  for (const statement of sourceFile.statements) {
    (statement as { parent: ts.Node }).parent = sourceFile;
    if (statementParts.has(statement)) continue;
    const part = emptyIndex();
    walk(statement, part, true);
    statementParts.set(statement, part);
  }
  reparsedTrees.add(sourceFile);
}

/** Re-parsed trees whose index is their statements' parts, merged in order when first asked for. */
const reparsedTrees = new WeakSet<ts.SourceFile>();

function assemble(sourceFile: ts.SourceFile): FileIndex {
  const index = emptyIndex();
  for (const statement of sourceFile.statements) {
    const part = statementParts.get(statement) as FileIndex;
    part.byKind.forEach((nodes, kind) => {
      if (!nodes) return;
      const list = index.byKind[kind];
      if (list) for (const n of nodes) list.push(n);
      else index.byKind[kind] = nodes.slice();
    });
    for (const [name, nodes] of part.identifiers) {
      const list = index.identifiers.get(name);
      if (list) for (const n of nodes) list.push(n);
      else index.identifiers.set(name, nodes.slice());
    }
  }
  return index;
}

/**
 * Indexes a tree parsed without parent pointers and sets them on the way (the same walk TypeScript's
 * setParentNodes would make), so a fresh parse pays for one walk, not two. A tree re-parsed from one
 * indexed with `reparsed` re-uses the index of every statement the edit did not touch.
 */
export function indexTree(sourceFile: ts.SourceFile, reparsed = false): void {
  if (indexes.has(sourceFile) || reparsedTrees.has(sourceFile)) return;
  if (reparsed) walkNewStatements(sourceFile);
  else indexes.set(sourceFile, build(sourceFile));
}

function indexOf(sourceFile: ts.SourceFile): FileIndex {
  let index = indexes.get(sourceFile);
  if (!index) indexes.set(sourceFile, (index = reparsedTrees.has(sourceFile) ? assemble(sourceFile) : build(sourceFile)));
  return index;
}

// One function for every search, not a closure per query.
const posOf = (n: ts.Node) => n.pos;

/** The entries of `sorted` (document order) that lie strictly inside `node`. */
function within<T extends ts.Node>(sorted: readonly T[] | undefined, node: ts.Node): T[] {
  if (!sorted) return [];
  const found: T[] = [];
  for (let i = firstAtOrAfter(sorted, node.pos, posOf); i < sorted.length && sorted[i].pos < node.end; i++) {
    const n = sorted[i];
    if (n !== node && n.end <= node.end) found.push(n);
  }
  return found;
}

/** Descendants of `node` of one kind, in document order; undefined for a kind the index does not file. */
export function indexedOfKind<T extends ts.Node>(node: ts.Node, kind: ts.SyntaxKind): T[] | undefined {
  if (!indexed[kind]) return undefined;
  return within(indexOf(node.getSourceFile()).byKind[kind] as T[] | undefined, node);
}

/** Identifiers inside `node` spelled `name`, in document order. */
export function indexedIdentifiers(node: ts.Node, name: string): ts.Identifier[] {
  return within(indexOf(node.getSourceFile()).identifiers.get(name), node);
}

/** Every identifier of the file spelled `name`, in document order. */
export function identifiersOfFile(sourceFile: ts.SourceFile, name: string): readonly ts.Identifier[] {
  return indexOf(sourceFile).identifiers.get(name) ?? [];
}
