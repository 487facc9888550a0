// EXPIRE/PEXPIRE (or SET XX PX) renewing a lock without an owner check extends whoever holds it now:
// a watchdog that lost its lock keeps another holder's lock alive, or overwrites it.
import { ts } from './engine/typescript';
import type { Extend, LockModel } from './engine/model';
import { isFunctionOrArrow, normalizeText, spanOf, unwrap, valueCarrier, type Node } from './engine/nodes';
import { clientReceiver, visibleToken } from './engine/queries';
import { guardedExtend } from './fixes/text';
import type { ServerKind } from './config';
import { extendFixTitle } from './fixes/server-commands';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';
import { inNotAcquiredBranch } from './engine/paths';
import { spelledName } from './engine/commands';

function ttlMsText(extend: Extend): string | undefined {
  const command = extend.command;
  if (!command) return undefined;
  if (command.name === 'PEXPIRE') return command.args[0]?.getText();
  if (command.name === 'EXPIRE') return command.args[0] ? `${command.args[0].getText()} * 1000` : undefined;
  const ttl = command.set?.ttl;
  if (command.name === 'SET' && ttl?.value) return ttl.unit === 'PX' ? ttl.value.getText() : ttl.unit === 'EX' ? `${ttl.value.getText()} * 1000` : undefined;
  return undefined;
}

/** The call's reply is not used: a statement, or a promise chain (`.catch(log)`) that is one. */
function replyUnused(call: Node): boolean {
  let carrier = valueCarrier(call);
  for (;;) {
    const access = carrier.parent;
    const chained = access && ts.isPropertyAccessExpression(access) && /^(catch|then|finally)$/.test(access.name.text) && access.parent && ts.isCallExpression(access.parent);
    if (!chained) break;
    const next = access.parent as ts.CallExpression;
    // `.then(reply => ...)` reads the reply; `.catch` and `.finally` do not.
    if (access.name.text === 'then' && next.arguments[0] && (!isFunctionOrArrow(next.arguments[0]) || next.arguments[0].parameters.length > 0)) return false;
    carrier = valueCarrier(next);
  }
  return ts.isExpressionStatement(carrier.parent);
}

function fix(model: LockModel, extend: Extend, server: ServerKind): Fix | string {
  const receiver = clientReceiver(extend);
  const command = extend.command;
  const keyNode = command?.keys[0];
  const ttl = ttlMsText(extend);
  if (extend.kind === 'script') return 'No automatic fix: rewrite the script to compare the token before it extends (see the rule documentation).';
  if (!receiver || !command || !keyNode) return 'No automatic fix: the renewal is not a plain client call.';
  if (command.batch) return 'No automatic fix: the renewal is part of a MULTI or pipeline; extend with a compare-and-pexpire on its own.';
  if (!ttl) return 'No automatic fix: the TTL is not in milliseconds or seconds Lockwise can read.';
  if (!replyUnused(extend.call)) return 'No automatic fix: the renewal\'s reply is used; a compare-and-pexpire replies 1 or 0, so rewrite it by hand.';
  if (extend.getCompare?.parsed) return 'No automatic fix: the key holds a record the GET parsed, not a token; compare its field inside one Lua script (cjson.decode) before the PEXPIRE.';
  // A value rewritten after the compare (a JSON record with a fresh timestamp) is no token to compare with.
  if (extend.kind === 'set' && extend.getCompare && normalizeText(unwrap(command.args[0])) !== normalizeText(unwrap(extend.getCompare.token ?? command.call))) {
    return 'No automatic fix: the SET writes a new value, not the token the GET compared; store a token that stays the same and compare-and-pexpire it.';
  }
  // A blind renewal can compare what it writes only if that is the token itself, not a record built anew.
  const written = command.args[0] && unwrap(command.args[0]);
  if (extend.kind === 'set' && !extend.getCompare && !(written && (ts.isIdentifier(written) || ts.isPropertyAccessExpression(written)))) {
    return 'No automatic fix: the SET writes a value built anew on each renewal, not a token to compare; store a token that stays the same and compare-and-pexpire it.';
  }
  const token = command.name === 'SET' ? command.args[0] : visibleToken(model, extend.key, extend.call);
  if (!token) return 'No automatic fix: the lock\'s token is not in a variable this code can see; keep the token the acquire stored and compare it.';
  const guarded = guardedExtend(model, receiver, keyNode.getText(), unwrap(token).getText(), ttl, server);
  return {
    title: extendFixTitle(server),
    isPreferred: true,
    edits: [...guarded.edits, { ...spanOf(extend.call), newText: guarded.call }],
  };
}

