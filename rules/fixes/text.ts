// Text builders for fixes, in the client's own syntax (ioredis, node-redis v4/v5 or Valkey GLIDE).
import { ts } from '../engine/typescript';
import type { ServerKind } from '../config';
import type { ClientStyle } from '../engine/commands';
import { moduleOf } from '../engine/imports';
import { EXTEND_LUA, RELEASE_LUA } from '../engine/lua';
import type { Node } from '../engine/nodes';
import type { TtlUnit } from '../engine/set-options';
import type { TextEdit } from '../types';
import { argText, commandCall, nativeExtend, nativeRelease } from './server-commands';

/** `SET key token NX <unit> ttl` as one call. node-redis uses the v4 object form, which v5 accepts. */
export function atomicSet(style: ClientStyle, receiver: string, key: string, token: string, unit: TtlUnit, ttl: string): string {
  if (style === 'node-redis') return `${receiver}.set(${key}, ${token}, { NX: true, ${unit}: ${ttl} })`;
  if (style === 'glide') return commandCall(style, receiver, ["'SET'", key, token, "'NX'", `'${unit}'`, argText(style, ttl)]);
  return `${receiver}.set(${key}, ${token}, '${unit}', ${ttl}, 'NX')`;
}

function evalCall(style: ClientStyle, receiver: string, lua: string, key: string, args: string[]): string {
  const script = `"${lua}"`;
  if (style === 'node-redis') return `${receiver}.eval(${script}, { keys: [${key}], arguments: [${args.join(', ')}] })`;
  if (style === 'glide') return commandCall(style, receiver, ["'EVAL'", script, "'1'", key, ...args]);
  return `${receiver}.eval(${script}, 1, ${[key, ...args].join(', ')})`;
}

/** Compare-and-delete: deletes the key only while it still holds this token. */
export function guardedRelease(style: ClientStyle, receiver: string, key: string, token: string, server: ServerKind = 'redis'): string {
  if (server !== 'redis') return nativeRelease(style, receiver, key, token, server);
  return evalCall(style, receiver, RELEASE_LUA, key, [token]);
}

/** Compare-and-pexpire: extends the key only while it still holds this token. */
export function guardedExtend(style: ClientStyle, receiver: string, key: string, token: string, ttlMs: string, server: ServerKind = 'redis'): string {
  if (server !== 'redis') return nativeExtend(style, receiver, key, token, ttlMs);
  return evalCall(style, receiver, EXTEND_LUA, key, [token, argText(style, ttlMs)]);
}

/** Removes a whole statement with its line (and indentation) when it stands alone on it. */
export function removeStatement(statement: Node): TextEdit {
  const text = statement.getSourceFile().text;
  let start = statement.getStart();
  let end = statement.end;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (/^[ \t]*$/.test(text.slice(lineStart, start))) start = lineStart;
  const nl = text.indexOf('\n', end);
  if (nl >= 0 && /^[ \t]*\r?$/.test(text.slice(end, nl))) end = nl + 1;
  return { start, end, newText: '' };
}

export function indentOf(node: Node): string {
  const text = node.getSourceFile().text;
  const lineStart = text.lastIndexOf('\n', node.getStart() - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

/** An edit that adds `import { name } from 'module'` (or require for CommonJS) unless it is there. */
export function ensureNamedImport(sourceFile: ts.SourceFile, name: string, module: string): TextEdit[] {
  const text = sourceFile.text;
  const imports = sourceFile.statements.filter(ts.isImportDeclaration);
  const has = imports.some((d) => {
    const bindings = d.importClause?.namedBindings;
    return moduleOf(d) === module && !!bindings && ts.isNamedImports(bindings) && bindings.elements.some((n) => n.name.text === name);
  });
  if (has || new RegExp(`\\b${name}\\b[^;\\n]*require\\(['"]${module}['"]\\)`).test(text)) return [];
  const usesRequire = imports.length === 0 && /\brequire\(/.test(text);
  const line = usesRequire ? `const { ${name} } = require('${module}');\n` : `import { ${name} } from '${module}';\n`;
  const last = imports[imports.length - 1];
  if (last) return [{ start: last.end, end: last.end, newText: `\n${line.trimEnd()}` }];
  // After a leading 'use strict' / shebang / header comments: at the first statement.
  const first = sourceFile.statements[0];
  const directive = first && ts.isExpressionStatement(first) && /^['"]use strict['"]/.test(first.getText());
  const at = directive ? first.end + 1 : (first?.getStart() ?? 0);
  return [{ start: at, end: at, newText: line }];
}
