// Recognises Redis commands in calls, in every client shape Lockwise knows: ioredis, node-redis and
// Valkey GLIDE methods (any case), `call('SET', ...)`, `sendCommand(['SET', ...])`, GLIDE's
// `customCommand([...])`, `send_command('SET', [...])`, Lua via eval/evalsha/named scripts/GLIDE
// invokeScript, and commands queued on MULTI/pipeline chains.
import { ts } from './typescript';
import { scriptFileText } from './script-files';
import type { ConstLookup } from './keys';
import { glideBatchKind, glideScriptLua, invokeScriptParts, isGlideSetOptions, readGlideSetOptions } from './glide';
import { classifyLua, luaTraits, type LuaKind, type LuaTraits } from './lua';
import { descendantsOfKind, isCallback, isPlus, literalNumber, literalString, methodOf, propertyValue, unwrap } from './nodes';
import { hasLowerCaseOptions, readObjectOptions, readTokenOptions, type SetOptions, type TtlUnit } from './set-options';

export type CommandName =
  | 'SET' | 'SETNX' | 'EXPIRE' | 'PEXPIRE' | 'EXPIREAT' | 'PEXPIREAT'
  | 'DEL' | 'UNLINK' | 'GETDEL' | 'DELEX' | 'DELIFEQ' | 'GET' | 'EXISTS' | 'INCR' | 'SCRIPT';

/** How the client spells commands: ioredis tokens, node-redis objects, GLIDE, or the Upstash REST client (`{ nx: true, px }`, `eval(script, keys, args)`). */
export type ClientStyle = 'ioredis' | 'node-redis' | 'glide' | 'upstash';

export interface ScriptCall {
  /** The Lua text when it could be found in the file. */
  lua?: string;
  kind: LuaKind | 'unknown';
  traits?: LuaTraits;
  keys: readonly ts.Node[];
  args: readonly ts.Node[];
  /** The call spells out every key it passes (a literal count, a `keys` array without spreads, or none). */
  keysCounted?: boolean;
  /** Why the script never runs as written (a release that always fails): set by the model (script-arity.ts). */
  misfit?: string;
}

export interface RedisCommand {
  call: ts.CallExpression;
  name: CommandName;
  keys: readonly ts.Node[];
  /** Arguments after the key(s): value, options. */
  args: readonly ts.Node[];
  set?: SetOptions;
  script?: ScriptCall;
  /** The style this call's own shape shows; undefined when both clients write it the same way. */
  style?: ClientStyle;
  /** The MULTI/pipeline the command is queued on. */
  batch?: { root: ts.Node; kind: 'multi' | 'pipeline' };
  /** Sent through a project wrapper (`redisService.delete(key)`): the call is not the client's own. */
  wrapped?: boolean;
}

/** A named Lua script registered with defineCommand / `scripts: {...}` / node-redis defineScript. */
export interface NamedScript {
  lua?: string;
  numberOfKeys?: number;
}

export interface RecogniserContext {
  lookup: ConstLookup;
  scripts: Map<string, NamedScript>;
  /** sha variable name -> Lua text, from `x = await redis.script('load', LUA)`. */
  shas: Map<string, string>;
  /** Variables bound to `redis.multi()` / `redis.pipeline()`. */
  batchVars: Map<string, 'multi' | 'pipeline'>;
}

const METHODS: Record<string, CommandName> = {
  set: 'SET', setnx: 'SETNX', expire: 'EXPIRE', pexpire: 'PEXPIRE', expireat: 'EXPIREAT',
  pexpireat: 'PEXPIREAT', del: 'DEL', unlink: 'UNLINK', getdel: 'GETDEL', delex: 'DELEX', delifeq: 'DELIFEQ', get: 'GET', exists: 'EXISTS', incr: 'INCR',
};
const GENERIC = new Set(['call', 'callbuffer', 'sendcommand', 'send_command', 'customcommand']);
const BATCH_METHODS: Record<string, 'multi' | 'pipeline'> = { multi: 'multi', pipeline: 'pipeline', batch: 'pipeline' };

