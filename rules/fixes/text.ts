// Text builders for fixes, in the client's own syntax (ioredis or node-redis v4/v5).
import { ts } from '../engine/typescript';
import type { ServerKind } from '../config';
import type { ClientStyle } from '../engine/commands';
import { moduleOf } from '../engine/imports';
import { classifyLua } from '../engine/lua';
import { unwrap, type Node } from '../engine/nodes';
import type { TtlUnit } from '../engine/set-options';
import type { TextEdit } from '../types';
import { argText, commandCall, nativeExtend, nativeRelease } from './server-commands';

/** `SET key token NX <unit> ttl` as one call. node-redis uses the v4 object form, which v5 accepts. */
export function atomicSet(style: ClientStyle, receiver: string, key: string, token: string, unit: TtlUnit, ttl: string): string {
  if (style === 'node-redis') return `${receiver}.set(${key}, ${token}, { NX: true, ${unit}: ${ttl} })`;
  if (style === 'upstash') return `${receiver}.set(${key}, ${token}, { nx: true, ${unit.toLowerCase()}: ${ttl} })`;
  if (style === 'glide') return commandCall(style, receiver, ["'SET'", key, token, "'NX'", `'${unit}'`, argText(style, ttl)]);
  return `${receiver}.set(${key}, ${token}, '${unit}', ${ttl}, 'NX')`;
}

function evalCall(style: ClientStyle, receiver: string, script: string, key: string, args: string[]): string {
  if (style === 'node-redis') return `${receiver}.eval(${script}, { keys: [${key}], arguments: [${args.join(', ')}] })`;
  if (style === 'upstash') return `${receiver}.eval(${script}, [${key}], [${args.join(', ')}])`;
  if (style === 'glide') return commandCall(style, receiver, ["'EVAL'", script, "'1'", key, ...args]);
  return `${receiver}.eval(${script}, 1, ${[key, ...args].join(', ')})`;
}

/** A guarded call and the edits it needs elsewhere in the file (the script constant). */
export interface GuardedCall {
  call: string;
  edits: TextEdit[];
}

const SCRIPTS = {
  release: {
    name: 'RELEASE_LOCK_SCRIPT',
    kind: 'compare-and-delete',
    comment: "// Deletes the lock only while it still holds this process's token, in one atomic step.",
    lua: "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nend\nreturn 0",
  },
  extend: {
    name: 'EXTEND_LOCK_SCRIPT',
    kind: 'compare-and-expire',
    comment: "// Extends the lock (PEXPIRE, ARGV[2] ms) only while it still holds this process's token.",
    lua: "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('pexpire', KEYS[1], ARGV[2])\nend\nreturn 0",
  },
} as const;

/**
 * The name of the file's constant for a guarded script: an existing top-level `const` whose Lua does
 * that, or a new one declared after the imports, so every fix in a file shares one readable script.
 */
function scriptConstant(sourceFile: ts.SourceFile, which: keyof typeof SCRIPTS): GuardedCall {
  const script = SCRIPTS[which];
  const names = new Set<string>();
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const d of statement.declarationList.declarations) {
      if (!ts.isIdentifier(d.name)) continue;
      names.add(d.name.text);
      const init = d.initializer && unwrap(d.initializer);
      if (init && (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) && classifyLua(init.text) === script.kind) {
        return { call: d.name.text, edits: [] };
      }
    }
  }
  let name: string = script.name;
  for (let n = 2; names.has(name) || new RegExp(`\\b${name}\\b`).test(sourceFile.text); n++) name = `${script.name}_${n}`;
  const at = afterImports(sourceFile);
  const declaration = `${script.comment}\nconst ${name} = \`\n${script.lua}\`;`;
  return { call: name, edits: [{ start: at.offset, end: at.offset, newText: at.before + declaration + at.after }] };
}

/** Where file-level declarations go: after the last import or top-level require, else at the first statement. */
function afterImports(sourceFile: ts.SourceFile): { offset: number; before: string; after: string } {
  const isImport = (s: ts.Statement) =>
    ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s) ||
    (ts.isVariableStatement(s) && s.declarationList.declarations.every((d) => !!d.initializer && /^require\(|^await import\(/.test(d.initializer.getText())));
  const statements = sourceFile.statements;
  let last: ts.Statement | undefined;
  for (const s of statements) {
    if (isImport(s)) last = s;
    else if (!(ts.isExpressionStatement(s) && ts.isStringLiteral(s.expression))) break;
  }
  // On the line after the imports, so an import a fix adds at their end stays before it.
  const lineEnd = last && sourceFile.text.indexOf('\n', last.end);
  if (last && lineEnd !== undefined && lineEnd >= 0) return { offset: lineEnd + 1, before: '\n', after: '\n' };
  if (last) return { offset: last.end, before: '\n\n', after: '' };
  const first = statements[0];
  if (first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression)) return { offset: first.end, before: '\n\n', after: '' };
  return { offset: first?.getStart() ?? 0, before: '', after: '\n\n' };
}

/**
 * Compare-and-delete: deletes the key only while it still holds this token. The one place the text of
 * a guarded release is made: the server's native command where the config's `server` has one.
 */
export function guardedRelease(model: { style: ClientStyle; sourceFile: ts.SourceFile }, receiver: string, key: string, token: string, server: ServerKind = 'redis'): GuardedCall {
  // The Upstash REST client has no call for an arbitrary command: it keeps the Lua form.
  if (server !== 'redis' && model.style !== 'upstash') return { call: nativeRelease(model.style, receiver, key, token, server), edits: [] };
  const script = scriptConstant(model.sourceFile, 'release');
  return { call: evalCall(model.style, receiver, script.call, key, [token]), edits: script.edits };
}

/** Compare-and-pexpire: extends the key only while it still holds this token. */
export function guardedExtend(model: { style: ClientStyle; sourceFile: ts.SourceFile }, receiver: string, key: string, token: string, ttlMs: string, server: ServerKind = 'redis'): GuardedCall {
  if (server !== 'redis' && model.style !== 'upstash') return { call: nativeExtend(model.style, receiver, key, token, ttlMs), edits: [] };
  const script = scriptConstant(model.sourceFile, 'extend');
  const args = [token, argText(model.style, ttlMs)];
  return { call: evalCall(model.style, receiver, script.call, key, args), edits: script.edits };
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
  if (has || (text.includes(module) && new RegExp(`\\b${name}\\b[^;\\n]*require\\(['"]${module}['"]\\)`).test(text))) return [];
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
