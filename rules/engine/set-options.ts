// Reads the options of a SET in both client styles: ioredis/generic tokens ('PX', 3000, 'NX') and
// node-redis objects ({ NX: true, PX: 3000 } in v4, { condition: 'NX', expiration: { type, value } } in v5).
import { ts } from './typescript';
import type { ConstLookup } from './keys';
import { literalString, propertyValue, unwrap } from './nodes';

export type TtlUnit = 'EX' | 'PX' | 'EXAT' | 'PXAT' | 'KEEPTTL';

export interface SetOptions {
  nx: boolean;
  xx: boolean;
  /** `IFEQ token` (Redis 8.4 compare-and-set): a safe extend. */
  ifeq?: ts.Node;
  ttl?: { unit: TtlUnit; value?: ts.Node };
  /** Some option could not be read (a variable, a spread): the rules stay silent. */
  dynamic: boolean;
  /** The node holding the options (the object literal, or the first option token). */
  node?: ts.Node;
  /** set(key, value, ttl) of a cache client (cache-manager, Keyv): it takes a TTL and no NX. */
  ttlOnly?: boolean;
  /**
   * ioredis-style option words given to a client that reads only an options object (node-redis 4+):
   * they are never sent, and the SET is a plain one, whatever the words say (imports.ts).
   */
  dropped?: boolean;
  /** Written as SETEX/PSETEX (key, ttl, value): messages name the command the code spells. */
  setex?: boolean;
  /**
   * `GET` (Redis 6.2+): the SET replies with the value it replaced. Without NX that is a test-and-set in
   * one command (the caller that gets null took the key), not a SET that always says OK.
   */
  get?: boolean;
  /**
   * `{ canOverride: false, ttlMs }`: an option of the project's own store, which its wrapper may turn into
   * NX or anything else. Whether the SET excludes others cannot be read here (exclusive-acquire is silent).
   */
  ownOptions?: boolean;
}

const OPTION_WORD = /^(?:NX|XX|EX|PX|EXAT|PXAT|KEEPTTL|GET)$/i;

/** Does a SET's options list (after key and value) hold option words written as separate arguments? */
export function hasPositionalWords(options: readonly ts.Node[]): boolean {
  return options.some((n) => OPTION_WORD.test(literalString(n) ?? '') || (ts.isSpreadElement(n) && hasWordInside(n)));
}

function hasWordInside(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (!found && OPTION_WORD.test(literalString(n) ?? '')) found = true;
    else if (!found) ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

const TTL_UNITS = new Set(['EX', 'PX', 'EXAT', 'PXAT']);

/**
 * ioredis / call() / sendCommand() style: a flat list of tokens after key and value. A string token is
 * an option word a thin wrapper writes itself (read at its call site, where only the caller's
 * arguments are nodes).
 */
export function readTokenOptions(tokens: readonly (ts.Node | string)[]): SetOptions {
  const node = (t: ts.Node | string | undefined) => (typeof t === 'string' ? undefined : t);
  const options: SetOptions = { nx: false, xx: false, dynamic: false, node: tokens.map(node).find((t) => !!t) };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (typeof token !== 'string' && ts.isSpreadElement(token)) {
      options.dynamic = true;
      continue;
    }
    const word = (typeof token === 'string' ? token : literalString(token))?.toUpperCase();
    if (word === undefined) {
      // A number right after a TTL unit was consumed below; anything else is unknowable here.
      if (typeof token !== 'string' && !ts.isNumericLiteral(unwrap(token))) options.dynamic = true;
      continue;
    }
    if (word === 'NX') options.nx = true;
    else if (word === 'XX') options.xx = true;
    else if (word === 'KEEPTTL') options.ttl = { unit: 'KEEPTTL' };
    else if (word === 'GET') options.get = true;
    else if (word === 'IFEQ') options.ifeq = node(tokens[++i]);
    else if (TTL_UNITS.has(word)) options.ttl = { unit: word as TtlUnit, value: node(tokens[++i]) };
  }
  return options;
}

function isTrue(node: ts.Node | undefined): boolean {
  return !!node && unwrap(node).kind === ts.SyntaxKind.TrueKeyword;
}

// The Upstash REST client (@upstash/redis, @vercel/kv) spells the same options in lower case: { nx: true, px }.
const LOWER_CASE_OPTION = /^(?:nx|xx|ex|px|exat|pxat|keepTtl)$/;

