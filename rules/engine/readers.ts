// Small reader functions of a file: a function or method whose only Redis command is a GET of a key
// built from its parameters, and which hands back (something made of) the value:
//   async getLock(t, c) { const raw = await this.redis.get(this.key(t, c)); return raw ? JSON.parse(raw) : null }
// A call of it in the same file is a GET of that key with the caller's arguments, so a GET-then-SET
// split across a helper and its caller is seen as one check-then-act (exclusive-acquire,
// owner-checked-extend).
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import type { ConstLookup, KeyRef } from './keys';
import { callsNamed, declarationOf, enclosingFunction, functionNameOf, identifiersNamed, isFunctionLike, methodOf, normalizeText, unwrap, type Node } from './nodes';

interface Reader {
  fn: ts.FunctionLikeDeclaration;
  /** The GET's key expression, after following a `const` alias. */
  keyExpression: ts.Expression;
  glob: string;
}

const MAX_READER_STATEMENTS = 4;

/** The GETs of reader functions, by the function's name. */
function readers(commands: readonly RedisCommand[], keyOf: (n: Node) => KeyRef, lookup: ConstLookup): Map<string, Reader> {
  const byFn = new Map<Node, RedisCommand[]>();
  for (const c of commands) {
    const fn = enclosingFunction(c.call);
    byFn.set(fn, [...(byFn.get(fn) ?? []), c]);
  }
  const found = new Map<string, Reader>();
  for (const [fn, own] of byFn) {
    const get = own.length === 1 && own[0].name === 'GET' && !own[0].wrapped ? own[0] : undefined;
    if (!get || !get.keys[0] || !isFunctionLike(fn) || !ts.isBlock((fn as ts.FunctionLikeDeclaration).body ?? fn)) continue;
    const f = fn as ts.FunctionLikeDeclaration;
    const name = functionNameOf(f);
    const body = f.body as ts.Block;
    if (!name || body.statements.length > MAX_READER_STATEMENTS || !f.parameters.every((p) => ts.isIdentifier(p.name))) continue;
    if (!body.statements.some((s) => ts.isReturnStatement(s) && !!s.expression)) continue;
    let keyExpression = unwrap(get.keys[0]) as ts.Expression;
    if (ts.isIdentifier(keyExpression)) keyExpression = (lookup(keyExpression) as ts.Expression | undefined) ?? keyExpression;
    // The key must be built from the parameters: a fixed key needs no reader to be seen.
    if (!f.parameters.some((p) => identifiersNamed(keyExpression, (p.name as ts.Identifier).text).length > 0)) continue;
    found.set(name, { fn: f, keyExpression, glob: keyOf(get.keys[0]).glob });
  }
  return found;
}

/** The key text with each of the reader's parameters replaced by the argument the call passes. */
function substituted(reader: Reader, call: ts.CallExpression): string | undefined {
  const key = reader.keyExpression;
  const source = key.getSourceFile().text;
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let ok = true;
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) {
      const decl = declarationOf(n);
      if (decl && ts.isParameter(decl) && decl.parent === reader.fn) {
        const arg = call.arguments[reader.fn.parameters.indexOf(decl)];
        if (!arg) ok = false;
        else edits.push({ start: n.getStart(), end: n.end, text: normalizeText(unwrap(arg)) });
      }
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(key);
  if (!ok) return undefined;
  let text = '';
  let at = key.getStart();
  for (const e of edits) {
    text += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  text += source.slice(at, key.end);
  return text.replace(/\s+/g, '').replace(/\?\./g, '.');
}

/** The call reaches the reader: `this.name(...)` inside its class, or `name(...)` of a function of the file. */
function reaches(call: ts.CallExpression, reader: Reader): boolean {
  const m = methodOf(call);
  if (!m) return ts.isIdentifier(unwrap(call.expression)) && !ts.isClassElement(reader.fn);
  return unwrap(m.receiver).kind === ts.SyntaxKind.ThisKeyword && ts.isClassElement(reader.fn) && reader.fn.parent === ancestorClass(call);
}

function ancestorClass(node: Node): Node | undefined {
  for (let a = node.parent; a; a = a.parent) if (ts.isClassLike(a)) return a;
  return undefined;
}

/**
 * GET commands at the calls of the file's readers, each with its key (registered through `setKey`, as
 * the project's wrappers register theirs) made of the caller's arguments.
 */
export function readerGets(
  sourceFile: ts.SourceFile,
  commands: readonly RedisCommand[],
  keyOf: (n: Node) => KeyRef,
  lookup: ConstLookup,
  setKey: (node: Node, key: KeyRef) => void,
): RedisCommand[] {
  if (!commands.some((c) => c.name === 'GET')) return [];
  const found = readers(commands, keyOf, lookup);
  if (found.size === 0) return [];
  const gets: RedisCommand[] = [];
  for (const call of callsNamed(sourceFile, (n) => found.has(n))) {
    const reader = found.get(methodOf(call)?.name ?? (ts.isIdentifier(unwrap(call.expression)) ? (unwrap(call.expression) as ts.Identifier).text : ''));
    if (!reader || enclosingFunction(call) === reader.fn || !reaches(call, reader)) continue;
    const text = substituted(reader, call);
    if (text === undefined) continue;
    const args = call.arguments.map((a) => keyOf(a));
    const owners = [...new Set(args.flatMap((a) => a.owners))];
    setKey(call, { node: call, text, canonical: text, glob: reader.glob, id: `${text}\0${reader.glob}`, owners, lockOwners: args.every((a) => a.lockOwners) });
    gets.push({ call, name: 'GET', keys: [call], args: [], wrapped: true });
  }
  return gets;
}
