// Lua kept in a file of its own beside the code: `fs.readFileSync(path.resolve(__dirname, 'lock.lua'),
// 'utf8')`, `readFileSync(join(scriptsDir, 'release.lua'))` with `scriptsDir = join(__dirname, 'scripts')`,
// `readFileSync(require.resolve('./lock.lua'))`. The engine reads no files: the project layer hands a
// file's model a reader of the files beside it (ProjectContext.readBeside), kept here per tree.
import { ts } from './typescript';
import type { ConstLookup } from './keys';
import { calleeName, literalString, methodOf, unwrap, type Node } from './nodes';

export type BesideReader = (relative: string) => string | undefined;

const readers = new WeakMap<ts.SourceFile, BesideReader>();

export function setBesideReader(sourceFile: ts.SourceFile, reader: BesideReader | undefined): void {
  if (reader) readers.set(sourceFile, reader);
  else readers.delete(sourceFile);
}

const PATH_JOIN = new Set(['join', 'resolve']);
const MAX_DEPTH = 4;

/** `readFileSync(<a path beside this file ending in .lua>)`: that file's text, when a reader was given. */
export function scriptFileText(call: ts.CallExpression, lookup: ConstLookup): string | undefined {
  const read = readers.get(call.getSourceFile());
  if (!read || calleeName(call) !== 'readFileSync' || !call.arguments[0]) return undefined;
  const relative = pathOf(call.arguments[0], lookup, 0);
  return relative && /\.lua$/i.test(relative) ? read(relative) : undefined;
}

/** The path an expression names, relative to the file's folder (`__dirname` is `.`); undefined when not static. */
function pathOf(node: Node, lookup: ConstLookup, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const n = unwrap(node);
  if (ts.isIdentifier(n)) {
    if (n.text === '__dirname') return '.';
    const init = lookup(n);
    return init ? pathOf(init, lookup, depth + 1) : undefined;
  }
  const literal = literalString(n);
  if (literal !== undefined) return literal;
  if (ts.isTemplateExpression(n)) {
    const parts = [n.head.text];
    for (const span of n.templateSpans) {
      const inner = pathOf(span.expression, lookup, depth + 1);
      if (inner === undefined) return undefined;
      parts.push(inner, span.literal.text);
    }
    return normalize(parts.join(''));
  }
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [left, right] = [pathOf(n.left, lookup, depth + 1), pathOf(n.right, lookup, depth + 1)];
    return left !== undefined && right !== undefined ? normalize(left + right) : undefined;
  }
  if (!ts.isCallExpression(n)) return undefined;
  const method = methodOf(n);
  // `require.resolve('./lock.lua')`, resolved from this file.
  if (method?.name === 'resolve' && unwrap(method.receiver).getText() === 'require') return n.arguments[0] ? pathOf(n.arguments[0], lookup, depth + 1) : undefined;
  if (!PATH_JOIN.has(calleeName(n) ?? '')) return undefined;
  const parts = n.arguments.map((a) => pathOf(a, lookup, depth + 1));
  if (parts.length === 0 || parts.some((p) => p === undefined) || parts.slice(1).some((p) => p!.startsWith('/'))) return undefined;
  return normalize(parts.join('/'));
}

/** `./scripts/../lock.lua` as `lock.lua`; undefined when it climbs above the file's folder's root or is absolute. */
function normalize(path: string): string | undefined {
  if (path.startsWith('/')) return undefined;
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.length > 0 && out[out.length - 1] !== '..' ? out.pop() : out.push('..');
    else out.push(part);
  }
  return out.join('/');
}
