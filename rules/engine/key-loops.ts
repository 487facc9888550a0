// A loop over keys takes a different lock in each iteration (`for (const sku of skus)`,
// `for (let i = 0; i < keys.length; i++)` with `keys[i]`): it is not a loop that retries one key. Nor
// is a loop that draws a fresh random key each time round until one is free (a unique id or nonce
// reserved with SET NX), or one that steps through a pool (`wallets[i++ % n]`): no other holder is waited for.
import { ts } from './typescript';
import { ancestorWhere, descendantsOfKind, isFunctionLike, isLoop, unwrap } from './nodes';
import type { Acquire } from './model';

export type KeyLoop = ts.ForOfStatement | ts.ForInStatement | ts.ForStatement;

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isBindingElement(e) ? bindingNames(e.name) : []));
}

function loopVariables(loop: KeyLoop): string[] {
  const init = loop.initializer;
  if (!init) return [];
  return ts.isVariableDeclarationList(init) ? init.declarations.flatMap((d) => bindingNames(d.name)) : [];
}

/** Is the acquire's key built from a variable the loop declares, so that each iteration locks another key? */
export function keyVariesWithLoop(loop: KeyLoop, acquire: Acquire): boolean {
  const key = acquire.key;
  if (!key) return false;
  // The text as written too: a bare loop variable's canonical names its list (`[each of keys]`).
  return loopVariables(loop).some((n) => new RegExp(`(?<![\\w$])${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(`${key.canonical} ${key.text}`));
}

/** A random id: a key made from one is this call's alone (a clock is not: two processes read the same time). */
export const RANDOM_ID = /\b(?:randomBytes|randomUUID|randomInt|getRandomValues|uuid(?:v4)?|v4|nanoid|ulid|cuid2?|createId|Math\.random)\b/;
/** A value that differs on every evaluation: a random id, or the clock. */
const FRESH = new RegExp(`${RANDOM_ID.source}|\\b(?:Date\\.now|hrtime)\\b|\\bnew\\s+Date\\b`);

const nameIn = (name: string, text: string) => new RegExp(`(?<![\\w$#])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);

/** `pool[i++ % pool.length]`: an element whose index moves on at each evaluation (a scan over a pool). */
function stepsThroughList(init: ts.Expression): boolean {
  const n = unwrap(init);
  return ts.isElementAccessExpression(n) && /\+\+|--/.test(n.argumentExpression.getText());
}

/**
 * Is the acquire's key built from a value the loop draws afresh each time round (`const nonce =
 * randomBytes(32).toString('hex')` in its body)? Each attempt then asks for another key.
 */
export function keyFreshEachTime(loop: ts.Node, acquire: Acquire): boolean {
  const key = acquire.key;
  if (!key) return false;
  const body = isLoop(loop) || ts.isForOfStatement(loop) || ts.isForInStatement(loop) ? loop.statement : undefined;
  if (!body) return false;
  return descendantsOfKind<ts.VariableDeclaration>(body, ts.SyntaxKind.VariableDeclaration).some((decl) => {
    if (!ts.isIdentifier(decl.name) || !decl.initializer || decl.getStart() > acquire.call.getStart()) return false;
    if (ancestorWhere(decl, (a) => a === loop || isFunctionLike(a)) !== loop) return false;
    const name = decl.name.text;
    return (FRESH.test(decl.initializer.getText()) || stepsThroughList(decl.initializer)) && (nameIn(name, key.text) || nameIn(name, key.canonical));
  });
}