/** Resolves an expression that should hold Lua: a literal, a template, a const or `OBJ.prop`. */
export function luaText(node: ts.Node, lookup: ConstLookup, depth = 0): string | undefined {
  const n = unwrap(node);
  const literal = literalString(n);
  if (literal !== undefined) return literal;
  if (ts.isTemplateExpression(n)) {
    return n.head.text + n.templateSpans.map((s) => ` ${s.literal.text}`).join('');
  }
  // lua`...` with `const lua = String.raw` (or a dedent tag): the script is the template's text.
  if (ts.isTaggedTemplateExpression(n)) return luaText(n.template, lookup, depth + 1);
  if (depth > 3) return undefined;
  if (ts.isIdentifier(n)) {
    const init = lookup(n);
    return init ? luaText(init, lookup, depth + 1) : undefined;
  }
  if (ts.isPropertyAccessExpression(n)) {
    const target = unwrap(n.expression);
    const obj = ts.isIdentifier(target) ? lookup(target) : undefined;
    const literalObject = obj ? unwrap(obj) : undefined;
    if (literalObject && ts.isObjectLiteralExpression(literalObject)) {
      const value = propertyValue(literalObject, n.name.text);
      if (value) return luaText(value, lookup, depth + 1);
    }
  }
  if (isPlus(n)) {
    const l = luaText(n.left, lookup, depth + 1);
    const r = luaText(n.right, lookup, depth + 1);
    return l !== undefined && r !== undefined ? l + r : undefined;
  }
  if (ts.isCallExpression(n)) {
    const fromFile = scriptFileText(n, lookup);
    if (fromFile !== undefined) return fromFile;
    // `[...].join('\n')` of string literals, a common way to write multi-line Lua.
    const m = methodOf(n);
    const arr = m && m.name === 'join' ? unwrap(m.receiver) : undefined;
    if (arr && ts.isArrayLiteralExpression(arr)) {
      const parts = arr.elements.map((e) => literalString(e));
      if (parts.every((p) => p !== undefined)) return parts.join('\n');
    }
  }
  return undefined;
}

function scriptCall(lua: string | undefined, keys: readonly ts.Node[], args: readonly ts.Node[], keysCounted = false): ScriptCall {
  return lua === undefined
    ? { kind: 'unknown', keys, args, keysCounted }
    : { lua, kind: classifyLua(lua), traits: luaTraits(lua), keys, args, keysCounted };
}

/** ioredis eval(script, numKeys, ...keysAndArgs) or node-redis eval(script, { keys, arguments }). */
function evalParts(rest: readonly ts.Node[], lookup: ConstLookup): { keys: readonly ts.Node[]; args: readonly ts.Node[]; style?: ClientStyle; counted: boolean } | undefined {
  const [first, ...more] = rest;
  if (!first) return undefined;
  const opts = unwrap(first);
  if (ts.isObjectLiteralExpression(opts)) {
    const list = (name: string): readonly ts.Node[] => {
      const value = propertyValue(opts, name);
      const init = value ? unwrap(value) : undefined;
      return init && ts.isArrayLiteralExpression(init) ? init.elements : [];
    };
    const keys = propertyValue(opts, 'keys');
    const listed = keys && unwrap(keys);
    const counted = !listed || (ts.isArrayLiteralExpression(listed) && !listed.elements.some(ts.isSpreadElement));
    return { keys: list('keys'), args: list('arguments'), style: 'node-redis', counted };
  }
  if (ts.isArrayLiteralExpression(opts)) {
    // Upstash (@upstash/redis, @vercel/kv): eval(script, [keys], [args]).
    const args = more[0] ? unwrap(more[0]) : undefined;
    return { keys: opts.elements, args: args && ts.isArrayLiteralExpression(args) ? args.elements : [], style: 'upstash', counted: !opts.elements.some(ts.isSpreadElement) };
  }
  // Callback-style node_redis v3 passes a trailing function; it is not an argument.
  const values = more.filter((n) => !isCallback(n));
  // `eval(script, keys.length, ...keys, ...args)`: the keys are the list spread first.
  const spread = values[0] && ts.isSpreadElement(values[0]) ? unwrap(values[0].expression).getText() : undefined;
  if (spread && ts.isPropertyAccessExpression(opts) && opts.name.text === 'length' && unwrap(opts.expression).getText() === spread) {
    return { keys: values.slice(0, 1), args: values.slice(1), counted: false };
  }
  const numKeys = literalNumber(first) ?? (ts.isIdentifier(opts) ? literalNumber(lookup(opts) ?? opts) : undefined);
  if (numKeys === undefined) return undefined;
  return { keys: values.slice(0, numKeys), args: values.slice(numKeys), counted: !values.some(ts.isSpreadElement) };
}

