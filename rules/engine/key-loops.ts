// A loop over keys takes a different lock in each iteration (`for (const sku of skus)`,
// `for (let i = 0; i < keys.length; i++)` with `keys[i]`): it is not a loop that retries one key.
import { ts } from './typescript';
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
  const key = acquire.key?.canonical;
  if (!key) return false;
  return loopVariables(loop).some((n) => new RegExp(`(?<![\\w$])${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(key));
}