/**
 * `if (stored !== 'OK') { firstSeen = await get(key); await expire(key, ttl) }`: an EXPIRE where the NX SET
 * of the same key in the function found it taken slides the TTL of a shared record (or repairs a missing
 * one); this process holds nothing there to renew.
 */
function onBusyPath(model: LockModel, extend: Extend): boolean {
  if (extend.kind !== 'expire' || !extend.key) return false;
  return model.acquiresOn(extend.key).some((a) => a.fn === extend.fn && a.call.end <= extend.call.pos && inNotAcquiredBranch(a, extend.call));
}

export const ownerCheckedExtend: Rule = {
  id: 'owner-checked-extend',
  defaultSeverity: 'error',
  unattendedFixes: true,
  summary: 'EXPIRE/PEXPIRE (or SET XX PX) renewal of a lock without an owner check extends whoever holds it now.',
  check({ model, report, server }) {
    for (const extend of model.extends) {
      if (extend.ownerChecked || onBusyPath(model, extend)) continue;
      const key = describeKey(extend.key);
      if (extend.kind === 'set' && extend.getCompare) {
        const spelled = extend.command ? spelledName(extend.command) : 'SET';
        report({
          span: spanOf(extend.call),
          message: `This ${spelled} renews ${key} after a GET compared its value with this process's, in another round trip. If the lock expires between the GET and the ${spelled} and another process takes it, this ${spelled} overwrites their value and TTL: both believe they hold the lock. Renew only while the value is still this process's, atomically (Lua compare-and-pexpire, or SET key token IFEQ token PX ttl on Redis 8.4+).`,
          related: [{ span: spanOf(extend.getCompare.get), message: 'the separate GET' }],
          fix: () => fix(model, extend, server),
        });
        continue;
      }
      if (extend.getCompare) {
        const spelled = extend.command ? spelledName(extend.command) : 'EXPIRE';
        report({
          span: spanOf(extend.call),
          message: `GET, compare, then ${spelled} ${key} takes two round trips: if the lock expires between the GET and the ${spelled} and another process takes it, this ${spelled} extends their lock while this process believes it still owns it. Extend only while the value is still this process's, atomically (Lua compare-and-pexpire, or SET key token IFEQ token PX ttl on Redis 8.4+).`,
          related: [{ span: spanOf(extend.getCompare.get), message: 'the separate GET' }],
          fix: () => fix(model, extend, server),
        });
        continue;
      }
      const how = extend.kind === 'set-xx' || extend.kind === 'set'
        ? `${extend.kind === 'set' ? 'A SET without NX' : 'SET XX'} with a TTL on ${key} overwrites the value and TTL of whoever holds the lock now`
        : extend.kind === 'script'
          ? `This Lua script extends ${key} without comparing the token`
          : `${extend.command ? spelledName(extend.command) : 'EXPIRE'} on ${key} extends whoever holds the lock now`;
      report({
        span: spanOf(extend.call),
        message: `${how}. If this process's lock already expired and another process took it, this renewal keeps their lock alive (or takes it over) while this process believes it still owns it. Extend only if the value is still this process's token, atomically (Lua compare-and-pexpire, or SET key token IFEQ token PX ttl on Redis 8.4+).`,
        fix: () => fix(model, extend, server),
      });
    }
  },
};
