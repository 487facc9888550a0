// SETNX (or SET NX without a TTL) followed by a separate EXPIRE: two commands, so a crash between
// them leaves a lock with no TTL that no one will ever free.
import { ts } from './engine/typescript';
import type { Acquire, LockModel } from './engine/model';
import { ancestorWhere, spanOf, unwrap, type Node } from './engine/nodes';
import { isRedisAcquire, receiverText } from './engine/queries';
import type { TtlUnit } from './engine/set-options';
import { atomicSet, removeStatement } from './fixes/text';
import { resultUsedOnlyAsTruthy } from './fixes/truthiness';
import type { Rule } from './rule';
import type { Fix } from './types';
import { describeKey } from './engine/keys';

const UNITS: Record<string, TtlUnit> = { EXPIRE: 'EX', PEXPIRE: 'PX', EXPIREAT: 'EXAT', PEXPIREAT: 'PXAT' };

/** The statement to delete with the EXPIRE: the statement itself, or an `if (ok)` that only wraps it. */
function expireStatementToRemove(call: Node): Node | undefined {
  const statement = ancestorWhere<ts.ExpressionStatement>(call, ts.isExpressionStatement);
  if (!statement) return undefined;
  const expr = unwrap(statement.expression);
  if ((ts.isAwaitExpression(expr) ? unwrap(expr.expression) : expr) !== call) return undefined;
  const parent = statement.parent;
  const ifStatement = ts.isBlock(parent) && parent.statements.length === 1 ? parent.parent : parent;
  if (ts.isIfStatement(ifStatement) && !ifStatement.elseStatement) return ifStatement;
  return ts.isBlock(parent) || ts.isSourceFile(parent) ? statement : undefined;
}

function fix(model: LockModel, acquire: Acquire): Fix | undefined {
  const expire = acquire.laterExpire;
  const receiver = receiverText(acquire.call);
  if (!expire || !receiver || expire.batch || acquire.command?.batch || !acquire.token || !acquire.key) return undefined;
  if (acquire.kind === 'setnx' && !resultUsedOnlyAsTruthy(acquire)) return undefined;
  const ttl = expire.args[0];
  const unit = UNITS[expire.name];
  const remove = expireStatementToRemove(expire.call);
  if (!ttl || !unit || !remove || remove.getStart() < acquire.call.end) return undefined;
  const text = atomicSet(model.style, receiver, acquire.key.node.getText(), acquire.token.getText(), unit, ttl.getText());
  return {
    title: `Acquire with one SET ... NX ${unit} (atomic TTL)`,
    isPreferred: true,
    edits: [{ ...spanOf(acquire.call), newText: text }, removeStatement(remove)],
  };
}

export const atomicAcquire: Rule = {
  id: 'atomic-acquire',
  defaultSeverity: 'error',
  summary: 'SETNX (or SET NX without TTL) and a separate EXPIRE: a crash in between leaves a lock that never expires.',
  check({ model, report }) {
    for (const acquire of model.acquires) {
      const expire = acquire.laterExpire;
      if (!isRedisAcquire(acquire) || !expire || !acquire.key) continue;
      const key = describeKey(acquire.key);
      const inBatch = !!expire.batch && !!acquire.command?.batch;
      const why = inBatch
        ? `Inside ${expire.batch?.kind === 'multi' ? 'MULTI' : 'a pipeline'} the ${expire.name} still runs when the acquire failed, re-arming the TTL of another holder's lock${expire.batch?.kind === 'pipeline' ? ', and a pipeline is not even a transaction' : ''}.`
        : `They are two commands: if the process dies between them, ${key} stays locked forever with no TTL.`;
      report({
        span: spanOf(acquire.call),
        message: `Lock ${key} is acquired without a TTL and given one by a separate ${expire.name}. ${why} Acquire with one SET key token NX PX ttl.`,
        related: [{ span: spanOf(expire.call), message: `the separate ${expire.name}` }],
        fix: () => fix(model, acquire),
      });
    }
  },
};