function fromTokens(call: ts.CallExpression, name: string, rest: readonly ts.Node[], ctx: RecogniserContext, style?: ClientStyle): RedisCommand | undefined {
  const upper = name.toUpperCase();
  // A callback (node_redis v3) is not an argument; most calls have none, and keep their own list.
  const args = rest.some(isCallback) ? rest.filter((n) => !isCallback(n)) : rest;
  if (upper === 'EVAL' || upper === 'EVALSHA') {
    const [script, ...more] = args;
    if (!script) return undefined;
    const parts = evalParts(more, ctx.lookup);
    if (!parts) return undefined;
    const lua = upper === 'EVAL' ? luaText(script, ctx.lookup) : shaLua(script, ctx);
    return { call, name: 'SCRIPT', keys: parts.keys, args: parts.args, script: scriptCall(lua, parts.keys, parts.args, parts.counted), style: parts.style ?? style };
  }
  const expiring = SET_WITH_TTL[upper];
  if (expiring) return setWithTtl(call, args, expiring, style);
  const command = METHODS[upper.toLowerCase()];
  if (!command) return undefined;
  const keyCount = command === 'DEL' || command === 'UNLINK' ? args.length : 1;
  // GLIDE (and node-redis) take the keys of a DEL as one array: del([key]).
  const keyList = keyCount > 1 || args.length !== 1 ? undefined : unwrap(args[0]);
  const keys = keyList && (command === 'DEL' || command === 'UNLINK') && ts.isArrayLiteralExpression(keyList) ? keyList.elements : args.slice(0, keyCount);
  if (keys.length === 0) return undefined;
  const tail = args.slice(keyCount);
  const result: RedisCommand = { call, name: command, keys, args: tail, style };
  if (command === 'SET') {
    const optionArgs = tail.slice(1);
    const objectArg = optionArgs.length === 1 && ts.isObjectLiteralExpression(unwrap(optionArgs[0]));
    const identifierArg = optionArgs.length === 1 && ts.isIdentifier(unwrap(optionArgs[0]));
    const object = objectArg || identifierArg ? unwrap(objectArg ? optionArgs[0] : (ctx.lookup(unwrap(optionArgs[0])) ?? optionArgs[0])) : undefined;
    if (object && ts.isObjectLiteralExpression(object) && isGlideSetOptions(object)) {
      result.set = readGlideSetOptions(object);
      result.style = 'glide';
    } else if (object && ts.isObjectLiteralExpression(object)) {
      result.set = readObjectOptions(optionArgs[0], ctx.lookup);
      result.style = hasLowerCaseOptions(object) ? 'upstash' : 'node-redis';
    } else if (optionArgs.length === 1 && isTtlArgument(optionArgs[0], ctx)) {
      // cache-manager and Keyv: set(key, value, ttl), a plain write that expires (no NX).
      result.set = { nx: false, xx: false, dynamic: false, ttl: { unit: 'PX', value: optionArgs[0] }, node: optionArgs[0], ttlOnly: true };
    } else {
      result.set = readTokenOptions(optionArgs);
      if (optionArgs.length > 0 && !style) result.style = 'ioredis';
    }
  }
  return result;
}

// SETEX key seconds value, PSETEX key milliseconds value: a SET with that TTL, and no NX.
const SET_WITH_TTL: Record<string, 'EX' | 'PX'> = { SETEX: 'EX', PSETEX: 'PX' };

function setWithTtl(call: ts.CallExpression, args: readonly ts.Node[], unit: 'EX' | 'PX', style?: ClientStyle): RedisCommand | undefined {
  const [key, ttl, value] = args;
  if (!key || !ttl || !value) return undefined;
  return { call, name: 'SET', keys: [key], args: [value], set: { nx: false, xx: false, dynamic: false, ttl: { unit, value: ttl }, node: ttl, setex: true }, style };
}

const EXPIRE_UNITS: Partial<Record<CommandName, TtlUnit>> = { EXPIRE: 'EX', PEXPIRE: 'PX', EXPIREAT: 'EXAT', PEXPIREAT: 'PXAT' };

