// A release that also runs when the acquire failed: a `finally` the not-acquired path goes through, a
// `catch` it throws into, or a release registered (res.on('finish'), defer) before the acquire's answer is tested. With a DEL
// that does not compare the token, it deletes the lock of the process that does hold it; so does a
// release that compares a token every request on the record shares (the user's id as the owner).
import { ts } from './engine/typescript';
import { mentions } from './engine/failure-paths';
import { describeKey, sameKey, type KeyRef } from './engine/keys';
import { plainSet } from './engine/check-then-set';
import type { RedisCommand } from './engine/commands';
import { helperRelated } from './engine/helper-related';
import type { Acquire, HelperVia, LockModel, Release } from './engine/model';
import { ancestorWhere, contains, descendantsOfKind, enclosingFunction, identifiersNamed, isFunctionLike, isFunctionOrArrow, methodOf, calleeName, spanOf, unwrap, type Node } from './engine/nodes';
import { neverThrows } from './engine/never-throws';
import { throwsWhenCalled } from './engine/written-text';
import { guardNames, isGuard, lockNames, testsFailure } from './engine/paths';
import { isRecordId } from './engine/token-strength';
import { visibleAt } from './engine/queries';
import type { Rule } from './rule';
import type { Fix } from './types';

/** Acquires whose answer can be "not acquired" (a reply, not an exception). */
const TRY_KINDS = new Set(['set-nx', 'setnx', 'lua', 'semaphore-try', 'helper']);
const REGISTER_METHODS = /^(?:on|once|addListener|prependListener|defer|onFinished|onClose|teardown)$/;

function tested(acquire: Acquire): boolean {
  const use = acquire.result;
  return use.kind === 'tested' || (use.kind === 'assigned' && use.tested);
}

/** A delete of a lock key: a release in the model, or a DEL/UNLINK of a key acquired here. */
interface Delete {
  call: ts.CallExpression;
  key: KeyRef;
  fn: Node;
  /** The release compares the token (an owner-checked release): harmful only with a shared token. */
  checked?: boolean;
  /** The project helper the release goes through, whose DEL it is. */
  via?: HelperVia;
}

/** A release whose DEL compares the token: through a project helper, only if the helper's own does. */
const compares = (r: Release) => r.ownerChecked && r.via?.ownerChecked !== false;

/** Owner-checked releases: after a failed acquire they delete nothing, unless the token is shared. */
function checkedReleases(model: LockModel): Delete[] {
  return model.releases.filter((r) => compares(r) && r.key && r.kind !== 'library').map((r) => ({ call: r.call, key: r.key as KeyRef, fn: r.fn, checked: true, via: r.via }));
}

/** Deletes that do not compare the token. */
function uncheckedDeletes(model: LockModel): Delete[] {
  const deletes: Delete[] = model.releases.filter((r) => !compares(r) && r.key).map((r) => ({ call: r.call, key: r.key as KeyRef, fn: r.fn, via: r.via }));
  const seen = new Set(deletes.map((d) => d.call));
  for (const c of model.commands) {
    if ((c.name !== 'DEL' && c.name !== 'UNLINK') || seen.has(c.call) || c.keys.length !== 1) continue;
    const key = model.keyOf(c.keys[0]);
    if (model.acquiresOn(key).some((a) => TRY_KINDS.has(a.kind) && !a.marker)) deletes.push({ call: c.call, key, fn: enclosingFunction(c.call) });
  }
  return deletes;
}

/** The acquire of the deleted key in `fn` whose answer is tested (before the delete, unless `anywhere`). */
function acquireOf(model: LockModel, release: Delete, fn: Node, anywhere: boolean): Acquire | undefined {
  // The last one, read backwards in place: a lock module's key has hundreds of acquires, in other functions.
  const acquires = model.acquiresOn(release.key);
  for (let i = acquires.length - 1; i >= 0; i--) {
    const a = acquires[i];
    if (a.fn === fn && TRY_KINDS.has(a.kind) && (anywhere || a.call.end <= release.call.getStart()) && tested(a)) return a;
  }
  return undefined;
}

