// A lock TTL written in milliseconds but given where Redis reads seconds (SET ... EX, EXPIRE): the
// lock lives 1000 times longer than meant, so a crashed holder blocks everyone for hours, not seconds.
// Only evidence the code itself gives counts: a name that says ms, a factor of 1000, or the same value
// given to PX/PEXPIRE elsewhere in the file. A bare number (`EX 30000`) is not judged.
import { ts } from './typescript';
import type { RedisCommand } from './commands';
import { declarationOf, descendantsWhere, literalNumber, unwrap, type Node } from './nodes';

const MS_WORDS = new Set(['ms', 'msec', 'msecs', 'millis', 'millisecond', 'milliseconds']);
const MAX_DEPTH = 4;

/** `lockTtlMs`, `LOCK_TTL_MS`, `ttlMillis`: one of the name's words is a millisecond unit. */
function nameSaysMs(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z])([A-Z][a-z])/g, '$1 $2').split(/[\s_$]+/);
  return words.some((w) => MS_WORDS.has(w.toLowerCase()));
}

function isThousand(node: Node): boolean {
  return literalNumber(unwrap(node)) === 1000;
}

function isBinary(node: Node, op: ts.SyntaxKind): node is ts.BinaryExpression {
  return ts.isBinaryExpression(node) && node.operatorToken.kind === op;
}

/** `ttl / 1000` or `ttl * 0.001`: converted to seconds. */
function toSeconds(node: Node): boolean {
  if (isBinary(node, ts.SyntaxKind.SlashToken)) return isThousand(node.right);
  return isBinary(node, ts.SyntaxKind.AsteriskToken) && [node.left, node.right].some((side) => literalNumber(unwrap(side)) === 0.001);
}

/** A conversion to seconds anywhere in the expression: whatever its name says, the value is in seconds. */
function dividesByThousand(node: Node): boolean {
  const n = unwrap(node);
  return toSeconds(n) || descendantsWhere(n, toSeconds).length > 0;
}

/** A product with a factor of 1000 (`30 * 1000`, `5 * 60 * 1000`, `ttl * 1000`): the idiom for milliseconds. */
function timesThousand(node: Node): boolean {
  const n = unwrap(node);
  if (!isBinary(n, ts.SyntaxKind.AsteriskToken)) return false;
  return [n.left, n.right].some((side) => isThousand(side) || timesThousand(side));
}

/** The number an expression is, when it is written as literals (`30_000`, `5 * 60 * 1000`). */
function numberOf(node: Node): number | undefined {
  const n = unwrap(node);
  if (!isBinary(n, ts.SyntaxKind.AsteriskToken)) return literalNumber(n);
  const [left, right] = [numberOf(n.left), numberOf(n.right)];
  return left === undefined || right === undefined ? undefined : left * right;
}

/** The value a name is given where it is declared: a const's initializer, a parameter's default. */
function definition(node: Node): ts.Expression | undefined {
  if (!ts.isIdentifier(node)) return undefined;
  return declarationOf(node)?.initializer;
}

/** Why `value` is in milliseconds, in words for the message; undefined when nothing says so. */
function millisecondsWhy(value: Node, depth = 0): string | undefined {
  const n = unwrap(value);
  if (depth > MAX_DEPTH || dividesByThousand(n)) return undefined;
  if (timesThousand(n)) return `${n.getText()} is a product with 1000, the idiom for milliseconds`;
  // `Number(process.env.LOCK_TTL_MS)`, `String(ttlMs)`, `opts.ttlMs ?? 30_000`: the value is what the inner name says.
  if (ts.isCallExpression(n) && /^(?:Number|String|parseInt|parseFloat)$/.test(n.expression.getText()) && n.arguments[0]) return millisecondsWhy(n.arguments[0], depth + 1);
  if (isBinary(n, ts.SyntaxKind.QuestionQuestionToken) || isBinary(n, ts.SyntaxKind.BarBarToken)) return millisecondsWhy(n.left, depth + 1);
  const name = ts.isIdentifier(n) ? n.text : ts.isPropertyAccessExpression(n) ? n.name.text : undefined;
  if (!name) return undefined;
  const init = definition(n);
  if (init && dividesByThousand(init)) return undefined;
  // A name that says ms on a number under 1000 (`LOCK_TTL_MS = 30`) is a misnamed count of seconds.
  const known = init ? numberOf(init) : undefined;
  if (nameSaysMs(name) && (known === undefined || known >= 1000)) return `its name, ${name}, says milliseconds`;
  const inner = init ? millisecondsWhy(init, depth + 1) : undefined;
  return inner ? `${name} = ${init?.getText()}: ${inner}` : undefined;
}

/** The value given in milliseconds by a SET ... PX or PEXPIRE of the file. */
function millisecondValues(commands: readonly RedisCommand[]): Node[] {
  return commands.flatMap((c) => {
    if (c.name === 'PEXPIRE' && c.args[0]) return [c.args[0]];
    return c.name === 'SET' && c.set?.ttl?.unit === 'PX' && c.set.ttl.value ? [c.set.ttl.value] : [];
  });
}

/** The same binding: one declaration for names, the same text for property reads (`this.ttl`, `config.lockTtl`). */
function sameValue(a: Node, b: Node): boolean {
  const [x, y] = [unwrap(a), unwrap(b)];
  if (ts.isIdentifier(x) && ts.isIdentifier(y)) {
    const decl = declarationOf(x);
    return x.text === y.text && !!decl && decl === declarationOf(y);
  }
  return ts.isPropertyAccessExpression(x) && ts.isPropertyAccessExpression(y) && x.getText() === y.getText();
}

/** Why a value given to EX or EXPIRE is in milliseconds; undefined when the code does not say so. */
export function secondsGivenMilliseconds(value: Node, commands: readonly RedisCommand[]): string | undefined {
  const why = millisecondsWhy(value);
  if (why) return why;
  const n = unwrap(value);
  if (!ts.isIdentifier(n) && !ts.isPropertyAccessExpression(n)) return undefined;
  const asMs = millisecondValues(commands).find((v) => v !== value && sameValue(v, n));
  if (!asMs) return undefined;
  const line = asMs.getSourceFile().getLineAndCharacterOfPosition(asMs.getStart()).line + 1;
  return `the same ${n.getText()} is given in milliseconds (PX) on line ${line}`;
}

// A script's seconds: `redis.call('expire', KEYS[1], ARGV[2])`, `redis.call('set', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2])`.
const LUA_SECONDS = /\bexpire['"]\s*,\s*KEYS\[\d+\]\s*,\s*(?:tonumber\(\s*)?ARGV\[(\d+)\]|['"]EX['"]\s*,\s*(?:tonumber\(\s*)?ARGV\[(\d+)\]/gi;

/** The TTLs a command gives in seconds (SET ... EX ttl, EXPIRE key ttl, the ARGV a script hands to EXPIRE or EX). */
export function secondsTtls(command: RedisCommand | undefined): Node[] {
  if (!command) return [];
  if (command.name === 'EXPIRE') return command.args[0] ? [command.args[0]] : [];
  if (command.name === 'SET') return command.set?.ttl?.unit === 'EX' && command.set.ttl.value ? [command.set.ttl.value] : [];
  const script = command.script;
  if (!script?.lua) return [];
  return [...script.lua.matchAll(LUA_SECONDS)].flatMap((m) => {
    const value = script.args[Number(m[1] ?? m[2]) - 1];
    return value ? [value] : [];
  });
}
