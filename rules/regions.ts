// "Convert to withLock": finds acquire ... critical section ... release regions that can be rewritten
// to `await withLock(client, key, { ttlMs }, async (signal) => { ... })`, and writes the replacement.
import { ts } from './engine/typescript';
import { withModel } from './analyze';
import { emptyConfig, type LockwiseConfig } from './config';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, contains, descendants, descendantsOfKind, identifiersNamed, isAncestor, isFunctionLike, literalNumber, methodOf, unwrap, type Node } from './engine/nodes';
import { inFinally, isGuard, lockNames, releasesOf } from './engine/paths';
import { isLockAcquire, isRedisAcquire } from './engine/queries';
import { indentOf } from './fixes/text';
import type { Span } from './types';
import { expiryOf } from './engine/commands';

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
  /** Set when this acquire's region cannot be converted: why (a disabled refactoring shows it). */
  reason?: string;
}

function ttlMs(acquire: Acquire): string | undefined {
  if (acquire.kind === 'redlock') return acquire.call.arguments[1]?.getText();
  const later = acquire.laterExpire;
  const ttl = acquire.ttl ?? (later && expiryOf(later));
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

/** The names a declaration binds, through destructuring. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

interface Movable {
  /** The section returns from the function: the routine returns it, and so does the function. */
  returns: boolean;
  /** Names declared in the section and used after it: the routine returns them. */
  carried: string[];
  /** One of them is `let`/`var`. */
  mutable: boolean;
}

/**
 * Can the critical section move into a routine? It may not break/continue out of itself or use the
 * lock's names. A return is kept when nothing follows the region in the function; names used after
 * the region are handed out by the routine.
 */
function movable(section: readonly ts.Statement[], after: readonly ts.Statement[], names: string[], atFunctionEnd: boolean): Movable | string {
  const inside = (node: Node | undefined) => !!node && section.some((s) => contains(s, node));
  let returns = false;
  for (const statement of section) {
    for (const d of [statement, ...descendants(statement)]) {
      if (ts.isReturnStatement(d) && !inside(ancestorWhere(d, isFunctionLike))) returns = true;
      if (isJump(d) && !inside(ancestorWhere(d, jumpTarget))) return 'the section breaks or continues a loop outside it';
      if (ts.isIdentifier(d) && names.includes(d.text)) return `the section uses ${d.text}, which withLock keeps to itself`;
    }
  }
  const declarations = section.filter(ts.isVariableStatement);
  const declared = declarations.flatMap((v) => v.declarationList.declarations.flatMap((d) => boundNames(d.name)));
  const carried = declared.filter((name) => after.some((s) => identifiersNamed(s, name).length > 0));
  if (returns && !atFunctionEnd) return 'the section returns from the function and code follows the region';
  if (returns && carried.length > 0) return 'the section both returns and declares values used after the region';
  const mutable = declarations.some((v) => !(v.declarationList.flags & ts.NodeFlags.Const) && v.declarationList.declarations.some((d) => boundNames(d.name).some((n) => carried.includes(n))));
  return { returns, carried, mutable };
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
  if (isRedisAcquire(acquire) && !isLockAcquire(model, acquire)) return undefined;
  const acquireSpan = { start: acquire.call.getStart(), end: acquire.call.end };
  const keyText = acquire.key.node.getText();
  const refuse = (reason: string): LockRegion => ({ span: acquireSpan, acquireSpan, client: '', keyText, ttlMsText: '', newText: '', reason: `Cannot convert to withLock: ${reason}.` });
  const resources = acquire.kind === 'redlock' && acquire.call.arguments[0] ? unwrap(acquire.call.arguments[0]) : undefined;
  if (resources && ts.isArrayLiteralExpression(resources) && resources.elements.length !== 1) return refuse('withLock takes one key, this lock several resources');
  const client = clientOf(model, acquire);
  const ttl = ttlMs(acquire);
  const release = releasesOf(model, acquire)[0];
  const block = acquire.statement.parent;
  if (!client) return refuse('the Redis client is not known here');
  if (!ttl) return refuse('the lock has no TTL in milliseconds or seconds to give withLock');
  if (!release) return refuse('the lock is not released in this function');
  if (!ts.isBlock(block)) return refuse('the acquire is not a statement of its own in a block');
  const statements = block.statements;
  const start = statements.indexOf(acquire.statement as ts.Statement);
  // The release statement, or the try statement whose finally holds it.
  const last = statements.find((s) => contains(s, release.call));
  if (!last) return refuse('the release is in another block than the acquire');
  const end = statements.indexOf(last);
  let sectionStatements: ts.Statement[];
  if (ts.isTryStatement(last) && inFinally(release, acquire)) {
    if (last.catchClause || last.finallyBlock?.statements.length !== 1) return refuse('the try has a catch, or its finally does more than release');
    sectionStatements = [...statements.slice(start + 1, end), ...last.tryBlock.statements];
  } else if (last === ancestorWhere(release.call, ts.isExpressionStatement)) {
    sectionStatements = statements.slice(start + 1, end);
  } else return refuse('the release is nested in other code');
  const expire = acquire.laterExpire?.call;
  if (expire) sectionStatements = sectionStatements.filter((s) => !isAncestor(s, expire));
  if (sectionStatements[0] && isGuard(sectionStatements[0], acquire)) sectionStatements = sectionStatements.slice(1);
  if (sectionStatements.length === 0) return refuse('nothing runs under the lock');
  const after = statements.slice(end + 1);
  const atFunctionEnd = after.length === 0 && block === (acquire.fn as ts.FunctionLikeDeclaration).body;
  const shape = movable(sectionStatements, after, lockNames(acquire), atFunctionEnd);
  if (typeof shape === 'string') return refuse(shape);

  const indent = indentOf(acquire.statement);
  const key = keyText;
  // `const token = randomUUID();` right before the acquire goes too when nothing else reads it.
  const tokenDecl = start > 0 && acquire.token && ts.isIdentifier(acquire.token) ? statements[start - 1] : undefined;
  const tokenName = acquire.token?.getText();
  const dropToken = !!tokenDecl && ts.isVariableStatement(tokenDecl) && tokenDecl.declarationList.declarations.length === 1 &&
    tokenDecl.declarationList.declarations[0].name.getText() === tokenName &&
    !after.some((st) => tokenName !== undefined && identifiersNamed(st, tokenName).length > 0);
  const carried = shape.carried;
  const handedOut = carried.length === 1 ? carried[0] : `{ ${carried.join(', ')} }`;
  const lead = shape.returns ? 'return ' : carried.length > 0 ? `${shape.mutable ? 'let' : 'const'} ${handedOut} = ` : '';
  const tail = carried.length > 0 ? `\n${indent}  return ${handedOut};` : '';
  return {
    span: { start: (dropToken && tokenDecl ? tokenDecl : acquire.statement).getStart(), end: last.end },
    acquireSpan,
    client,
    keyText: key,
    ttlMsText: ttl,
    newText: `${lead}await withLock(${client}, ${key}, { ttlMs: ${ttl} }, async (signal) => {\n${sectionText(model, sectionStatements, indent)}${tail}\n${indent}});`,
  };
}

/** The regions of a parsed file (the language server asks only when code actions are requested). */
export function lockRegionsIn(sourceFile: ts.SourceFile, config: LockwiseConfig = emptyConfig()): LockRegion[] {
  return withModel(sourceFile, config, (model) =>
    model.acquires.map((a) => regionOf(model, a)).filter((r): r is LockRegion => !!r),
  );
}
