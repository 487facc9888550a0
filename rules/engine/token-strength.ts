// Is a lock token unique per acquisition? Constants, process.pid, hostnames and timestamps are not,
// and neither is one token created once (module level, or once per object) and reused.
import { Node, SyntaxKind, type Expression } from 'ts-morph';
import type { ConstLookup } from './keys';
import { declarationOf, descendantsOfKind, literalString, unwrap } from './nodes';

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
  if (literalString(n) !== undefined || Node.isNumericLiteral(n) || n.getKind() === SyntaxKind.TrueKeyword) return 'constant';
  if (PID.test(text)) return 'pid';
  if (HOST.test(text) || /hostname\(\)$/.test(text)) return 'hostname';
  if (TIME.test(text)) return 'timestamp';
  if (Node.isIdentifier(n) && depth < 3) {
    const init = lookup(n);
    return init ? partWeakness(init, lookup, depth + 1) : 'unknown';
  }
  if (Node.isTemplateExpression(n) || (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+')) {
    const parts = Node.isTemplateExpression(n)
      ? n.getTemplateSpans().map((s) => s.getExpression())
      : [n.getLeft(), n.getRight()];
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
  if (Node.isIdentifier(n)) {
    const decl = declarationOf(n);
    const moduleLevel = !!decl && Node.isVariableDeclaration(decl) && Node.isSourceFile(decl.getVariableStatement()?.getParent() ?? decl);
    return moduleLevel && !Node.isSourceFile(fn) ? decl : undefined;
  }
  if (Node.isPropertyAccessExpression(n) && n.getExpression().getKind() === SyntaxKind.ThisKeyword) {
    const cls = token.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
    if (!cls) return undefined;
    const name = n.getName();
    const writes = descendantsOfKind(cls, SyntaxKind.BinaryExpression)
      .filter((b) => b.getOperatorToken().getText() === '=' && b.getLeft().getText() === `this.${name}`);
    const prop = cls.getProperty(name);
    const onlyAtConstruction = writes.every((w) => w.getFirstAncestorByKind(SyntaxKind.Constructor));
    if (onlyAtConstruction && (writes.length > 0 || prop?.getInitializer())) return prop ?? writes[0];
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

export function initializerOf(token: Node, lookup: ConstLookup): Expression | undefined {
  const n = unwrap(token);
  return Node.isIdentifier(n) ? lookup(n) : undefined;
}
