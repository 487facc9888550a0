// `try { return work(); } finally { await release(); }` in an async function: the return hands the work's
// promise back without waiting for it, so the finally runs at once and frees the lock while the work
// still runs. Only calls known to give a promise are judged (the lock is otherwise held as written):
// the routine a helper was handed (a parameter), a wrapped method run through `.apply`/`.call`, and a
// function or method of this file declared async.
import { ts } from './typescript';
import type { Acquire, LockModel, Release } from './model';
import { ancestorWhere, isFunctionLike, unwrap, type Node } from './nodes';
import { releasesOf } from './paths';

export interface UnawaitedReturn {
  call: ts.CallExpression;
  release: Release;
}

function isAsync(fn: Node): boolean {
  return isFunctionLike(fn) && (ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async) !== 0;
}

/** The async functions and methods this file declares, by name. */
function asyncNames(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name && isAsync(node)) names.add(node.name.getText());
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isAsync(unwrap(node.initializer))) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return names;
}

// A routine typed to return one of these gives no promise.
const PLAIN_RESULT = /^(?:void|undefined|null|number|string|boolean|bigint)$/;

/** A parameter that holds the routine, unless its type says the routine is synchronous. */
function isRoutineParameter(fn: ts.FunctionLikeDeclaration, name: string): boolean {
  const parameter = fn.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
  const type = parameter?.type;
  return !!parameter && !(type && ts.isFunctionTypeNode(type) && PLAIN_RESULT.test(type.type.getText()));
}

function givesPromise(call: ts.CallExpression, fn: ts.FunctionLikeDeclaration, asyncs: () => Set<string>): boolean {
  const callee = unwrap(call.expression);
  if (ts.isIdentifier(callee)) return isRoutineParameter(fn, callee.text) || asyncs().has(callee.text);
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const method = callee.name.text;
  if (method === 'apply' || method === 'call') return ts.isIdentifier(callee.expression) || ts.isPropertyAccessExpression(callee.expression);
  return callee.expression.kind === ts.SyntaxKind.ThisKeyword && asyncs().has(method);
}

/** The try block whose finally holds `release`, when that try is in the acquire's own function. */
function tryReleasingInFinally(release: Release, acquire: Acquire): ts.Block | undefined {
  if (release.fn !== acquire.fn) return undefined;
  const block = ancestorWhere<ts.Block>(release.call, (n) => !!n.parent && ts.isTryStatement(n.parent) && n.parent.finallyBlock === n);
  return block && ts.isTryStatement(block.parent) && ancestorWhere(block, isFunctionLike) === acquire.fn ? block.parent.tryBlock : undefined;
}

/** `return call()` statements of the try blocks that release `acquire`'s lock in their finally. */
export function unawaitedReturns(model: LockModel, acquire: Acquire): UnawaitedReturn[] {
  const fn = acquire.fn;
  if (!isFunctionLike(fn) || !isAsync(fn)) return [];
  let names: Set<string> | undefined;
  const asyncs = () => (names ??= asyncNames(model.sourceFile));
  const found: UnawaitedReturn[] = [];
  for (const release of releasesOf(model, acquire)) {
    const tryBlock = tryReleasingInFinally(release, acquire);
    if (!tryBlock) continue;
    const visit = (node: ts.Node): void => {
      if (isFunctionLike(node)) return;
      if (ts.isReturnStatement(node) && node.expression) {
        const value = unwrap(node.expression);
        if (ts.isCallExpression(value) && givesPromise(value, fn, asyncs)) found.push({ call: value, release });
      }
      ts.forEachChild(node, visit);
    };
    visit(tryBlock);
  }
  return found;
}