/**
 * The finally block holding the release, unless the release there is conditional. A test of the key
 * alone (`if (utr) await releaseLock(utr)`: was there a key to lock) does not ask whether it was taken.
 */
function finallyOf(release: Delete, acquire?: Acquire): { block: ts.Block; tryStatement: ts.TryStatement } | undefined {
  for (let a: Node = release.call; a.parent && a !== release.fn; a = a.parent) {
    const parent = a.parent;
    if (ts.isIfStatement(a) && !(acquire && testsKeyOnly(a.expression, release, acquire))) return undefined;
    if (ts.isConditionalExpression(a) || (ts.isBinaryExpression(a) && a.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken)) return undefined;
    if (ts.isTryStatement(parent) && parent.finallyBlock === a) return { block: a as ts.Block, tryStatement: parent };
  }
  return undefined;
}

/** `utr`, `lockKey`, `this.key`: a name the release's own arguments spell, and none of the acquire's answer. */
function testsKeyOnly(condition: ts.Expression, release: Delete, acquire: Acquire): boolean {
  const tested = unwrap(condition);
  if (!ts.isIdentifier(tested) && !ts.isPropertyAccessExpression(tested)) return false;
  const name = tested.getText();
  const answers = lockNames(acquire);
  if (answers.includes(name) || mentions(tested, answers)) return false;
  const word = new RegExp(`(?<![\\w$.])${name.replace(/[.$]/g, '\\$&')}(?![\\w$])`);
  return release.call.arguments.some((arg) => word.test(arg.getText()));
}

/**
 * The try statement whose catch clause holds the release unconditionally: nothing in the catch before it
 * leaves or tests (a catch that rethrows its "busy" error first releases only after other errors).
 */
function catchOf(release: Delete): ts.TryStatement | undefined {
  for (let a: Node = release.call; a.parent && a !== release.fn; a = a.parent) {
    const parent = a.parent;
    if (ts.isIfStatement(a) || ts.isConditionalExpression(a) || (ts.isBinaryExpression(a) && a.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken)) return undefined;
    if (!ts.isBlock(a) || !ts.isCatchClause(parent) || !ts.isTryStatement(parent.parent)) continue;
    const before = a.statements.filter((s) => s.end <= release.call.getStart());
    return before.some((s) => ts.isIfStatement(s) || ts.isReturnStatement(s) || ts.isThrowStatement(s)) ? undefined : parent.parent;
  }
  return undefined;
}

/** `if (!ok) throw ...` on the acquire's answer inside the try block: the not-acquired path goes into the catch. */
function throwsWhenNotAcquired(acquire: Acquire, tryStatement: ts.TryStatement): ts.IfStatement | undefined {
  if (!contains(tryStatement.tryBlock, acquire.call)) return undefined;
  for (const s of descendantsOfKind<ts.IfStatement>(tryStatement.tryBlock, ts.SyntaxKind.IfStatement)) {
    if (s.pos < acquire.call.end || !isGuard(s, acquire) || !testsFailure(s.expression)) continue;
    // Thrown straight into this catch: not inside a nested function or an inner try.
    const inner = ancestorWhere(s, (n) => n === tryStatement || ts.isFunctionLike(n) || (ts.isTryStatement(n) && !!n.catchClause));
    if (inner !== tryStatement) continue;
    const then = s.thenStatement;
    if (ts.isThrowStatement(then) || (ts.isBlock(then) && then.statements.some(ts.isThrowStatement))) return s;
  }
  return undefined;
}

/** Validation that throws on bad input: `schema.parse(body)`, `JSON.parse(raw)`, `validateSync(dto)`, `assertValid(x)`. */
const VALIDATES = /^(?:parse|parseAsync|validate|validateSync|validateOrReject|assert[\w$]*)$/;

/**
 * The first thing in the try block, before the acquire, that can throw into the catch while no lock is
 * held: a `throw`, an awaited call, a validation call, or a call of a function of the file that throws.
 */
