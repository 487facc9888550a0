// Lua registered under a name: ioredis `defineCommand(name, { numberOfKeys, lua })` and
// `new Redis({ scripts: { name: { lua, numberOfKeys } } })`, node-redis `scripts: { name: defineScript({
// SCRIPT, NUMBER_OF_KEYS }) }`, and SHAs from `script('load', LUA)` / `scriptLoad(LUA)`.
import { Node, SyntaxKind, type CallExpression, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { luaText, type NamedScript } from './commands';
import type { ConstLookup } from './keys';
import { descendantsOfKind, literalNumber, literalString, methodOf, unwrap, valueCarrier } from './nodes';

function prop(obj: ObjectLiteralExpression, ...names: string[]): Node | undefined {
  for (const name of names) {
    const p = obj.getProperty(name);
    if (Node.isPropertyAssignment(p)) return p.getInitializerOrThrow();
  }
  return undefined;
}

function objectOf(node: Node | undefined, lookup: ConstLookup): ObjectLiteralExpression | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  if (Node.isIdentifier(n)) n = unwrap(lookup(n) ?? n);
  if (Node.isCallExpression(n) && /defineScript$/.test(n.getExpression().getText())) n = unwrap(n.getArguments()[0] ?? n);
  return Node.isObjectLiteralExpression(n) ? n : undefined;
}

function describe(obj: ObjectLiteralExpression, lookup: ConstLookup): NamedScript {
  const luaNode = prop(obj, 'lua', 'SCRIPT');
  const keysNode = prop(obj, 'numberOfKeys', 'NUMBER_OF_KEYS');
  return { lua: luaNode ? luaText(luaNode, lookup) : undefined, numberOfKeys: keysNode ? literalNumber(keysNode) : undefined };
}

export function collectNamedScripts(sourceFile: SourceFile, calls: CallExpression[], lookup: ConstLookup) {
  const scripts = new Map<string, NamedScript>();
  const shas = new Map<string, string>();

  for (const call of calls) {
    const m = methodOf(call);
    if (!m) continue;
    const args = call.getArguments();
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
      const target = valueCarrier(call).getParent();
      let name: string | undefined;
      if (Node.isVariableDeclaration(target)) name = target.getName();
      else if (Node.isBinaryExpression(target) && target.getOperatorToken().getText() === '=') {
        name = target.getLeft().getText().replace(/^this\./, '');
      }
      if (lua && name) shas.set(name, lua);
    }
  }

  // `scripts: { name: {...} }` in a client constructor or factory options object.
  if (sourceFile.getFullText().includes('scripts')) {
    for (const assignment of descendantsOfKind(sourceFile, SyntaxKind.PropertyAssignment)) {
      if (assignment.getName() !== 'scripts') continue;
      const obj = objectOf(assignment.getInitializer(), lookup);
      if (!obj) continue;
      for (const entry of obj.getProperties()) {
        if (!Node.isPropertyAssignment(entry)) continue;
        const def = objectOf(entry.getInitializer(), lookup);
        if (def) scripts.set(entry.getName().replace(/^['"]|['"]$/g, ''), describe(def, lookup));
      }
    }
  }
  return { scripts, shas };
}
