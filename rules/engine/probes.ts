// A command probe is not a lock. A connection self-check writes `SETNX 'test:nx' v`, logs whether the
// reply was 1 and deletes the key: the key is a fixed name that says nothing of a lock (or one taken
// twice, to see NX refuse the second), and the answer only picks what is logged. Nothing runs under it, so it has no TTL, token or release to get wrong.
import { ts } from './typescript';
import type { Acquire } from './model';
import { bodyStatements, isLoggingCall, onlyObserves } from './failure-paths';
import { looksLikeLockKey } from './keys';
import { ancestorWhere, contains, descendantsOfKind, identifiersNamed, literalString, unwrap, type Node } from './nodes';

const PROBE_KINDS = new Set(['set-nx', 'setnx']);

/** The `if` whose condition reads `node`, if `node` is in one. */
function testOf(node: Node): ts.IfStatement | undefined {
  const test = ancestorWhere<ts.IfStatement>(node, ts.isIfStatement);
  return test && contains(test.expression, node) ? test : undefined;
}

/** Is `node` an argument of a logging call (`console.warn('unexpected', reply)`)? */
function logged(node: Node): boolean {
  const call = ancestorWhere<ts.CallExpression>(node, ts.isCallExpression);
  return !!call && call.arguments.some((a) => contains(a, node)) && isLoggingCall(call);
}

/**
 * `const a = await redis.set(k, '1', 'NX'); const b = await redis.set(k, '1', 'NX')`: the function takes
 * the same key with NX twice, to see the second refused. That tests NX itself, whatever the key is named.
 */
function takenTwice(acquire: Acquire): boolean {
  const key = acquire.key!.node.getText();
  const takes = descendantsOfKind<ts.CallExpression>(acquire.fn, ts.SyntaxKind.CallExpression).filter((c) => c.arguments[0]?.getText() === key && /['"`]nx['"`]|\bNX\s*:|setnx/i.test(c.getText()));
  return takes.length >= 2;
}

/** `process.exit(1)`, `process.exitCode = 1`: a self-check script reporting its verdict. */
const reportsVerdict = (s: Node) => ts.isExpressionStatement(s) && /^process\s*\.\s*exit(?:Code\s*=|\s*\()/.test(s.expression.getText());

export function isProbe(acquire: Acquire, sourceFile: ts.SourceFile): boolean {
  if (!PROBE_KINDS.has(acquire.kind) || !acquire.key) return false;
  // A fixed key: written as a string, or a `const` holding one.
  const fixed = literalString(unwrap(acquire.key.node)) !== undefined || (ts.isIdentifier(unwrap(acquire.key.node)) && !/[*?[]/.test(acquire.key.glob));
  if (!fixed || (looksLikeLockKey(acquire.key) && !takenTwice(acquire))) return false;
  const use = acquire.result;
  const reads = use.kind === 'tested' ? [acquire.call] : use.kind === 'assigned' ? identifiersNamed(acquire.fn, use.name).filter((id) => id.pos > acquire.call.end) : [];
  const tests = new Set<ts.IfStatement>();
  for (const read of reads) {
    const test = testOf(read);
    if (test) tests.add(test);
    else if (!logged(read)) return false;
  }
  // A branch that leaves (`return`) decides whether the rest runs: that is a lock's guard, not a log line.
  const observes = (branch: ts.Statement | undefined) => {
    const statements = (branch ? bodyStatements(branch) : []).filter((s) => !reportsVerdict(s));
    return !statements.some((s) => ts.isReturnStatement(s)) && onlyObserves(statements, sourceFile);
  };
  return tests.size > 0 && [...tests].every((t) => observes(t.thenStatement) && observes(t.elseStatement));
}