/** An option written node-redis' way (`NX`) or Upstash's (`nx`, `keepTtl`). */
function option(obj: ts.ObjectLiteralExpression, name: string): ts.Node | undefined {
  return propertyValue(obj, name) ?? propertyValue(obj, name === 'KEEPTTL' ? 'keepTtl' : name.toLowerCase());
}

/** Options in Upstash's lower-case spelling. */
export function hasLowerCaseOptions(obj: ts.ObjectLiteralExpression): boolean {
  return obj.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && LOWER_CASE_OPTION.test(p.name.text));
}

// `{ ttlSec: 60, nx: true }`, `{ ttlMs }`, `{ expiresIn: 30 }`: no client's option, so a project
// wrapper's own, which it turns into EX or PX. Seconds or milliseconds as the name says.
const WRAPPER_TTL = /^(?:ttl|expire|expires|expiry)(?:In|After)?(?:(sec|secs|second|seconds|s)|(ms|msec|millis|milliseconds))?$/i;

function wrapperTtl(obj: ts.ObjectLiteralExpression): SetOptions['ttl'] {
  for (const p of obj.properties) {
    const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
    const match = name ? WRAPPER_TTL.exec(name) : null;
    if (!match || !(ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p))) continue;
    const value = ts.isPropertyAssignment(p) ? p.initializer : p.name;
    // A name without its unit still gives the lock a TTL; no unit check reads a value of unknown unit.
    if (match[1]) return { unit: 'EX', value };
    if (match[2]) return { unit: 'PX', value };
    return { unit: 'PX' };
  }
  return undefined;
}

/** SET's options as node-redis, Upstash and v5's `condition`/`expiration` spell them. */
const CLIENT_OPTION = /^(?:NX|XX|EX|PX|EXAT|PXAT|KEEPTTL|GET|nx|xx|ex|px|exat|pxat|keepTtl|get|condition|matchValue|expiration)$/;

/** A property that is neither a client's SET option nor a wrapper's TTL: the project store's own option. */
function ownOption(p: ts.ObjectLiteralElementLike): boolean {
  const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
  return name !== undefined && !CLIENT_OPTION.test(name) && !WRAPPER_TTL.test(name);
}

/** node-redis or Upstash style: the options object (resolved through a `const` if named). */
export function readObjectOptions(arg: ts.Node, lookup: ConstLookup): SetOptions {
  let obj = unwrap(arg);
  if (ts.isIdentifier(obj)) obj = unwrap(lookup(obj) ?? obj);
  if (!ts.isObjectLiteralExpression(obj)) return { nx: false, xx: false, dynamic: true, node: arg };
  const options: SetOptions = {
    nx: isTrue(option(obj, 'NX')),
    xx: isTrue(option(obj, 'XX')),
    dynamic: obj.properties.some((p) => ts.isSpreadAssignment(p)),
    node: obj,
  };
  for (const unit of TTL_UNITS) {
    const value = option(obj, unit);
    if (value) options.ttl = { unit: unit as TtlUnit, value };
  }
  if (isTrue(option(obj, 'KEEPTTL'))) options.ttl = { unit: 'KEEPTTL' };
  if (isTrue(option(obj, 'GET'))) options.get = true;
  if (!options.ttl) options.ttl = wrapperTtl(obj);

  const condition = propertyValue(obj, 'condition');
  if (condition) {
    const c = literalString(condition)?.toUpperCase();
    if (c === 'NX') options.nx = true;
    else if (c === 'XX') options.xx = true;
    else if (c === 'IFEQ') options.ifeq = propertyValue(obj, 'matchValue') ?? condition;
    else if (c === undefined) options.dynamic = true;
  }
  if (obj.properties.some((p) => ownOption(p))) options.ownOptions = true;
  const expiration = propertyValue(obj, 'expiration');
  if (expiration) {
    const exp = unwrap(expiration);
    if (ts.isObjectLiteralExpression(exp)) {
      const type = literalString(propertyValue(exp, 'type') ?? exp)?.toUpperCase();
      if (type && TTL_UNITS.has(type)) options.ttl = { unit: type as TtlUnit, value: propertyValue(exp, 'value') };
      else options.dynamic = true;
    } else if (literalString(exp)?.toUpperCase() === 'KEEPTTL') options.ttl = { unit: 'KEEPTTL' };
    else options.dynamic = true;
  }
  return options;
}
