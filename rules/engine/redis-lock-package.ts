// The `redis-lock` npm package: `const lock = require('redis-lock')(client)` (often promisified), then
// `const done = await lock('name', timeoutMs)` waits until the lock is taken (with an expiry), and
// `await done()` releases it. Read as a lock-object acquire (like redlock's) whose handle is `done`.
import { ts } from './typescript';
import type { FileImports } from './imports';
import type { KeyRef } from './keys';
import type { Acquire, Release } from './model';
import { calleeName, descendantsOfKind, enclosingFunction, enclosingStatement, isFunctionOrArrow, literalString, unwrap, valueCarrier, type Node } from './nodes';
import { resultUse } from './result-use';
import { storedName } from './libraries';

const REDIS_LOCK_MODULE = 'redis-lock';

/** `redisLock(client)` or `require('redis-lock')(client)`: a call of the package's factory. */
function isFactoryCall(call: ts.CallExpression, imports: FileImports): boolean {
  const callee = unwrap(call.expression);
  if (ts.isIdentifier(callee)) return imports.names.get(callee.text) === REDIS_LOCK_MODULE;
  return ts.isCallExpression(callee) && calleeName(callee) === 'require' && !!callee.arguments[0] && literalString(callee.arguments[0]) === REDIS_LOCK_MODULE;
}

/** The names the lock function is stored under: `lock` in `const lock = promisify(redisLock(client))`. */
function redisLockFunctions(sourceFile: ts.SourceFile, imports: FileImports): Set<string> {
  const names = new Set<string>();
  if (!imports.modules.has(REDIS_LOCK_MODULE)) return names;
  for (const call of descendantsOfKind<ts.CallExpression>(sourceFile, ts.SyntaxKind.CallExpression)) {
    if (!isFactoryCall(call, imports)) continue;
    let holder: Node = valueCarrier(call);
    const around = holder.parent;
    if (ts.isCallExpression(around) && /(?:^|\.)promisify$/.test(around.expression.getText()) && around.arguments[0] === holder) holder = around;
    const name = storedName(holder);
    if (name) names.add(name);
  }
  return names;
}

/** The acquires (`await lock(name)`) and the releases (`done()`) of the lock functions named. */
export function recogniseRedisLockCalls(sourceFile: ts.SourceFile, imports: FileImports, keyOf: (n: Node) => KeyRef): { acquires: Acquire[]; releases: Release[] } {
  const acquires: Acquire[] = [];
  const releases: Release[] = [];
  const lockFunctions = redisLockFunctions(sourceFile, imports);
  if (lockFunctions.size === 0) return { acquires, releases };
  const handles = new Set<string>();
  // In document order: each `done` is stored by its acquire before it is called.
  for (const call of descendantsOfKind<ts.CallExpression>(sourceFile, ts.SyntaxKind.CallExpression)) {
    const name = calleeName(call);
    if (!name || !ts.isIdentifier(unwrap(call.expression))) continue;
    // The callback form hands `done` to a routine: not read here.
    if (lockFunctions.has(name) && call.arguments[0] && !call.arguments.some(isFunctionOrArrow)) {
      const handle = storedName(call);
      if (handle) handles.add(handle);
      acquires.push({ call, fn: enclosingFunction(call), statement: enclosingStatement(call), result: resultUse(call), kind: 'redlock', key: keyOf(call.arguments[0]), hasTtl: true, owner: handle });
    } else if (handles.has(name) && call.arguments.length === 0) {
      releases.push({ call, fn: enclosingFunction(call), kind: 'library', handle: name, ownerChecked: true });
    }
  }
  return { acquires, releases };
}
