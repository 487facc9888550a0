// GET, compare in the client, then DEL: an owner check, but not an atomic one. Found once here so
// owner-checked-release can say "two round trips" and unique-token knows the token is compared.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import type { KeyRef } from './keys';
import { storedName } from './libraries';
import { contains, descendantsOfKind, identifiersNamed, isFunctionOrArrow, methodOf, normalizeText, unwrap, type Node } from './nodes';

export interface GetCompare {
  get: Node;
  ifStatement: Node;
  /** The other side of the comparison: the token this process expects. */
  token?: Node;
  /** The reply is compared through a value parsed from it (`JSON.parse(cur).owner === me`): the key holds a record, not a token. */
  parsed?: boolean;
  /**
   * The write is reached when the key was free too (`if (cur && cur.owner !== me) throw; set(...)`), and
   * no other test of the reply's truthiness keeps that case away: a check-then-act acquire as well.
   */
  whenFree?: boolean;
}

/** Callback style, `client.get(key, (err, holder) => ...)`: the parameter the reply comes in. */
function callbackReply(get: ts.CallExpression): string | undefined {
  const callback = get.arguments.find(isFunctionOrArrow);
  const reply = callback?.parameters[1]?.name;
  return reply && ts.isIdentifier(reply) ? reply.text : undefined;
}

