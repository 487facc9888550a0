// A fresh token per acquisition, for fixes that span the acquire and its release: `randomUUID()` in a
// variable declared right before the acquire, written into the acquire, and compared at the release.
import { ts } from '../engine/typescript';
import type { Acquire, LockModel } from '../engine/model';
import { enclosingStatement, identifiersNamed, spanOf, unwrap, type Node } from '../engine/nodes';
import type { TextEdit } from '../types';
import { ensureNamedImport, indentOf } from './text';

export interface FreshToken {
  /** The variable that holds the token, visible from the acquire to the end of its block. */
  name: string;
  /** The import and the declaration before the acquire. */
  declare: TextEdit[];
  /** The old token in the acquire replaced by the variable. */
  replace: TextEdit;
  /** All of them. */
  edits: TextEdit[];
}

/** A name for the token that nothing in the function uses yet. */
function freeName(fn: Node): string {
  for (const name of ['token', 'lockToken', 'ownerToken']) if (identifiersNamed(fn, name).length === 0) return name;
  for (let n = 2; ; n++) if (identifiersNamed(fn, `token${n}`).length === 0) return `token${n}`;
}

/**
 * The edits that give `acquire` a fresh token. With `holder` (the old token's name, say `OWNER`), the
 * token keeps it readable, `${OWNER}:${randomUUID()}`, and the name stays in use. Undefined when the acquire's statement is not directly
 * in a block (a declaration before it would change the code's shape) or it has no token to replace.
 */
export function freshToken(model: LockModel, acquire: Acquire, holder?: string): FreshToken | undefined {
  const token = acquire.token;
  let statement = enclosingStatement(acquire.call);
  // An acquire inside `try { ... } finally { release }`: the token must be visible in the finally too.
  if (ts.isBlock(statement.parent) && ts.isTryStatement(statement.parent.parent) && statement.parent.parent.tryBlock === statement.parent) {
    statement = statement.parent.parent;
  }
  const parent = statement.parent;
  if (!token || !parent || !(ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isCaseClause(parent))) return undefined;
  const name = freeName(acquire.fn);
  const indent = indentOf(statement);
  const at = statement.getStart();
  const declare = [
    ...ensureNamedImport(model.sourceFile, 'randomUUID', 'node:crypto'),
    { start: at, end: at, newText: `const ${name} = ${holder ? `\`\${${holder}}:\${randomUUID()}\`` : 'randomUUID()'};\n${indent}` },
  ];
  const replace = { ...spanOf(unwrap(token)), newText: name };
  return { name, declare, replace, edits: [...declare, replace] };
}