/** The TTL a command that gives a key its expiry sets: EXPIRE's argument, SETEX's seconds. */
export function expiryOf(command: RedisCommand): { unit: TtlUnit; value?: ts.Node } | undefined {
  if (command.set?.setex) return command.set.ttl;
  const unit = EXPIRE_UNITS[command.name];
  return unit ? { unit, value: command.args[0] } : undefined;
}

/** The command as the code spells it, for messages: SETEX and PSETEX are modelled as SET. */
export function spelledName(command: RedisCommand): string {
  if (!command.set?.setex) return command.name;
  return command.set.ttl?.unit === 'PX' ? 'PSETEX' : 'SETEX';
}

/** A lone third argument of set() that is a number or a duration, not an option word. */
function isTtlArgument(node: ts.Node, ctx: RecogniserContext): boolean {
  const n = unwrap(node);
  if (ts.isNumericLiteral(n) || ts.isBinaryExpression(n)) return true;
  if (!ts.isIdentifier(n) && !ts.isPropertyAccessExpression(n)) return false;
  const init = ts.isIdentifier(n) ? ctx.lookup(n) : undefined;
  return init ? literalString(init) === undefined : /ttl|ms|seconds|duration|expir|timeout/i.test(n.getText());
}

function shaLua(node: ts.Node, ctx: RecogniserContext): string | undefined {
  const n = unwrap(node);
  return ts.isIdentifier(n) || ts.isPropertyAccessExpression(n) ? ctx.shas.get(n.getText().replace(/^this\./, '')) : undefined;
}

function batchOf(receiver: ts.Node, ctx: RecogniserContext): RedisCommand['batch'] {
  let current = unwrap(receiver);
  for (let depth = 0; depth < 50; depth++) {
    if (ts.isIdentifier(current)) {
      const kind = ctx.batchVars.get(current.text);
      return kind ? { root: current, kind } : undefined;
    }
    if (ts.isNewExpression(current)) {
      const kind = glideBatchKind(current);
      return kind ? { root: current, kind } : undefined;
    }
    if (!ts.isCallExpression(current)) return undefined;
    const m = methodOf(current);
    if (!m) return undefined;
    const kind = BATCH_METHODS[m.name.toLowerCase()];
    if (kind) return { root: current, kind };
    current = unwrap(m.receiver);
  }
  return undefined;
}

/** A project's own raw-command function (`redisCommand('SET', ...)`, `sendCommand('DEL', key)`): a plain call named for commands. */
export const RAW_COMMAND_FN = /command$/i;
const COMMAND_WORDS = new Set(Object.values(METHODS) as string[]);

function rawCommandCall(call: ts.CallExpression, ctx: RecogniserContext): RedisCommand | undefined {
  const callee = unwrap(call.expression);
  if (!ts.isIdentifier(callee)) return undefined;
  const promisified = promisifiedCommand(callee, ctx);
  if (promisified) return commandFromArgs(call, promisified, call.arguments, ctx);
  if (!RAW_COMMAND_FN.test(callee.text) || !call.arguments[0]) return undefined;
  const word = literalString(call.arguments[0]);
  // Only the commands this engine reads, spelled in capitals as Redis documents them: a shell helper's
  // `runCommand('del', path)` is left alone.
  return word && word === word.toUpperCase() && COMMAND_WORDS.has(word) ? genericCommand(call, 'call', call.arguments, ctx) : undefined;
}

/** Commands a client method may be called through: its own name, or bluebird's promisifyAll copy (`setnxAsync`). */
const PROMISIFIED_NAMES = new Set([...Object.keys(METHODS), 'eval', 'evalsha']);
const ASYNC_COPY = /^([a-z]+)Async$/i;

function commandMethodName(name: string): string {
  const base = ASYNC_COPY.exec(name)?.[1];
  return base && PROMISIFIED_NAMES.has(base.toLowerCase()) ? base : name;
}

/** `x.bind(client)` -> `x`. */
function unbound(node: ts.Node): ts.Node {
  const n = unwrap(node);
  const m = ts.isCallExpression(n) ? methodOf(n) : undefined;
  return m && m.name === 'bind' ? unwrap(m.receiver) : n;
}

/**
 * `const setAsync = promisify(client.set).bind(client)` (or `promisify(client.set.bind(client))`): the
 * node_redis v3 idiom for awaiting a command; calls of `setAsync` send SET.
 */
