// "Convert to withLock": finds acquire ... critical section ... release regions that can be rewritten
// to `await withLock(client, key, { ttlMs }, async (signal) => { ... })`, and writes the replacement.
import { ts } from './engine/typescript';
import { withModel } from './analyze';
import { emptyConfig, type LockwiseConfig } from './config';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, contains, descendants, descendantsOfKind, identifiersNamed, isAncestor, isFunctionLike, literalNumber, methodOf, unwrap, type Node } from './engine/nodes';
import { inFinally, isGuard, lockNames, releasesOf } from './engine/paths';
import { isRedisAcquire } from './engine/queries';
import { indentOf } from './fixes/text';
import type { Span } from './types';

export interface LockRegion {
  /** What the rewrite replaces: from the acquire statement to the release (or its try statement). */
  span: Span;
  /** The acquire call, where the refactoring is offered. */
  acquireSpan: Span;
  client: string;
  keyText: string;
  ttlMsText: string;
  /** The replacement text for `span`. */
  newText: string;
}

function ttlMs(acquire: Acquire): string | undefined {
  if (acquire.kind === 'redlock') return acquire.call.arguments[1]?.getText();
  const later = acquire.laterExpire;
  const ttl = acquire.ttl ?? (later && { unit: later.name === 'PEXPIRE' ? 'PX' : later.name === 'EXPIRE' ? 'EX' : '', value: later.args[0] });
  if (!ttl?.value) return undefined;
  if (ttl.unit === 'PX') return ttl.value.getText();
  if (ttl.unit !== 'EX') return undefined;
  const seconds = literalNumber(ttl.value);
  return seconds !== undefined ? String(seconds * 1000) : `${ttl.value.getText()} * 1000`;
}

/** The Redis client to lock with: the acquire's receiver, or redlock's first client. */
function clientOf(model: LockModel, acquire: Acquire): string | undefined {
  if (isRedisAcquire(acquire)) return methodOf(acquire.call)?.receiver.getText();
  const redlock = model.libraryObjects.find((o) => o.library === 'redlock');
  const first = redlock?.node.arguments?.[0];
  const clients = first ? unwrap(first) : undefined;
  return clients && ts.isArrayLiteralExpression(clients) && clients.elements.length === 1 ? clients.elements[0].getText() : undefined;
}

const isJump = (n: Node) => ts.isBreakStatement(n) || ts.isContinueStatement(n);
const jumpTarget = (x: Node) => isFunctionLike(x) || ts.isIterationStatement(x, false) || ts.isSwitchStatement(x) || ts.isLabeledStatement(x);

/** The critical section may not return/break/continue out of itself, use the lock's names, or leak names. */
function movable(section: readonly ts.Statement[], after: readonly ts.Statement[], names: string[]): boolean {
  const inside = (node: Node | undefined) => !!node && section.some((s) => contains(s, node));
  for (const statement of section) {
    for (const d of [statement, ...descendants(statement)]) {
      if (ts.isReturnStatement(d) && !inside(ancestorWhere(d, isFunctionLike))) return false;
      if (isJump(d) && !inside(ancestorWhere(d, jumpTarget))) return false;
      if (ts.isIdentifier(d) && names.includes(d.text)) return false;
    }
  }
  const declared = new Set(section.flatMap((s) => descendantsOfKind<ts.VariableDeclaration>(s, ts.SyntaxKind.VariableDeclaration).map((v) => v.name.getText())));
  return !after.some((s) => identifiersNamed(s, declared).length > 0);
}

/** The section's statements indented one level deeper, with `signal.throwIfAborted()` between awaited steps. */
function sectionText(model: LockModel, section: readonly ts.Statement[], indent: string): string {
  const steps = section.filter((s) => descendantsOfKind(s, ts.SyntaxKind.AwaitExpression).length > 0);
  const lines = section.map((s) => `${indent}  ${model.text.slice(s.getStart(), s.end).replace(/\n(?=[ \t]*\S)/g, '\n  ')}`);
  const check = `${indent}  signal.throwIfAborted();`;
  if (steps.length < 2) return [check, ...lines].join('\n');
  return section.flatMap((s, i) => (steps.includes(s) && s !== steps[steps.length - 1] ? [lines[i], check] : [lines[i]])).join('\n');
}

function regionOf(model: LockModel, acquire: Acquire): LockRegion | undefined {
  if (!['set-nx', 'setnx', 'redlock'].includes(acquire.kind) || !acquire.key) return undefined;
  const resources = acquire.kind === 'redlock' && acquire.call.arguments[0] ? unwrap(acquire.call.arguments[0]) : undefined;
  if (resources && ts.isArrayLiteralExpression(resources) && resources.elements.length !== 1) return undefined;
  const client = clientOf(model, acquire);
  const ttl = ttlMs(acquire);
  const release = releasesOf(model, acquire)[0];
  const block = acquire.statement.parent;
  if (!client || !ttl || !release || !ts.isBlock(block)) return undefined;
  const statements = block.statements;
  const start = statements.indexOf(acquire.statement as ts.Statement);
  // The release statement, or the try statement whose finally holds it.
  const last = statements.find((s) => contains(s, release.call));
  if (!last) return undefined;
  const end = statements.indexOf(last);
  let sectionStatements: ts.Statement[];
  if (ts.isTryStatement(last) && inFinally(release, acquire)) {
    if (last.catchClause || last.finallyBlock?.statements.length !== 1) return undefined;
    sectionStatements = [...statements.slice(start + 1, end), ...last.tryBlock.statements];
  } else if (last === ancestorWhere(release.call, ts.isExpressionStatement)) {
    sectionStatements = statements.slice(start + 1, end);
  } else return undefined;
  const expire = acquire.laterExpire?.call;
  if (expire) sectionStatements = sectionStatements.filter((s) => !isAncestor(s, expire));
  if (sectionStatements[0] && isGuard(sectionStatements[0], acquire)) sectionStatements = sectionStatements.slice(1);
  if (sectionStatements.length === 0 || !movable(sectionStatements, statements.slice(end + 1), lockNames(acquire))) return undefined;

  const indent = indentOf(acquire.statement);
  const key = acquire.key.node.getText();
  // `const token = randomUUID();` right before the acquire goes too when nothing else reads it.
  const tokenDecl = start > 0 && acquire.token && ts.isIdentifier(acquire.token) ? statements[start - 1] : undefined;
  const tokenName = acquire.token?.getText();
  const dropToken = !!tokenDecl && ts.isVariableStatement(tokenDecl) && tokenDecl.declarationList.declarations.length === 1 &&
    tokenDecl.declarationList.declarations[0].name.getText() === tokenName &&
    !statements.slice(end + 1).some((st) => tokenName !== undefined && identifiersNamed(st, tokenName).length > 0);
  return {
    span: { start: (dropToken && tokenDecl ? tokenDecl : acquire.statement).getStart(), end: last.end },
    acquireSpan: { start: acquire.call.getStart(), end: acquire.call.end },
    client,
    keyText: key,
    ttlMsText: ttl,
    newText: `await withLock(${client}, ${key}, { ttlMs: ${ttl} }, async (signal) => {\n${sectionText(model, sectionStatements, indent)}\n${indent}});`,
  };
}

/** The regions of a parsed file (the language server asks only when code actions are requested). */
export function lockRegionsIn(sourceFile: ts.SourceFile, config: LockwiseConfig = emptyConfig()): LockRegion[] {
  return withModel(sourceFile, config, (model) =>
    model.acquires.map((a) => regionOf(model, a)).filter((r): r is LockRegion => !!r),
  );
}
