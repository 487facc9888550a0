// Is a lock token unique per acquisition? Constants, process.pid, hostnames and timestamps are not,
// and neither is one token created once (module level, or once per object) and reused.
import { ts } from './typescript';
import type { ConstLookup } from './keys';
import { ancestorWhere, declarationOf, descendantsOfKind, isAssignment, isPlus, literalString, unwrap, type Node } from './nodes';

export type Weakness =
  | { kind: 'constant' | 'pid' | 'hostname' | 'timestamp'; what: string }
  | { kind: 'reused'; what: string; declaration: Node };

const HOST = /^(os\.)?hostname\(\)$/;
const TIME = /^(Date\.now\(\)|performance\.now\(\)|process\.hrtime(\.bigint)?\(\)|newDate\(\)(\.(getTime|valueOf|toISOString)\(\))?)$/;
const PID = /^(process\.pid|process\.ppid)(\.toString\(\))?$|^String\(process\.pid\)$/;

function partWeakness(node: Node, lookup: ConstLookup, depth: number): Weakness['kind'] | 'strong' | 'unknown' {
  const n = unwrap(node);
  // `String(x)`, `x.toString()` and `` `${x}` `` are as unique as x.
  const text = n.getText().replace(/\s+/g, '').replace(/^String\((.*)\)$/, '$1').replace(/\.toString\(\)$/, '');
  if (literalString(n) !== undefined || ts.isNumericLiteral(n) || n.kind === ts.SyntaxKind.TrueKeyword) return 'constant';
  if (PID.test(text)) return 'pid';
  if (HOST.test(text) || /hostname\(\)$/.test(text)) return 'hostname';
  if (TIME.test(text)) return 'timestamp';
  if (ts.isIdentifier(n) && depth < 3) {
    const init = lookup(n);
    return init ? partWeakness(init, lookup, depth + 1) : 'unknown';
  }
  if (ts.isTemplateExpression(n) || isPlus(n)) {
    const parts = ts.isTemplateExpression(n) ? n.templateSpans.map((s) => s.expression) : [n.left, n.right];
    const kinds = parts.map((p) => partWeakness(p, lookup, depth + 1));
    if (kinds.some((k) => k === 'strong' || k === 'unknown')) return kinds.includes('strong') ? 'strong' : 'unknown';
    return kinds.find((k) => k !== 'constant') ?? 'constant';
  }
  if (/random|uuid|nanoid|ulid|cuid|v4\(/i.test(text)) return 'strong';
  return 'unknown';
}

/** The module-level or once-per-object declaration of a token used inside a function, if any. */
function reusedDeclaration(token: Node, fn: Node): Node | undefined {
  const n = unwrap(token);
  if (ts.isIdentifier(n)) {
    const decl = declarationOf(n);
    // VariableDeclaration -> VariableDeclarationList -> VariableStatement -> SourceFile
    const moduleLevel = !!decl && ts.isVariableDeclaration(decl) && ts.isSourceFile(decl.parent.parent.parent);
    return moduleLevel && !ts.isSourceFile(fn) ? decl : undefined;
  }
  if (ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = ancestorWhere<ts.ClassDeclaration>(token, ts.isClassDeclaration);
    if (!cls) return undefined;
    const name = n.name.text;
    const writes = descendantsOfKind<ts.BinaryExpression>(cls, ts.SyntaxKind.BinaryExpression).filter((b) => isAssignment(b) && b.left.getText() === `this.${name}`);
    const prop = cls.members.find((m): m is ts.PropertyDeclaration => ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === name);
    const onlyAtConstruction = writes.every((w) => ancestorWhere(w, ts.isConstructorDeclaration));
    if (onlyAtConstruction && (writes.length > 0 || prop?.initializer)) return prop ?? writes[0];
  }
  return undefined;
}

export function tokenWeakness(token: Node, fn: Node, lookup: ConstLookup): Weakness | undefined {
  const kind = partWeakness(token, lookup, 0);
  const what = unwrap(token).getText();
  if (kind === 'constant' || kind === 'pid' || kind === 'hostname' || kind === 'timestamp') return { kind, what };
  const declaration = reusedDeclaration(token, fn);
  return declaration ? { kind: 'reused', what, declaration } : undefined;
}

export function initializerOf(token: Node, lookup: ConstLookup): ts.Expression | undefined {
  const n = unwrap(token);
  return ts.isIdentifier(n) ? lookup(n) : undefined;
}