/** Variables of `fn` set from the reply variable (`const data = JSON.parse(current)`): the reply read through them. */
function parsedFrom(variable: string, fn: Node): string[] {
  return descendantsOfKind<ts.VariableDeclaration>(fn, ts.SyntaxKind.VariableDeclaration)
    .filter((d) => ts.isIdentifier(d.name) && d.name.text !== variable && !!d.initializer && identifiersNamed(d.initializer, variable).length > 0)
    .map((d) => (d.name as ts.Identifier).text);
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
  // The variables parsed from each GET's reply, read once per GET whatever the number of `if`s around the release.
  const parsedNames = new Map<string, string[]>();
  const parsedOf = (variable: string) => parsedNames.get(variable) ?? parsedNames.set(variable, parsedFrom(variable, release.fn)).get(variable)!;
  for (let ifStatement = release.call.parent; ifStatement; ifStatement = ifStatement.parent) {
    if (ifStatement === release.fn) break;
    if (!ts.isIfStatement(ifStatement)) continue;
    const condition = ifStatement.expression;
    for (const get of gets) {
      const variable = storedName(get.call) ?? callbackReply(get.call);
      const inCondition = condition.pos <= get.call.pos && get.call.end <= condition.end;
      const viaVariable = variable && identifiersNamed(condition, variable).length > 0;
      const parsed = !!variable && !inCondition && !viaVariable && parsedOf(variable).some((name) => identifiersNamed(condition, name).length > 0);
      if (parsed && comparesWithValue(condition)) return { get: get.call, ifStatement, parsed };
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


/**
 * `WATCH key`, GET, compare, then the write queued in MULTI/EXEC: an optimistic transaction. EXEC fails
 * when the key changed (or, from Redis 6.0.9, expired) after the WATCH, so the compare and the write act
 * as one step. `key` is the key of a write queued in a MULTI in `fn`; the WATCH must name it before the GET.
 */
export function watchedTransaction(getCompare: GetCompare, key: Node, fn: Node): boolean {
  const keyText = normalizeText(unwrap(key));
  // Before the GET, or earlier in the same chain (`pipeline.watch(key).get(key)`).
  const before = (call: Node) => call.end <= getCompare.get.pos || (call !== getCompare.get && contains(getCompare.get, call));
  return descendantsOfKind<ts.CallExpression>(fn, ts.SyntaxKind.CallExpression).some((call) =>
    before(call) && /^watch$/i.test(methodOf(call)?.name ?? '') && call.arguments.some((a) => normalizeText(unwrap(a)) === keyText));
}

/** A value the reply of a GET is compared with to learn "is it mine?": not null, '', 0, 'OK' or a boolean. */
const EMPTYISH = /^(?:null|undefined|0|1|false|true|''|""|'OK'|"OK")$/;

/** Does the condition compare something with a real value (`holder === me`, `cur?.owner !== me`)? */
function comparesWithValue(condition: Node): Node | undefined {
  let other: Node | undefined;
  const visit = (n: Node): void => {
    if (other) return;
    if (ts.isBinaryExpression(n) && /^[!=]==?$/.test(n.operatorToken.getText())) {
      const sides = [unwrap(n.left), unwrap(n.right)];
      if (!sides.some((x) => EMPTYISH.test(x.getText()))) other = n;
    }
    ts.forEachChild(n, visit);
  };
  visit(condition);
  return other;
}

/**
 * The variable a GET's reply is kept in, directly or parsed (`const cur = JSON.parse((await get(k)) ?? 'null')`),
 * or, for a GET queued in a pipeline, the parameter of the `.then` its `exec()` hands the replies to.
 */
function replyVariable(get: Node, fn: Node): string | undefined {
  for (let n: Node | undefined = get.parent; n && n !== fn; n = n.parent) {
    if (ts.isVariableDeclaration(n)) return ts.isIdentifier(n.name) ? n.name.text : undefined;
    if (ts.isCallExpression(n) && methodOf(n)?.name === 'then' && isFunctionOrArrow(n.arguments[0])) {
      const replies = n.arguments[0].parameters[0]?.name;
      return replies && ts.isIdentifier(replies) ? replies.text : undefined;
    }
    if (ts.isStatement(n) || ts.isFunctionLike(n)) return undefined;
  }
  return undefined;
}

/**
 * GET, compare with a value in the client, then a write on the same key: the `if` holding the write
 * (`if ((await get(k)) === me) set(...)`), or an `if` before it that leaves when the value differs
 * (`if (cur?.owner !== me) throw ...`). The owner check and the write are two round trips.
 */
export function findCompareBeforeWrite(
  write: { call: Node; fn: Node; key?: KeyRef },
  getsOnKey: (key: KeyRef) => readonly RedisCommand[],
): GetCompare | undefined {
  const key = write.key;
  if (!key) return undefined;
  const gets = getsOnKey(key).filter((c) => c.call.end <= write.call.getStart() && write.fn.pos <= c.call.pos && c.call.end <= write.fn.end);
  for (const get of gets) {
    const variable = replyVariable(get.call, write.fn);
    const parsedNames = variable ? parsedFrom(variable, write.fn) : [];
    const direct = (condition: Node) => contains(condition, get.call) || (!!variable && identifiersNamed(condition, variable).length > 0);
    const viaParsed = (condition: Node) => parsedNames.some((name) => identifiersNamed(condition, name).length > 0);
    const refers = (condition: Node) => direct(condition) || viaParsed(condition);
    const ifs: ts.IfStatement[] = [];
    const visit = (n: Node): void => {
      if (ts.isIfStatement(n) && n.getStart() < write.call.getStart() && n.end > get.call.getStart() && refers(n.expression)) ifs.push(n);
      // Into the callback the write is in, when `write.fn` is the function around it (a watched transaction).
      if (n === write.fn || !ts.isFunctionLike(n) || contains(n, write.call)) ts.forEachChild(n, visit);
    };
    visit(write.fn);
    for (const s of ifs) {
      const compare = comparesWithValue(s.expression);
      if (!compare || !ts.isBinaryExpression(compare)) continue;
      // Written when the value is this process's: in the `then` of `===`, the `else` of `!==`, or after an `if (!==)` that leaves.
      const equal = compare.operatorToken.getText().startsWith('=');
      const holds = equal ? contains(s.thenStatement, write.call) : !!s.elseStatement && contains(s.elseStatement, write.call);
      const leaves = !equal && !contains(s, write.call) && /\b(?:return|throw)\b/.test(s.thenStatement.getText());
      if (!holds && !leaves) continue;
      const reply = (n: Node) => { const u = unwrap(n); return u === get.call || (ts.isIdentifier(u) && u.text === variable); };
      const truthiness = (n: Node) => { const u = unwrap(n); return reply(u) || (ts.isPrefixUnaryExpression(u) && u.operator === ts.SyntaxKind.ExclamationToken && reply(u.operand)); };
      const whenFree = leaves && reply(leftmostOfAnd(s.expression)) && !ifs.some((other) => other !== s && truthiness(other.expression));
      if (!direct(s.expression)) return { get: get.call, ifStatement: s, parsed: true, whenFree };
      return { get: get.call, ifStatement: s, token: refers(compare.left) ? compare.right : compare.left, whenFree };
    }
  }
  return undefined;
}

/** `a` of `a && b && c`. */
function leftmostOfAnd(condition: Node): Node {
  let n = unwrap(condition);
  while (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) n = unwrap(n.left);
  return n;
}

/** A literal, an enum-like member (`Status.SENT`) or an UPPER_CASE const: a value every process writes alike. */
function isStateConstant(n: Node): boolean {
  const u = unwrap(n);
  if (ts.isStringLiteralLike(u) || ts.isNumericLiteral(u)) return true;
  if (ts.isPropertyAccessExpression(u)) return ts.isIdentifier(u.expression) && /^[A-Z]/.test(u.expression.text);
  return ts.isIdentifier(u) && /^[A-Z][A-Z0-9_]*$/.test(u.text);
}

/**
 * `if (state === Sent.ONE) set(key, Sent.MANY, 'EX', ttl)`: the reply is compared with one constant and
 * the SET writes another, so it moves a shared record to its next state (a first-then-second notice). A
 * renewal writes back the token it compared.
 */
export function movesToAnotherState(write: { call: ts.CallExpression }, compare: GetCompare): boolean {
  const written = write.call.arguments[1];
  const condition = ts.isIfStatement(compare.ifStatement) ? unwrap(compare.ifStatement.expression) : undefined;
  if (!written || !isStateConstant(written) || !condition || !ts.isBinaryExpression(condition)) return false;
  const constants = [condition.left, condition.right].filter(isStateConstant);
  return constants.length === 1 && normalizeText(unwrap(constants[0])) !== normalizeText(unwrap(written));
}
