// GET, compare in the client, then DEL: an owner check, but not an atomic one. Found once here so
// owner-checked-release can say "two round trips" and unique-token knows the token is compared.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import type { KeyRef } from './keys';
import { storedName } from './libraries';
import { identifiersNamed, unwrap, type Node } from './nodes';

export interface GetCompare {
  get: Node;
  ifStatement: Node;
  /** The other side of the comparison: the token this process expects. */
  token?: Node;
}

/** `if ((await redis.get(key)) === token) { await redis.del(key) }`, directly or via a variable; `getsOnKey` gives the GETs of a key. */
export function findGetCompare(
  release: { call: Node; fn: Node; key?: KeyRef },
  getsOnKey: (key: KeyRef) => readonly RedisCommand[],
): GetCompare | undefined {
  const key = release.key;
  if (!key) return undefined;
  const gets = getsOnKey(key).filter((c) => c.call.pos < release.call.pos).sort((a, b) => a.call.pos - b.call.pos);
  if (gets.length === 0) return undefined;
  for (let ifStatement = release.call.parent; ifStatement; ifStatement = ifStatement.parent) {
    if (ifStatement === release.fn) break;
    if (!ts.isIfStatement(ifStatement)) continue;
    const condition = ifStatement.expression;
    for (const get of gets) {
      const variable = storedName(get.call);
      const inCondition = condition.pos <= get.call.pos && get.call.end <= condition.end;
      const viaVariable = variable && identifiersNamed(condition, variable).length > 0;
      if (!inCondition && !viaVariable) continue;
      const compare = unwrap(condition);
      let token: Node | undefined;
      const equality = ts.isBinaryExpression(compare) &&
        (compare.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken || compare.operatorToken.kind === ts.SyntaxKind.EqualsEqualsToken);
      if (equality) {
        const leftHasGet = compare.left.getText().includes(variable && viaVariable ? variable : get.call.getText());
        token = leftHasGet ? compare.right : compare.left;
      }
      return { get: get.call, ifStatement, token };
    }
  }
  return undefined;
}

