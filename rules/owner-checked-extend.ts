// EXPIRE/PEXPIRE (or SET XX PX) renewing a lock without an owner check extends whoever holds it now:
// a watchdog that lost its lock keeps another holder's lock alive, or overwrites it.
import { ts } from './engine/typescript';
import type { Extend, LockModel } from './engine/model';
import { spanOf, unwrap, valueCarrier } from './engine/nodes';
import { receiverText, visibleToken } from './engine/queries';
import type { ServerKind } from './config';
import { extendFixTitle } from './fixes/server-commands';
import { guardedExtend } from './fixes/text';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';

function ttlMsText(extend: Extend): string | undefined {
  const command = extend.command;
  if (!command) return undefined;
  if (command.name === 'PEXPIRE') return command.args[0]?.getText();
  if (command.name === 'EXPIRE') return command.args[0] ? `${command.args[0].getText()} * 1000` : undefined;
  const ttl = command.set?.ttl;
  if (command.name === 'SET' && ttl?.value) return ttl.unit === 'PX' ? ttl.value.getText() : ttl.unit === 'EX' ? `${ttl.value.getText()} * 1000` : undefined;
  return undefined;
}

function fix(model: LockModel, extend: Extend, server: ServerKind): Fix | undefined {
  const receiver = receiverText(extend.call);
  const command = extend.command;
  const keyNode = command?.keys[0];
  const ttl = ttlMsText(extend);
  if (!receiver || !command || !keyNode || command.batch || !ttl || extend.kind === 'script') return undefined;
  if (!ts.isExpressionStatement(valueCarrier(extend.call).parent)) return undefined;
  const token = command.name === 'SET' ? command.args[0] : visibleToken(model, extend.key, extend.call);
  if (!token) return undefined;
  return {
    title: extendFixTitle(server),
    isPreferred: true,
    edits: [{ ...spanOf(extend.call), newText: guardedExtend(model.style, receiver, keyNode.getText(), unwrap(token).getText(), ttl, server) }],
  };
}

export const ownerCheckedExtend: Rule = {
  id: 'owner-checked-extend',
  defaultSeverity: 'error',
  summary: 'EXPIRE/PEXPIRE (or SET XX PX) renewal of a lock without an owner check extends whoever holds it now.',
  check({ model, report, server }) {
    for (const extend of model.extends) {
      if (extend.ownerChecked) continue;
      const key = describeKey(extend.key);
      const how = extend.kind === 'set-xx'
        ? `SET XX with a TTL on ${key} overwrites the value and TTL of whoever holds the lock now`
        : extend.kind === 'script'
          ? `This Lua script extends ${key} without comparing the token`
          : `${extend.command?.name ?? 'EXPIRE'} on ${key} extends whoever holds the lock now`;
      report({
        span: spanOf(extend.call),
        message: `${how}. If this process's lock already expired and another process took it, this renewal keeps their lock alive (or takes it over) while this process believes it still owns it. Extend only if the value is still this process's token, atomically (Lua compare-and-pexpire, or SET key token IFEQ token PX ttl on Redis 8.4+).`,
        fix: () => fix(model, extend, server),
      });
    }
  },
};