function throwsBeforeAcquire(acquire: Acquire, tryStatement: ts.TryStatement): Node | undefined {
  if (!contains(tryStatement.tryBlock, acquire.call)) return undefined;
  let found: Node | undefined;
  const visit = (n: Node): void => {
    if (found || n.pos >= acquire.call.pos || isFunctionLike(n)) return;
    if (ts.isTryStatement(n) && n.catchClause) return; // an inner try catches its own
    if (ts.isThrowStatement(n) || (ts.isAwaitExpression(n) && !contains(n, acquire.call) && !neverThrows(n))) {
      found = n;
      return;
    }
    if (ts.isCallExpression(n) && !contains(n, acquire.call)) {
      const name = calleeName(n) ?? methodOf(n)?.name ?? '';
      if (VALIDATES.test(name) || throwsWhenCalled(n.getSourceFile(), name)) {
        found = n;
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(tryStatement.tryBlock, visit);
  return found;
}

/** A branch that leaves: `return`, `throw`, a loop jump, or `process.exit(0)` (a script that lost the race stops). */
const LEAVES = /\b(?:return|throw|continue|break)\b|\bprocess\.exit\s*\(/;

/**
 * `if (!force && !(await lock(key))) return;`: an acquire on the right of `&&`, `||` or `??` (or in a
 * branch of `?:`) in the guard runs only when what is left of it lets it; otherwise the guard passes
 * with no lock taken. The operand that can skip it.
 */
function skippable(call: Node, condition: Node): Node | undefined {
  for (let a: Node = call; a !== condition && a.parent; a = a.parent) {
    const p = a.parent;
    if (ts.isBinaryExpression(p) && p.right === a && /^(?:&&|\|\||\?\?)$/.test(p.operatorToken.getText())) return p.left;
    if (ts.isConditionalExpression(p) && p.condition !== a) return p.condition;
  }
  return undefined;
}

/** Is the try statement reached only after the acquire was found successful? */
function guardedBefore(acquire: Acquire, tryStatement: ts.TryStatement): boolean {
  if (contains(tryStatement.tryBlock, acquire.call)) return false;
  // The lock's names and the booleans that say it was taken (`const won = holder === token`).
  const names = guardNames(acquire);
  for (let a = tryStatement.parent; a && a !== acquire.fn; a = a.parent) {
    if (ts.isIfStatement(a) && (contains(a.expression, acquire.call) || mentions(a.expression, names))) return true;
  }
  const block = tryStatement.parent;
  if (!ts.isBlock(block) && !ts.isSourceFile(block)) return false;
  if (block.statements.some((s) => s.end >= acquire.call.end && s.end <= tryStatement.getStart() && ts.isIfStatement(s) && isGuard(s, acquire) && LEAVES.test(s.thenStatement.getText()) && !skippable(acquire.call, s.expression))) return true;
  // `let wallet = await pick(); while (!wallet) { await sleep(200); wallet = await pick(); }`: the loop ends only once acquired.
  if (block.statements.some((s) => (s.pos >= acquire.call.end || contains(s, acquire.call)) && s.end <= tryStatement.getStart() && ts.isWhileStatement(s) && testsFailure(s.expression) && mentions(s.expression, names))) return true;
  // `for (const id of ids) { if (!(await lock(id))) return 409; }` before the try: a failed acquire leaves the function.
  const guard = ancestorWhere<ts.IfStatement>(acquire.call, ts.isIfStatement);
  return !!guard && guard.end <= tryStatement.getStart() && contains(guard.expression, acquire.call) && testsFailure(guard.expression) && /\b(?:return|throw)\b|\bprocess\.exit\s*\(/.test(guard.thenStatement.getText()) && !skippable(acquire.call, guard.expression);
}

/** `res.on('finish', () => del(key))` written before the acquire's answer is tested. */
function registeredEarly(acquire: Acquire, release: Delete): ts.CallExpression | undefined {
  const callback = release.fn;
  const register = callback.parent;
  if (!isFunctionOrArrow(callback) || !register || !ts.isCallExpression(register)) return undefined;
  const name = methodOf(register)?.name ?? calleeName(register) ?? '';
  if (!REGISTER_METHODS.test(name)) return undefined;
  const names = lockNames(acquire);
  const firstTest = [acquire.call, ...identifiersNamed(acquire.fn, names).filter((id) => id.pos > acquire.call.end)]
    .map((n) => ancestorWhere<ts.IfStatement>(n, ts.isIfStatement))
    .find((s): s is ts.IfStatement => !!s && (contains(s.expression, acquire.call) || mentions(s.expression, names)));
  return !firstTest || register.getStart() < firstTest.getStart() ? register : undefined;
}

/**
 * `try { if (await locked()) return; await redis.setex(lockKey, ttl, 'busy'); ... } finally { del(lockKey) }`:
 * a lock set without NX inside the try, after an exit. The path that leaves before the SET (most often
 * because another process holds the lock) runs the finally's DEL all the same.
 */
function exitBeforePlainSet(model: LockModel, release: Delete): { set: RedisCommand; exit: Node } | undefined {
  if (release.checked) return undefined;
  const tryBlock = finallyOf(release)?.tryStatement.tryBlock;
  const set = tryBlock && model.commands.find((c) => plainSet(c) && !!c.keys[0] && contains(tryBlock, c.call) && sameKey(model.keyOf(c.keys[0]), release.key));
  if (!tryBlock || !set) return undefined;
  const home = ancestorWhere(tryBlock, ts.isFunctionLike);
  const exits = [...descendantsOfKind<ts.ReturnStatement>(tryBlock, ts.SyntaxKind.ReturnStatement), ...descendantsOfKind<ts.ThrowStatement>(tryBlock, ts.SyntaxKind.ThrowStatement)];
  const exit = exits.find((e) => e.end <= set.call.getStart() && ancestorWhere(e, ts.isFunctionLike) === home);
  return exit ? { set, exit } : undefined;
}

/** `if (acquired) <release>;` when the answer's variable can be read in the finally. */
function fix(acquire: Acquire, release: Delete): Fix | undefined {
  const use = acquire.result;
  if (use.kind !== 'assigned') return undefined;
  const declared = use.declaration;
  const name = ts.isVariableDeclaration(declared) ? declared.name : ts.isBinaryExpression(declared) ? declared.left : undefined;
  const statement = ancestorWhere(release.call, ts.isExpressionStatement);
  if (!name || !statement || !ts.isBlock(statement.parent) || !visibleAt(name, release.call)) return undefined;
  return {
    title: `Release only if acquired (if (${use.name}))`,
    isPreferred: true,
    edits: [{ ...spanOf(statement), newText: `if (${use.name}) ${statement.getText()}` }],
  };
}

/** Why the release on the not-acquired path deletes the holder's lock. */
function notAcquiredWhy(acquire: Acquire, release: Delete): string {
  return release.checked
    ? `the release goes by the token ${acquire.token!.getText()}, an id from the request rather than one per acquisition: the request holding the lock can carry the same id (a retry, a double submit), so the owner check passes and this deletes its lock`
    : 'the DEL does not compare the token, so it deletes the lock of the process that holds it, and a third one gets in';
}

export const releaseOnlyAcquired: Rule = {
  id: 'release-only-acquired',
  defaultSeverity: 'error',
  summary: 'A release that runs even when the acquire failed (a finally, a catch the not-acquired path throws into, or a finish handler), deleting the holder\'s lock.',
  check({ model, report }) {
    for (const release of [...uncheckedDeletes(model), ...checkedReleases(model)]) {
      const callbackOwner = isFunctionOrArrow(release.fn) ? ancestorWhere(release.fn, ts.isFunctionLike) : undefined;
      const acquire = acquireOf(model, release, release.fn, false) ?? (callbackOwner ? acquireOf(model, release, callbackOwner, true) : undefined);
      const early = acquire ? undefined : exitBeforePlainSet(model, release);
      if (early) {
        const key = describeKey(release.key);
        report({
          span: spanOf(release.call),
          message: `This finally deletes ${key} also on the path that leaves before ${key} is set: that exit (most often because another process holds the lock) goes through the finally, and the DEL does not compare the token, so it deletes the lock of the process that holds it. Take the lock with SET NX before the try and go on only when it replies OK, and release with a compare-and-delete.`,
          related: [{ span: spanOf(early.exit), message: 'leaves before the lock is set' }, { span: spanOf(early.set.call), message: 'the SET that takes the lock' }, ...helperRelated(release.via, 'the release in the helper')],
        });
        continue;
      }
      if (!acquire) continue;
      // An owner check stops a release after a failed acquire only if the holder's token differs.
      if (release.checked && !(acquire.token && isRecordId(acquire.token, model.lookup))) continue;
      const key = describeKey(release.key);
      const where = finallyOf(release, acquire);
      if (where && ancestorWhere(where.tryStatement, ts.isFunctionLike) === acquire.fn && !guardedBefore(acquire, where.tryStatement)) {
        const why = notAcquiredWhy(acquire, release);
        const cure = release.checked ? 'and give each acquisition its own random token (crypto.randomUUID())' : 'and release with a compare-and-delete';
        const test = ancestorWhere<ts.IfStatement>(acquire.call, ts.isIfStatement);
        const skip = test && contains(test.expression, acquire.call) ? skippable(acquire.call, test.expression) : undefined;
        const when = skip ? `also when the acquire did not run (\`${skip.getText().slice(0, 40)}\` skips it) or failed: those paths go through it` : 'also when the acquire failed: the not-acquired path goes through it';
        report({
          span: spanOf(release.call),
          message: `This finally deletes ${key} ${when}, and ${why}. Release only if the acquire succeeded (test its answer in the finally, or acquire and test before the try), ${cure}.`,
          related: [{ span: spanOf(acquire.call), message: 'the acquire that can fail' }, ...(skip ? [{ span: spanOf(skip), message: 'skips the acquire' }] : []), ...helperRelated(release.via, 'the release in the helper')],
          fix: () => fix(acquire, release),
        });
        continue;
      }
      const caught = catchOf(release);
      const thrown = caught && ancestorWhere(caught, ts.isFunctionLike) === acquire.fn ? throwsWhenNotAcquired(acquire, caught) : undefined;
      if (thrown) {
        const why = notAcquiredWhy(acquire, release);
        report({
          span: spanOf(release.call),
          message: `This catch deletes ${key} also when the acquire failed: the not-acquired path throws into it, and ${why}. Acquire and test before the try (so the catch only belongs to a held lock), or rethrow the not-acquired error before releasing, and release with a compare-and-delete.`,
          related: [{ span: spanOf(acquire.call), message: 'the acquire that can fail' }, { span: spanOf(thrown), message: 'the not-acquired path, which throws into the catch' }, ...helperRelated(release.via, 'the release in the helper')],
          fix: () => fix(acquire, release) ?? 'No automatic fix: the acquire\'s answer cannot be read in the catch; acquire and test it before the try.',
        });
        continue;
      }
      const before = caught && !release.checked && ancestorWhere(caught, ts.isFunctionLike) === acquire.fn ? throwsBeforeAcquire(acquire, caught) : undefined;
      if (before) {
        report({
          span: spanOf(release.call),
          message: `This catch deletes ${key} also when the try fails before the acquire: \`${before.getText().split('\n')[0].slice(0, 60)}\` can throw while no lock is held, and the DEL does not compare the token, so it deletes the lock of the process that holds it. Do that work before the try (so the catch only belongs to a held lock), or release only when the acquire succeeded, with a compare-and-delete.`,
          related: [{ span: spanOf(before), message: 'can throw before the lock is taken' }, { span: spanOf(acquire.call), message: 'the acquire' }, ...helperRelated(release.via, 'the release in the helper')],
        });
        continue;
      }
      const register = release.fn !== acquire.fn && !release.checked ? registeredEarly(acquire, release) : undefined;
      if (register) {
        report({
          span: spanOf(release.call),
          message: `This release of ${key} is registered before the acquire's answer is tested, so it runs when the acquire failed too; the DEL does not compare the token and deletes the lock of the process that holds it. Register the release only after the acquire succeeded, and release with a compare-and-delete.`,
          related: [{ span: spanOf(acquire.call), message: 'the acquire that can fail' }, { span: spanOf(register), message: 'registered here' }],
        });
      }
    }
  },
};
