// A Redis client that is missing only when its setting is: `const redis = env.REDIS_URL ? new
// Redis(env.REDIS_URL) : null`, a getter of the same file whose only empty answer sits under a test of
// its setting (`if (!env.redisUrl) return null`), or one answering `client || null` of a module variable
// set only after an init left on that test. A "no client" branch on such a client is the
// deployment mode the code itself states where the setting is read, not an outage read as success.
import { ts } from './typescript';
import { ancestorWhere, declarationOf, descendantsOfKind, isFunctionLike, unwrap, type Node } from './nodes';
import { localCallee } from './local-callee';

/** A test that reads a setting: an environment variable, a config object, a URL or host. */
const SETTING = /\bprocess\.env\b|\benv\b|\bconfig|\bsettings?\b|ur[il]\b|url|host/i;
/** A test that also reads the connection's state: an outage, not a setting (`!url || !connected`). */
const LIVE = /connect|ready|status|open|alive|avail|health|online|reachab|ping|\bup\b/i;
const readsSetting = (test: Node) => SETTING.test(test.getText()) && !LIVE.test(test.getText());

const isEmpty = (e: Node | undefined): boolean => !e || e.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(unwrap(e)) && (unwrap(e) as ts.Identifier).text === 'undefined');

/** `setting ? new Redis(setting) : null` (either way round). */
function conditionalOnSetting(e: Node): boolean {
  const v = unwrap(e);
  if (!ts.isConditionalExpression(v) || isEmpty(v.whenTrue) === isEmpty(v.whenFalse)) return false;
  return readsSetting(v.condition);
}

/**
 * A getter whose every empty return is under an `if` testing a setting (at least one), that answers
 * `setting ? client : null`, or that hands back a module variable set only once its setting was read
 * (`return redis || null`, see setOnlyWhenConfigured).
 */
export function emptyOnlyUnconfigured(fn: ts.FunctionLikeDeclaration): boolean {
  if (fn.body && !ts.isBlock(fn.body)) return conditionalOnSetting(fn.body) || setOnlyWhenConfigured(fn.body);
  if (!fn.body) return false;
  const returns = descendantsOfKind<ts.ReturnStatement>(fn.body, ts.SyntaxKind.ReturnStatement).filter((r) => ancestorWhere(r, isFunctionLike) === fn);
  if (returns.length === 1 && returns[0].expression && setOnlyWhenConfigured(returns[0].expression)) return true;
  const empty = returns.filter((r) => isEmpty(r.expression));
  return empty.length > 0 && empty.every((r) => {
    const test = ancestorWhere<ts.IfStatement>(r, (a) => a === fn || ts.isIfStatement(a));
    return !!test && ts.isIfStatement(test) && readsSetting(test.expression);
  });
}

/**
 * `redis || null` (or `?? null`, or the bare name) of a module `let redis` that every assignment sets
 * in a function after it left on a test of the setting (`if (!url) { log('Redis is disabled'); return }`):
 * empty only when not configured.
 */
function setOnlyWhenConfigured(value: Node): boolean {
  let v = unwrap(value);
  if (ts.isBinaryExpression(v) && (v.operatorToken.kind === ts.SyntaxKind.BarBarToken || v.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) && isEmpty(v.right)) v = unwrap(v.left);
  if (!ts.isIdentifier(v)) return false;
  const decl = declarationOf(v);
  if (!decl || !ts.isVariableDeclaration(decl) || !ts.isSourceFile(decl.parent.parent.parent) || (decl.initializer && !isEmpty(decl.initializer))) return false;
  const name = v.text;
  const writes = descendantsOfKind<ts.BinaryExpression>(decl.getSourceFile(), ts.SyntaxKind.BinaryExpression)
    .filter((b) => b.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(unwrap(b.left)) && (unwrap(b.left) as ts.Identifier).text === name);
  return writes.length > 0 && writes.every((w) => !isEmpty(w.right) && afterSettingGuard(w));
}

/** Does a top-level statement before `node`'s in its function leave on a test of a setting? */
function afterSettingGuard(node: Node): boolean {
  const fn = ancestorWhere(node, isFunctionLike);
  const body = fn && isFunctionLike(fn) ? fn.body : undefined;
  if (!body || !ts.isBlock(body)) return false;
  const leaves = (s: ts.Statement) => ts.isReturnStatement(s) || ts.isThrowStatement(s) || (ts.isBlock(s) && s.statements.some(leaves));
  return body.statements.some((s) => s.end <= node.getStart() && ts.isIfStatement(s) && readsSetting(s.expression) && leaves(s.thenStatement));
}

/** The value a variable holding the client was set from: its initializer, awaited or not. */
function initializerOf(receiver: Node): Node | undefined {
  const r = unwrap(receiver);
  if (!ts.isIdentifier(r)) return undefined;
  const decl = declarationOf(r);
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return undefined;
  const init = unwrap(decl.initializer);
  return ts.isAwaitExpression(init) ? unwrap(init.expression) : init;
}

/**
 * Is the client the acquire runs on (`receiver`) empty only when it is not configured? A getter of
 * another project file answers through its summary (`project`, the model's call to it).
 */
export function emptyOnlyWhenUnconfigured(receiver: Node, project?: (call: ts.CallExpression) => boolean): boolean {
  const init = initializerOf(receiver);
  if (!init) return false;
  if (conditionalOnSetting(init)) return true;
  if (!ts.isCallExpression(init)) return false;
  const getter = localCallee(init);
  return getter ? emptyOnlyUnconfigured(getter) : !!project?.(init);
}

const MAKES_CLIENT = /\bnew\s+(?:Redis|IORedis|Cluster)\s*\(|\bcreateClient\s*\(/;
const ANSWERS_EMPTY = /\breturn\s+(?:null|undefined)\b|\?[^:;?]+:\s*null\b|(?:\|\||\?\?)\s*null\b/;

/** Text that may hold a client getter answering null when its setting is missing: a module to summarise for its callers. */
export function mayMakeUnconfiguredClient(text: string): boolean {
  return MAKES_CLIENT.test(text) && ANSWERS_EMPTY.test(text) && SETTING.test(text);
}