function promisifiedCommand(callee: ts.Identifier, ctx: RecogniserContext): string | undefined {
  const init = ctx.lookup(callee);
  return init && promisifiedTarget(init);
}

function promisifiedTarget(init: ts.Node): string | undefined {
  const made = unbound(init);
  if (!made || !ts.isCallExpression(made) || !/(?:^|\.)promisify$/.test(made.expression.getText()) || !made.arguments[0]) return undefined;
  const target = unbound(made.arguments[0]);
  const name = ts.isPropertyAccessExpression(target) ? target.name.text : undefined;
  return name && PROMISIFIED_NAMES.has(name.toLowerCase()) ? name : undefined;
}

/** `setnxAsync`, `evalAsync`: the names of bluebird's promisified command methods. */
export const ASYNC_COMMAND_CALL = /^(?:set|setnx|expire|pexpire|expireat|pexpireat|del|unlink|getdel|get|exists|incr|eval|evalsha)Async$/i;

/** The variables a file binds to promisified commands (`const setAsync = promisify(client.set)...`). */
export function promisifiedCommandNames(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  if (!sourceFile.text.includes('promisify')) return names;
  for (const decl of descendantsOfKind<ts.VariableDeclaration>(sourceFile, ts.SyntaxKind.VariableDeclaration)) {
    if (ts.isIdentifier(decl.name) && decl.initializer && promisifiedTarget(decl.initializer)) names.add(decl.name.text);
  }
  return names;
}

export function recogniseCommand(call: ts.CallExpression, ctx: RecogniserContext): RedisCommand | undefined {
  const method = methodOf(call);
  if (!method) return rawCommandCall(call, ctx);
  const command = commandFromArgs(call, commandMethodName(method.name), call.arguments, ctx);
  if (command) command.batch = batchOf(method.receiver, ctx);
  return command;
}

/**
 * The command a client method `name` sends with `args`: the call's own arguments, or the arguments a
 * thin wrapper forwards to it (engine/wrappers.ts), read at the wrapper's call site.
 */
export function commandFromArgs(call: ts.CallExpression, name: string, args: readonly ts.Node[], ctx: RecogniserContext): RedisCommand | undefined {
  const lower = name.toLowerCase();
  if (GENERIC.has(lower)) return genericCommand(call, lower, args, ctx);
  if (lower === 'invokescript' && args[0]) {
    // GLIDE: invokeScript(new Script(lua), { keys, args })
    const parts = invokeScriptParts(args[1]);
    const lua = glideScriptLua(args[0], ctx.lookup, (n) => luaText(n, ctx.lookup));
    return { call, name: 'SCRIPT', keys: parts.keys, args: parts.args, script: scriptCall(lua, parts.keys, parts.args), style: 'glide' };
  }
  if (ctx.scripts.has(name)) {
    const script = ctx.scripts.get(name) as NamedScript;
    const n = script.numberOfKeys ?? 1;
    const values = args.filter((a) => !isCallback(a));
    const keys = values.slice(0, n);
    return { call, name: 'SCRIPT', keys, args: values.slice(n), script: scriptCall(script.lua, keys, values.slice(n)) };
  }
  const camel = name !== lower && name !== name.toUpperCase();
  return fromTokens(call, name, args, ctx, camel ? 'node-redis' : undefined);
}

function genericCommand(call: ts.CallExpression, lower: string, args: readonly ts.Node[], ctx: RecogniserContext): RedisCommand | undefined {
  const first = args[0] ? unwrap(args[0]) : undefined;
  if (!first) return undefined;
  if ((lower === 'sendcommand' || lower === 'customcommand') && ts.isArrayLiteralExpression(first)) {
    // node-redis: sendCommand(['SET', key, value, 'NX', 'PX', '3000']); GLIDE: customCommand([...])
    const [name, ...rest] = first.elements;
    const word = name ? literalString(name) : undefined;
    return word ? fromTokens(call, word, rest, ctx, lower === 'sendcommand' ? 'node-redis' : 'glide') : undefined;
  }
  const word = literalString(first);
  if (!word) return undefined;
  let rest = args.slice(1);
  // node_redis v3: send_command('SET', [key, value, 'NX'], cb)
  const second = rest[0] ? unwrap(rest[0]) : undefined;
  if (second && ts.isArrayLiteralExpression(second)) rest = [...second.elements];
  return fromTokens(call, word, rest, ctx, undefined);
}
