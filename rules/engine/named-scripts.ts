// Lua registered under a name: ioredis `defineCommand(name, { numberOfKeys, lua })` and
// `new Redis({ scripts: { name: { lua, numberOfKeys } } })`, node-redis `scripts: { name: defineScript({
// SCRIPT, NUMBER_OF_KEYS }) }`, and SHAs from `script('load', LUA)` / `scriptLoad(LUA)`.
import { ts } from './typescript';
import { luaText, type NamedScript } from './commands';
import type { ConstLookup } from './keys';
import { calleeName, descendantsOfKind, isAssignment, literalNumber, literalString, methodOf, nameOf, propertyAssignment, unwrap, valueCarrier, type Node } from './nodes';

function prop(obj: ts.ObjectLiteralExpression, ...names: string[]): Node | undefined {
  for (const name of names) {
    const p = propertyAssignment(obj, name);
    if (p) return p.initializer;
  }
  return undefined;
}

function objectOf(node: Node | undefined, lookup: ConstLookup): ts.ObjectLiteralExpression | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  if (ts.isIdentifier(n)) n = unwrap(lookup(n) ?? n);
  if (ts.isCallExpression(n) && /defineScript$/.test(calleeName(n) ?? '')) n = unwrap(n.arguments[0] ?? n);
  return ts.isObjectLiteralExpression(n) ? n : undefined;
}

function describe(obj: ts.ObjectLiteralExpression, lookup: ConstLookup): NamedScript {
  const luaNode = prop(obj, 'lua', 'SCRIPT');
  const keysNode = prop(obj, 'numberOfKeys', 'NUMBER_OF_KEYS');
  return { lua: luaNode ? luaText(luaNode, lookup) : undefined, numberOfKeys: keysNode ? literalNumber(keysNode) : undefined };
}

export function collectNamedScripts(sourceFile: ts.SourceFile, calls: ts.CallExpression[], lookup: ConstLookup) {
  const scripts = new Map<string, NamedScript>();
  const shas = new Map<string, string>();

  for (const call of calls) {
    const m = methodOf(call);
    if (!m) continue;
    const args = call.arguments;
    if (m.name === 'defineCommand' && args.length >= 2) {
      const name = literalString(args[0]);
      const obj = objectOf(args[1], lookup);
      if (name && obj) scripts.set(name, describe(obj, lookup));
    }
    // script('load', LUA) / scriptLoad(LUA): remember which variable holds the SHA.
    const loaded =
      m.name.toLowerCase() === 'script' && literalString(args[0] ?? call)?.toLowerCase() === 'load'
        ? args[1]
        : m.name === 'scriptLoad' || m.name === 'SCRIPT_LOAD'
          ? args[0]
          : undefined;
    if (loaded) {
      const lua = luaText(loaded, lookup);
      const target = valueCarrier(call).parent;
      let name: string | undefined;
      if (ts.isVariableDeclaration(target)) name = nameOf(target);
      else if (isAssignment(target)) name = target.left.getText().replace(/^this\./, '');
      if (lua && name) shas.set(name, lua);
    }
  }

  // `scripts: { name: {...} }` in a client constructor or factory options object.
  if (sourceFile.text.includes('scripts')) {
    for (const assignment of descendantsOfKind<ts.PropertyAssignment>(sourceFile, ts.SyntaxKind.PropertyAssignment)) {
      if (nameOf(assignment) !== 'scripts') continue;
      const obj = objectOf(assignment.initializer, lookup);
      if (!obj) continue;
      for (const entry of obj.properties) {
        if (!ts.isPropertyAssignment(entry)) continue;
        const def = objectOf(entry.initializer, lookup);
        const name = nameOf(entry);
        if (def && name) scripts.set(name, describe(def, lookup));
      }
    }
  }
  return { scripts, shas };
}
