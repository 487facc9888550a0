// An "acquire" that does not exclude anyone: a SET without NX whose reply is treated as the lock (it is
// always OK), 'NX' written where the value goes, or a GET/EXISTS test followed by a separate SET.
import { ts } from './engine/typescript';
import { spelledName, type RedisCommand } from './engine/commands';
import { mentions } from './engine/failure-paths';
import { checkBefore, functionName, holderRecordKey, inLockAcquireFunction, namedAcquire, namesOf, plainSet, writesBackReply, ACQUIRE_FN } from './engine/check-then-set';
import { findCompareBeforeWrite } from './engine/get-compare';
import { describeKey, namesLockedState, namesRateLimit, type KeyRef } from './engine/keys';
import type { LockModel, Release } from './engine/model';
import { ancestorWhere, bindingElementOf, contains, declarationOf, descendantsOfKind, enclosingFunction, isCallback, literalString, methodOf, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import { resultUse } from './engine/result-use';
import { testsFailure } from './engine/paths';
import { RANDOM_ID } from './engine/key-loops';
import { breaksStaleLock } from './engine/takeover';
import type { Rule } from './rule';
import type { Fix } from './types';
import { atomicSet } from './fixes/text';

const OPTION_WORD = /^(?:NX|XX|PX|EX|PXAT|EXAT)$/i;

/** Is the SET's reply used as "I have the lock": tested, or returned from an acquire-like function? */
function replyTreatedAsLock(command: RedisCommand): boolean {
  const use = resultUse(command.call);
  if (use.kind === 'tested' || (use.kind === 'assigned' && use.tested)) return true;
  const carrier = valueCarrier(command.call);
  const returned = ts.isReturnStatement(carrier.parent) || ts.isArrowFunction(carrier.parent);
  if (!returned) return false;
  return ACQUIRE_FN.test(functionName(enclosingFunction(command.call)));
}

/** Are the two nodes in different branches of one `if`, `?:` or `switch` (never both on one path)? */
function apartInBranches(a: Node, b: Node): boolean {
  for (let n: Node | undefined = a.parent; n; n = n.parent) {
    if (!contains(n, b)) continue;
    const branches = ts.isIfStatement(n) ? [n.thenStatement, n.elseStatement] : ts.isConditionalExpression(n) ? [n.whenTrue, n.whenFalse] : ts.isCaseBlock(n) ? [...n.clauses] : [];
    const holder = (x: Node) => branches.findIndex((branch) => !!branch && contains(branch, x));
    return holder(a) >= 0 && holder(b) >= 0 && holder(a) !== holder(b);
  }
  return false;
}

/**
 * A plain SET that takes the lock with nothing refusing a second taker: in a function named as the
 * acquire, or followed in its own function by a DEL of the key (set, work, delete: used as a mutex).
 * Not when the function also takes the key with NX (the SET is then a renewal or a write of the holder's),
 * nor, in a named acquire, when it takes another key with NX (that one is the lock).
 */
function unguardedTake(model: LockModel, command: RedisCommand, key: KeyRef): { release?: Release } | undefined {
  const fn = enclosingFunction(command.call);
  if (namesLockedState(key) || model.acquiresOn(key).some((a) => a.fn === fn)) return undefined;
  const release = model.releasesOn(key).find((r) => r.fn === fn && r.call.getStart() > command.call.end && !r.ownerChecked && !apartInBranches(command.call, r.call));
  if (release) return { release };
  // An acquire that takes its lock with NX may write other keys beside it (an attempts counter).
  return namedAcquire(command) && !model.acquires.some((a) => a.fn === fn) ? {} : undefined;
}

/** Adds NX in the call's own option style. */
function addNx(command: RedisCommand): Fix | undefined {
  const set = command.set;
  // A cache client's set(key, value, ttl) has no NX to add: the lock needs the Redis client itself.
  if (!set?.ttl || set.ttl.unit === 'KEEPTTL' || set.ttlOnly) return undefined;
  const title = 'Acquire with NX (only if the key does not exist)';
  // SETEX takes no options: the acquire becomes one SET key value NX EX ttl.
  if (set.setex) {
    const method = methodOf(command.call);
    const [key, value] = [command.keys[0], command.args[0]];
    if (!method || !key || !value || !set.ttl.value || command.call.arguments.some(isCallback)) return undefined;
    const style = /[A-Z]/.test(method.name) ? 'node-redis' : (command.style ?? 'ioredis');
    return { title, isPreferred: true, edits: [{ ...spanOf(command.call), newText: atomicSet(style, method.receiver.getText(), key.getText(), value.getText(), set.ttl.unit, set.ttl.value.getText()) }] };
  }
  const options = set.node ? unwrap(set.node) : undefined;
  if (options && ts.isObjectLiteralExpression(options)) {
    const v5 = options.properties.some((p) => p.name?.getText() === 'expiration');
    const open = options.getStart() + 1;
    const nx = v5 ? " condition: 'NX'," : command.style === 'upstash' ? ' nx: true,' : ' NX: true,';
    return { title, isPreferred: true, edits: [{ start: open, end: open, newText: nx }] };
  }
  const last = command.args[command.args.length - 1];
  return last ? { title, isPreferred: true, edits: [{ start: last.end, end: last.end, newText: ", 'NX'" }] } : undefined;
}

/**
 * A once-only claim on a key not named like a lock: `if (await get(k)) return; await set(k, 'done', 'EX', t)`
 * and then the work. The SET writes a literal marker (a cache fill writes the value it computed) right
 * after the check leaves on a hit, with nothing awaited in between, and more follows it.
 */
function markerClaim(model: LockModel, set: RedisCommand): RedisCommand | undefined {
  const statement = valueCarrier(set.call).parent;
  if (!set.args[0] || !ts.isExpressionStatement(statement) || !ts.isBlock(statement.parent)) return undefined;
  if (namesRateLimit(model.keyOf(set.keys[0]))) return undefined;
  const siblings = statement.parent.statements;
  const at = siblings.indexOf(statement);
  if (at === siblings.length - 1) return undefined;
  const check = checkBefore(model, set);
  if (!check || !isMarker(set.args[0], check)) return undefined;
  // The leaving `if` and the SET are neighbours but for statements that await nothing.
  for (let i = at - 1; i >= 0; i--) {
    const s = siblings[i];
    if (ts.isIfStatement(s) && !s.elseStatement && /\b(?:return|throw)\b/.test(s.thenStatement.getText()) && (contains(s.expression, check.call) || mentions(s.expression, namesOf(check)))) return check;
    if (/\bawait\b/.test(s.getText()) && !contains(s, check.call)) return undefined;
  }
  return undefined;
}

/**
 * `if (await cache.has(lockKey)) { await cache.set(lockKey, true, 120); return null; }`: a SET in the
 * branch where the check found the key held, which then leaves: it refreshes someone else's lock (or
 * throttle) and takes nothing, so it is no acquire.
 */
function refreshesHeld(check: RedisCommand, set: RedisCommand): boolean {
  const branch = ancestorWhere<ts.IfStatement>(set.call, (a) => ts.isIfStatement(a) && (contains(a.expression, check.call) || mentions(a.expression, namesOf(check))));
  if (!branch || !contains(branch.thenStatement, set.call) || testsFailure(branch.expression)) return false;
  const statements = ts.isBlock(branch.thenStatement) ? branch.thenStatement.statements : [branch.thenStatement];
  const last = statements[statements.length - 1];
  return !!last && (ts.isReturnStatement(last) || ts.isThrowStatement(last));
}


/** A key built from a name this function set to a fresh random id (`const token = \`urn:uuid:${randomUUID()}\``). */
function keyOfFreshValue(set: RedisCommand): boolean {
  const fn = enclosingFunction(set.call);
  const key = set.keys[0];
  return descendantsOfKind<ts.Identifier>(key, ts.SyntaxKind.Identifier).some((id) => {
    const decl = declarationOf(id);
    return !!decl && ts.isVariableDeclaration(decl) && !!decl.initializer && enclosingFunction(decl) === fn && RANDOM_ID.test(decl.initializer.getText());
  });
}

const LIBRARY_ACQUIRE = /\.\s*(?:acquire|tryAcquire|lock)\s*\(/;

/** An awaited `x.acquire(...)` / `x.tryAcquire(...)` / `x.lock(...)` earlier in the SET's function, of another key than the SET's. */
function acquiredBefore(set: RedisCommand): boolean {
  const fn = enclosingFunction(set.call);
  if (!LIBRARY_ACQUIRE.test(fn.getText())) return false;
  const key = unwrap(set.keys[0]).getText();
  return descendantsOfKind<ts.AwaitExpression>(fn, ts.SyntaxKind.AwaitExpression).some((a) => {
    const call = unwrap(a.expression);
    return a.end <= set.call.getStart() && ts.isCallExpression(call) && /^(?:acquire|tryAcquire|lock)$/.test(methodOf(call)?.name ?? '') &&
      enclosingFunction(a) === fn && !!call.arguments[0] && !call.arguments[0].getText().includes(key);
  });
}

/**
 * `if (!(await get(k))) { await enqueue(); await set(k, 'locked', 'EX', 10); }`: the SET ends its block
 * after awaited work that follows the check. It records the work done (a cooldown), it guards nothing.
 */
function stampsAfterWork(check: RedisCommand, set: RedisCommand): boolean {
  const statement = valueCarrier(set.call).parent;
  if (!ts.isExpressionStatement(statement) || !ts.isBlock(statement.parent) || inLockAcquireFunction(set)) return false;
  // The block is the branch the check opens (`if (!held) { ... }`), not an acquire helper's tail.
  const branch = statement.parent.parent;
  if (!ts.isIfStatement(branch) || (!contains(branch.expression, check.call) && !mentions(branch.expression, namesOf(check)))) return false;
  const siblings = statement.parent.statements;
  const at = siblings.indexOf(statement);
  if (at !== siblings.length - 1) return false;
  return siblings.slice(0, at).some((s) => /\bawait\b/.test(s.getText()));
}

/**
 * A value known before the check: a literal, `Date.now()`, or a name bound before it (the TTL or job
 * name a guard was given, `set(name, ttl)`). A cache fill writes a value it computed after the miss.
 */
function isMarker(node: Node, check: RedisCommand): boolean {
  const value = unwrap(node);
  if (literalString(value) !== undefined || ts.isNumericLiteral(value) || value.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (ts.isCallExpression(value)) return value.arguments.length === 0 && value.expression.getText() === 'Date.now';
  return ts.isIdentifier(value) && !namesOf(check).includes(value.text) && boundBefore(value, check.call.getStart());
}

/** Is the name declared (a variable, parameter or destructured element) before `pos`? */
function boundBefore(id: ts.Identifier, pos: number): boolean {
  const decl = declarationOf(id) ?? bindingElementOf(id);
  return !!decl && decl.name.end <= pos;
}

/** `{ NX: true, EX: 30 }` for the words `'NX', 'EX', 30`: node-redis' own spelling of the same SET. */
function optionsObject(command: RedisCommand): Fix | undefined {
  const words = command.args.slice(1);
  if (!command.set || command.set.dynamic || words.length === 0) return undefined;
  const parts: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = literalString(words[i])?.toUpperCase();
    if (word === 'NX' || word === 'XX' || word === 'KEEPTTL' || word === 'GET') parts.push(`${word}: true`);
    else if (word && /^(?:EX|PX|EXAT|PXAT)$/.test(word) && words[i + 1]) parts.push(`${word}: ${words[++i].getText()}`);
    else return undefined;
  }
  const first = words[0];
  const last = words[words.length - 1];
  return { title: `Pass the options as node-redis reads them: { ${parts.join(', ')} }`, isPreferred: true, edits: [{ start: first.getStart(), end: last.end, newText: `{ ${parts.join(', ')} }` }] };
}

export const exclusiveAcquire: Rule = {
  id: 'exclusive-acquire',
  defaultSeverity: 'error',
  summary: 'An acquire that excludes no one: SET without NX used as the lock, NX in the value position, or GET/EXISTS then SET.',
  check({ model, report }) {
    for (const command of model.commands) {
      if (command.name === 'SET' && command.set?.dropped && command.set.nx) {
        const words = command.args.slice(1).map((a) => a.getText()).join(', ');
        report({
          span: spanOf(command.call),
          message: `node-redis 4 and later read SET's options from one object, set(key, value, { NX: true, EX: 30 }), and ignore further arguments: the ${words} here are never sent (the client looks for options.NX and options.EX on the string, finds none, and sends a plain SET; TypeScript would reject the call). So this SET always replies OK, overwrites whoever holds ${describeKey(model.keyOf(command.keys[0]))}${command.set.ttl ? ', and sets no TTL' : ''}: every caller believes it won${command.set.ttl ? ', and the key never expires' : ''}. Pass the options as an object.`,
          fix: () => optionsObject(command),
        });
        continue;
      }
      if (command.name !== 'SET' || !command.set || command.set.nx || command.set.ownOptions || command.batch || !command.keys[0]) continue;
      const key = model.keyOf(command.keys[0]);
      // `meta:${token}` for a token just made with randomUUID(): no other process can hold that key.
      if (keyOfFreshValue(command)) continue;
      // `const lock = await redlock.acquire([key], ttl); await redis.set(registryKey, ...)` in an acquire: the
      // lock is taken by a library's acquire before it; a SET of another key after it writes its details.
      if (acquiredBefore(command) && inLockAcquireFunction(command)) continue;
      if (!model.isLockKey(key) && !inLockAcquireFunction(command)) {
        const check = plainSet(command) ? markerClaim(model, command) : undefined;
        if (check) {
          report({
            span: spanOf(command.call),
            message: `${check.name} then ${spelledName(command)} of a marker on ${describeKey(key)} is a claim made in two round trips: two concurrent deliveries can both find the key missing, both SET it and both go on to do the work once each${command.set?.ttl ? '' : '. The SET sets no TTL either: if the process dies before the key is deleted, it stays and the work never runs again'}. Claim in one command, SET key value NX EX ttl, and go on only when it replies OK.`,
            related: [{ span: spanOf(check.call), message: `the separate ${check.name}` }],
            fix: () => addNx(command),
          });
        }
        continue;
      }
      const name = describeKey(key);
      const value = command.args[0];
      const shifted = value && OPTION_WORD.test(literalString(value) ?? '');
      if (shifted) {
        report({
          span: spanOf(value),
          message: `'${literalString(value)}' is passed as the value of ${name}, not as an option, so this SET stores the string "${literalString(value)}" and overwrites whoever holds the lock. Every caller "gets" the lock. Pass the token as the value and NX as an option: SET key token NX PX ttl.`,
        });
        continue;
      }
      if (!plainSet(command)) continue;
      // A renewal of the lock this file takes with NX: owner-checked-extend's to judge.
      if (model.extends.some((e) => e.command === command)) continue;
      // `SET k 'pending' NX`, then `SETEX k ttl <response>`: the state a record's claimer writes (markers.ts).
      if (model.acquiresOn(key).some((a) => a.marker && a.fn === enclosingFunction(command.call))) continue;
      if (replyTreatedAsLock(command)) {
        report({
          span: spanOf(command.call),
          message: `This SET of ${name} has no NX, so it always replies OK and overwrites the current holder: every caller believes it holds the lock at the same time. Acquire with SET key token NX PX ttl, which replies null while another process holds the key.`,
          fix: () => addNx(command),
        });
        continue;
      }
      // `if (cur && cur.owner !== me) throw; set(...)`: an owner check that lets the free key through too.
      const compare = findCompareBeforeWrite({ call: command.call, fn: enclosingFunction(command.call), key }, model.getsOn);
      if (compare?.whenFree && command.set.ttl) {
        report({
          span: spanOf(command.call),
          message: `This SET takes ${name} when a separate GET found it free (or held by this process): check-then-act in two round trips. Two processes can both see the key free and both SET it, and each believes it holds the lock. Take a free lock with SET key token NX PX ttl and test its reply; renew your own with an atomic compare-and-pexpire.`,
          related: [{ span: spanOf(compare.get), message: 'the separate GET' }],
        });
        continue;
      }
      // Written only while the value is this process's: a renewal, owner-checked-extend's to judge.
      if (compare) continue;
      const check = checkBefore(model, command);
      // A GET judged stale, then this SET: a takeover, atomic-takeover's finding.
      if (check && breaksStaleLock(model, command)) continue;
      // Writing back a shared record read before (a per-path map) loses what others added in between: reported.
      if (check && (stampsAfterWork(check, command) || refreshesHeld(check, command) || (writesBackReply(check, command) && holderRecordKey(command)))) continue;
      if (check) {
        report({
          span: spanOf(command.call),
          message: `${check.name} then ${spelledName(command)} on ${name} is check-then-act in two round trips: two workers can both see the key free and both SET it, and each believes it holds the lock. Let Redis decide in one command: SET key token NX PX ttl, and test its reply.`,
          related: [{ span: spanOf(check.call), message: `the separate ${check.name}` }],
        });
        continue;
      }
      const taken = unguardedTake(model, command, key);
      if (taken) {
        const release = taken.release;
        report({
          span: spanOf(command.call),
          message: `This SET of ${name} has no NX: it always succeeds and overwrites whoever holds the lock, so every caller goes on as if it held it (a check made before it, here or by the caller, is check-then-act)${release ? ', and the DEL after the work deletes the lock of whoever took it since' : ''}. Acquire with SET key token NX PX ttl and go on only when it replies OK.`,
          related: release ? [{ span: spanOf(release.call), message: 'the release of this lock' }] : [],
        });
      }
    }
  },
};
