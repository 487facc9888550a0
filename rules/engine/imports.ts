// What a file imports from the lock libraries, so a `Mutex` from async-mutex is not taken for
// redis-semaphore's, and the file's client style can be told when a call does not show it.
import { ts } from './typescript';
import type { ClientStyle } from './commands';
import { callsNamed, literalString } from './nodes';

export interface FileImports {
  /** Local name -> module specifier, for every named, default and namespace import and require(). */
  names: Map<string, string>;
  /** Local name -> the name the module exports it by, where the import renames it (`{ Semaphore as RS }`). */
  renamed: Map<string, string>;
  modules: Set<string>;
}

export function readImports(sourceFile: ts.SourceFile): FileImports {
  const names = new Map<string, string>();
  const renamed = new Map<string, string>();
  const modules = new Set<string>();
  for (const decl of sourceFile.statements) {
    if (!ts.isImportDeclaration(decl)) continue;
    const from = moduleOf(decl);
    if (from === undefined) continue;
    modules.add(from);
    const clause = decl.importClause;
    if (clause?.name) names.set(clause.name.text, from);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.set(bindings.name.text, from);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const named of bindings.elements) {
        names.set(named.name.text, from);
        if (named.propertyName) renamed.set(named.name.text, named.propertyName.text);
      }
    }
  }
  // CommonJS: const Redlock = require('redlock'); const { Mutex } = require('redis-semaphore')
  if (sourceFile.text.includes('require(')) {
    for (const call of callsNamed(sourceFile, (n) => n === 'require')) {
      if (!ts.isIdentifier(call.expression)) continue;
      const from = call.arguments[0] ? literalString(call.arguments[0]) : undefined;
      if (!from) continue;
      modules.add(from);
      const decl = call.parent;
      if (!ts.isVariableDeclaration(decl)) continue;
      if (ts.isIdentifier(decl.name)) names.set(decl.name.text, from);
      else if (ts.isObjectBindingPattern(decl.name)) {
        for (const el of decl.name.elements) {
          if (!ts.isIdentifier(el.name)) continue;
          names.set(el.name.text, from);
          if (el.propertyName && ts.isIdentifier(el.propertyName)) renamed.set(el.name.text, el.propertyName.text);
        }
      }
    }
  }
  return { names, renamed, modules };
}

/** The module an import names; undefined while the user is still typing it (not a string yet). */
export function moduleOf(decl: ts.ImportDeclaration): string | undefined {
  return ts.isStringLiteral(decl.moduleSpecifier) ? decl.moduleSpecifier.text : undefined;
}

const NODE_REDIS = /^(redis|@redis\/client|@node-redis\/client)$/;

const UPSTASH = /^(?:@upstash\/redis(?:\/.*)?|@vercel\/kv)$/;

export function fileStyle(imports: FileImports): ClientStyle | undefined {
  if (imports.modules.has('ioredis')) return 'ioredis';
  for (const m of imports.modules) if (UPSTASH.test(m)) return 'upstash';
  if (imports.modules.has('@valkey/valkey-glide')) return 'glide';
  for (const m of imports.modules) if (NODE_REDIS.test(m)) return 'node-redis';
  return undefined;
}

/**
 * Does the client of this file read SET's options only from an object, so ioredis-style words after the
 * value ('NX', 'EX', 30) are never sent? node-redis 4 and later do: set(key, value, options) looks up
 * options.NX, options.EX, options.condition... on the string 'NX' and finds none. node_redis 3 still
 * took the words, so the version must be known: from the file's `@redis/client` import, or from the
 * package.json when the file imports `redis` or, given its client, when node-redis is the package's
 * only client.
 */
/** Queue libraries a package may list beside its Redis client: they bring ioredis for their own connections. */
const QUEUE_LIBRARIES = new Set(['bull', 'bullmq', 'bee-queue']);

export function dropsPositionalSetOptions(
  imports: FileImports,
  packages: ReadonlyMap<string, number | undefined> = new Map(),
  importedClient?: () => 'node-redis' | 'ioredis' | undefined,
): boolean {
  if (imports.modules.has('@redis/client')) return true;
  const style = fileStyle(imports);
  if (style !== undefined && style !== 'node-redis') return false;
  const modern = packages.has('@redis/client') || (packages.get('redis') ?? 0) >= 4;
  if (!modern) return false;
  if (style === 'node-redis') return true;
  // A queue library keeps its own ioredis connection: the project's calls go through the node-redis it lists.
  if ([...packages.keys()].every((name) => name === 'redis' || name === '@redis/client' || QUEUE_LIBRARIES.has(name))) return true;
  // Both kinds of client in the package: the one the file imports from the project decides.
  return importedClient?.() === 'node-redis';
}

export const REDLOCK_MODULES = new Set(['redlock', '@sesamecare-oss/redlock']);
export const SEMAPHORE_MODULE = 'redis-semaphore';
