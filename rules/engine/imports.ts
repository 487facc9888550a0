// What a file imports from the lock libraries, so a `Mutex` from async-mutex is not taken for
// redis-semaphore's, and the file's client style can be told when a call does not show it.
import { Node, SyntaxKind, ts, type ImportDeclaration, type SourceFile } from 'ts-morph';
import type { ClientStyle } from './commands';
import { descendantsOfKind, literalString } from './nodes';

export interface FileImports {
  /** Local name -> module specifier, for every named, default and namespace import and require(). */
  names: Map<string, string>;
  modules: Set<string>;
}

export function readImports(sourceFile: SourceFile): FileImports {
  const names = new Map<string, string>();
  const modules = new Set<string>();
  for (const decl of sourceFile.getImportDeclarations()) {
    const from = moduleOf(decl);
    if (from === undefined) continue;
    modules.add(from);
    const def = decl.getDefaultImport();
    if (def) names.set(def.getText(), from);
    const ns = decl.getNamespaceImport();
    if (ns) names.set(ns.getText(), from);
    for (const named of decl.getNamedImports()) names.set((named.getAliasNode() ?? named.getNameNode()).getText(), from);
  }
  // CommonJS: const Redlock = require('redlock'); const { Mutex } = require('redis-semaphore')
  if (sourceFile.getFullText().includes('require(')) {
    for (const call of descendantsOfKind(sourceFile, SyntaxKind.CallExpression)) {
      if (call.getExpression().getText() !== 'require') continue;
      const arg = call.getArguments()[0];
      const from = arg ? literalString(arg) : undefined;
      if (!from) continue;
      modules.add(from);
      const decl = call.getParentIfKind(SyntaxKind.VariableDeclaration);
      const nameNode = decl?.getNameNode();
      if (!nameNode) continue;
      if (Node.isIdentifier(nameNode)) names.set(nameNode.getText(), from);
      else if (Node.isObjectBindingPattern(nameNode)) {
        for (const el of nameNode.getElements()) names.set(el.getName(), from);
      }
    }
  }
  return { names, modules };
}

/** The module an import names; undefined while the user is still typing it (not a string yet). */
export function moduleOf(decl: ImportDeclaration): string | undefined {
  const specifier = decl.compilerNode.moduleSpecifier;
  return ts.isStringLiteral(specifier) ? specifier.text : undefined;
}

const NODE_REDIS = /^(redis|@redis\/client|@node-redis\/client)$/;

export function fileStyle(imports: FileImports): ClientStyle | undefined {
  if (imports.modules.has('ioredis')) return 'ioredis';
  for (const m of imports.modules) if (NODE_REDIS.test(m)) return 'node-redis';
  return undefined;
}

export const REDLOCK_MODULES = new Set(['redlock', '@sesamecare-oss/redlock']);
export const SEMAPHORE_MODULE = 'redis-semaphore';
