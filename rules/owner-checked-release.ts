// DEL/UNLINK of a lock key without an atomic owner check deletes whoever holds the lock now; so does
// GET, compare in the client, then DEL (the lock can change hands between the two round trips).
import { ts } from './engine/typescript';
import { sameKey, describeKey } from './engine/keys';
import type { LockModel, Release } from './engine/model';
import { callsNamed, enclosingFunction, isFunctionLike, spanOf, unwrap, valueCarrier } from './engine/nodes';
import { receiverText, visibleToken } from './engine/queries';
import type { ServerKind } from './config';
import { releaseFixTitle } from './fixes/server-commands';
import { guardedRelease } from './fixes/text';
import type { Rule } from './rule';
import type { Fix } from './types';

function fix(model: LockModel, release: Release, server: ServerKind): Fix | undefined {
  const getCompare = release.getCompare;
  const receiver = receiverText(release.call);
  const keyNode = release.command?.keys.find((k) => release.key && sameKey(model.keyOf(k), release.key));
  if (!receiver || !keyNode || release.command?.batch || release.kind === 'script') return undefined;
  const statement = valueCarrier(release.call).parent;
  if (!ts.isExpressionStatement(statement) || (release.command?.keys.length ?? 0) > 1) return undefined;
  const awaited = ts.isAwaitExpression(unwrap(statement.expression));
  const title = releaseFixTitle(server);
  if (getCompare?.token && ts.isIfStatement(getCompare.ifStatement) && !getCompare.ifStatement.elseStatement) {
    const then = getCompare.ifStatement.thenStatement;
    const only = ts.isBlock(then) ? then.statements : [then];
    if (only.length === 1 && only[0] === statement) {
      const call = guardedRelease(model.style, receiver, keyNode.getText(), getCompare.token.getText(), server);
      return { title, isPreferred: true, edits: [{ ...spanOf(getCompare.ifStatement), newText: `${awaited ? 'await ' : ''}${call};` }] };
    }
  }
  const token = visibleToken(model, release.key, release.call);
  if (!token) return undefined;
  return { title, isPreferred: true, edits: [{ ...spanOf(release.call), newText: guardedRelease(model.style, receiver, keyNode.getText(), token.getText(), server) }] };
}

// Operator tools that break a lock on purpose: `forceUnlock(name)`, `breakLock`, `adminReleaseLock`.
const FORCED = /(?:^|_)(?:force|break|admin|operator|manual|purge|nuke|wipe|steal)/i;

/**
 * A forced release: a function named as an operator's break-the-lock action that takes no token
 * (it cannot check an owner it is not told) and acquires nothing itself.
 */
function isForcedRelease(model: LockModel, release: Release): boolean {
  const fn = release.fn;
  if (!isFunctionLike(fn) || !FORCED.test(functionName(fn))) return false;
  const takesToken = fn.parameters.some((p) => /token|owner|holder|lockId|value|identifier/i.test(p.name.getText()));
  if (takesToken || model.acquires.some((a) => a.fn === fn)) return false;
  // Called by code that then acquires (a stale-lock breaker before a retry) it is automated, not an operator's.
  const name = functionName(fn);
  const acquiringFns = new Set(model.acquires.map((a) => a.fn));
  return !callsNamed(model.sourceFile, (n) => n === name).some((call) => acquiringFns.has(enclosingFunction(call)));
}

function functionName(fn: ts.FunctionLikeDeclaration): string {
  if (fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  const parent = fn.parent;
  return parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name) ? parent.name.text : '';
}

export const ownerCheckedRelease: Rule = {
  id: 'owner-checked-release',
  defaultSeverity: 'error',
  summary: 'DEL/UNLINK of a lock key without an atomic owner check, or GET-compare-DEL in two round trips.',
  check({ model, report, server }) {
    for (const release of model.releases) {
      if (release.ownerChecked || isForcedRelease(model, release)) continue;
      const key = describeKey(release.key);
      const command = release.kind === 'script' ? 'This Lua script deletes' : `${release.command?.name ?? 'DEL'} deletes`;
      const getCompare = release.getCompare;
      const message = getCompare
        ? `GET, compare, then ${release.command?.name ?? 'DEL'} ${key} takes two round trips: the lock can expire and be acquired by another process between the GET and the delete, which then removes their lock. Compare and delete atomically in one Lua script (or DELEX key IFEQ token on Redis 8.4+).`
        : `${command} ${key} whoever holds it. If this process's lock expired (a slow step, a GC pause) and another process acquired it, this removes their lock and lets a third in. Delete only if the value is still this process's token, atomically (Lua compare-and-delete, or DELEX key IFEQ token on Redis 8.4+).`;
      report({
        span: spanOf(release.call),
        message,
        related: getCompare ? [{ span: spanOf(getCompare.get), message: 'the separate GET' }] : [],
        fix: () => fix(model, release, server),
      });
    }
  },
};
