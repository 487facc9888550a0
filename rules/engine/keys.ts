// Lock keys: how a key expression is compared with another and turned into a Redis glob.
import { ts } from './typescript';
import { LOCK_NAME } from './lock-name';
import { returnedText } from './written-text';
import { ancestorWhere, declarationOf, descendantsOfKind, functionNameOf, isAssignment, isConstList, isFunctionLike, isPlus, literalString, normalizeText, unwrap } from './nodes';

export interface KeyRef {
  node: ts.Node;
  /** The expression as written (whitespace-free). */
  text: string;
  /** The text after following `const` aliases in the file: `key` -> `` `lock:${id}` ``. */
  canonical: string;
  /** Redis glob of the key's possible values: `lock:order:*`; `*` when nothing is known. */
  glob: string;
  /** canonical and glob together: what KeyIndex answers by. */
  id: string;
  /**
   * The functions whose parameters the key is built from: `this.key(key)` in two methods of a cache
   * class is two keys, the parameter of one function not being the parameter of another.
   */
  owners: readonly ts.Node[];
  /** Every owner is lock code (isLockFunction), so a parameter may be passed along it: decided once per key. */
  lockOwners: boolean;
  /** Each key a `KEYS pattern` (or SCAN MATCH) listed: any key its glob matches, whoever wrote it. */
  listed?: boolean;
  /**
   * A key a helper or wrapper builds around the node (`CacheKeys.receipt(${orderId})` for the argument
   * `orderId`): the text written before and after it, which a summary of the caller must keep.
   */
  around?: { head: string; tail: string };
}

/** The initializer of the `const` an identifier refers to, found through its own scopes. */
export type ConstLookup = (identifier: ts.Node) => ts.Expression | undefined;

const MAX_ALIAS_DEPTH = 4;

function resolveAlias(node: ts.Node, lookup: ConstLookup, depth = 0): ts.Node {
  const n = unwrap(node);
  if (depth < MAX_ALIAS_DEPTH && ts.isIdentifier(n)) {
    const init = lookup(n);
    if (init) return resolveAlias(init, lookup, depth + 1);
  }
  return n;
}

export function globOf(node: ts.Node, lookup: ConstLookup, depth = 0): string {
  const n = unwrap(node);
  const literal = literalString(n);
  if (literal !== undefined) return escapeGlob(literal);
  if (ts.isTemplateExpression(n)) {
    let glob = escapeGlob(n.head.text);
    for (const span of n.templateSpans) {
      glob += `${depth < MAX_ALIAS_DEPTH ? globOf(span.expression, lookup, depth + 1) : '*'}${escapeGlob(span.literal.text)}`;
    }
    return collapse(glob);
  }
  if (isPlus(n)) {
    return collapse(globOf(n.left, lookup, depth + 1) + globOf(n.right, lookup, depth + 1));
  }
  if (ts.isIdentifier(n) && depth < MAX_ALIAS_DEPTH) {
    const init = lookup(n);
    if (init) return globOf(init, lookup, depth + 1);
  }
  if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) return returnedKeyGlob(n.expression) ?? '*';
  // `this.lockKey(id)`: a method of the class.
  const method = ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.expression.kind === ts.SyntaxKind.ThisKeyword ? n.expression.name : undefined;
  if (method && ts.isIdentifier(method)) return returnedKeyGlob(method) ?? '*';
  return '*';
}

/**
 * `lockedKey(id)` of `function lockedKey(id) { return \`lockout:locked:${id}\`; }` (or an arrow, or a
 * method called on `this`): the glob
 * of the string or template a key function of the file returns (written-text.ts reads it).
 */
function returnedKeyGlob(callee: ts.Identifier): string | undefined {
  const text = returnedText(callee.getSourceFile(), callee.text);
  const literal = text && /^([`'"])([\s\S]*)\1$/.exec(text)?.[2];
  const glob = literal === undefined || literal === '' ? undefined : globOfText(literal);
  return glob && informative(glob) ? glob : undefined;
}

const GLOB_SPECIAL = /[*?[\]\\]/;

function escapeGlob(s: string): string {
  return GLOB_SPECIAL.test(s) ? s.replace(/[*?[\]\\]/g, (c) => `\\${c}`) : s;
}

function collapse(glob: string): string {
  return glob.includes('**') ? glob.replace(/\*+/g, '*') : glob;
}

/** The functions whose parameters `expression` reads, and the lists its loop variables run over (few: a key names one or two). */
function parameterOwners(expression: ts.Node): ts.Node[] {
  const owners: ts.Node[] = [];
  const n = unwrap(expression);
  // In document order, without collecting the identifiers first; names after a `.` are properties.
  const visit = (d: ts.Node): void => {
    if (!ts.isIdentifier(d)) ts.forEachChild(d, visit);
    else if (!(ts.isPropertyAccessExpression(d.parent) && d.parent.name === d)) addOwner(d, owners);
  };
  if (ts.isIdentifier(n)) addOwner(n, owners);
  else ts.forEachChild(n, visit);
  return owners;
}

function addOwner(id: ts.Identifier, owners: ts.Node[]): void {
  const decl = declarationOf(id);
  const owner = !decl ? undefined : ts.isParameter(decl) ? decl.parent : loopSource(decl);
  if (owner && !owners.includes(owner)) owners.push(owner);
}

/** The `for (const key of list)` (or `in`) statement that declares `decl`. */
function loopOf(decl: ts.VariableDeclaration | ts.ParameterDeclaration | undefined): ts.ForOfStatement | ts.ForInStatement | undefined {
  const loop = decl && ts.isVariableDeclaration(decl) ? decl.parent.parent : undefined;
  return loop && (ts.isForOfStatement(loop) || ts.isForInStatement(loop)) ? loop : undefined;
}

/** The list a `for (const key of list)` variable runs over. */
function loopList(id: ts.Identifier): ts.Expression | undefined {
  const loop = loopOf(declarationOf(id));
  return loop && ts.isForOfStatement(loop) ? loop.expression : undefined;
}

/**
 * What a `for (const key of keys)` variable is bound to: the list's declaration (two loops over one
 * list share their keys: acquire all, then release all), else the loop. `key` of `acquiredKeys` is
 * not `key` of `requestedKeys`.
 */
function loopSource(decl: ts.VariableDeclaration): ts.Node | undefined {
  const loop = loopOf(decl);
  if (!loop) return undefined;
  const list = unwrap(loop.expression);
  return (ts.isIdentifier(list) && declarationOf(list)) || loop;
}

/** What a key written as the name of a `const` reads through it: the same for every use of that const. */
export interface ConstKey {
  canonical: string;
  glob: string;
  owners: readonly ts.Node[];
  lockOwners: boolean;
  listed: boolean;
}

/**
 * The key `node` names. `consts` (one per model: initializers are its nodes) answers each `const` once,
 * for its every use: `const key = ...` is written to by SET, EXPIRE and DEL alike.
 */
export function keyRef(node: ts.Node, lookup: ConstLookup, consts?: Map<ts.Node, ConstKey>): KeyRef {
  const written = unwrap(node);
  const text = normalizeText(written);
  const init = consts && ts.isIdentifier(written) ? lookup(written) : undefined;
  let read = init && consts?.get(init);
  if (!read) {
    const resolved = resolveAlias(node, lookup);
    const owners = parameterOwners(resolved);
    const list = ts.isIdentifier(resolved) ? loopList(resolved) : undefined;
    const pattern = list && listedPattern(list, lookup);
    read = {
      // `key` of `for (const key of held)` and `k` of `for (const k of held)`: the same keys, by their list.
      canonical: list ? `[each of ${normalizeText(list)}]` : resolved === written ? text : normalizeText(resolved),
      glob: pattern ?? globOf(node, lookup),
      owners,
      lockOwners: owners.every((fn) => isFunctionLike(fn) && isLockFunction(fn)),
      listed: !!pattern,
    };
    if (init) consts?.set(init, read);
  }
  const key: KeyRef = { node, text, canonical: read.canonical, glob: read.glob, id: `${read.canonical}\0${read.glob}`, owners: read.owners, lockOwners: read.lockOwners };
  if (read.listed) key.listed = true;
  return key;
}

/**
 * The pattern of `await redis.keys('lease:*')` or `redis.scanIterator({ MATCH: 'lease:*' })`, the list
 * a loop runs over: its keys are every key of that glob (a sweep over the locks of one kind).
 */
function listedPattern(list: ts.Node, lookup: ConstLookup): string | undefined {
  let n = resolveAlias(list, lookup);
  if (ts.isAwaitExpression(n)) n = unwrap(n.expression);
  if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(unwrap(n.expression))) return undefined;
  const method = (unwrap(n.expression) as ts.PropertyAccessExpression).name.text;
  const arg = n.arguments[0] && unwrap(n.arguments[0]);
  if (!arg) return undefined;
  if (/^keys$/i.test(method)) return spelledPattern(arg, lookup);
  if (!/^scan(?:Iterator|Stream)$/.test(method) || !ts.isObjectLiteralExpression(arg)) return undefined;
  const match = arg.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && /^match$/i.test(p.name.getText()));
  return match ? spelledPattern(match.initializer, lookup) : undefined;
}

/** A pattern written as text and constants: `'lease:*'`, `LEASE_PREFIX + '*'`, `` `${PREFIX}*` ``. */
function spelledPattern(node: ts.Node, lookup: ConstLookup, depth = 0): string | undefined {
  const n = unwrap(node);
  const literal = literalString(n);
  if (literal !== undefined || depth > MAX_ALIAS_DEPTH) return literal;
  if (isPlus(n)) {
    const [left, right] = [spelledPattern(n.left, lookup, depth + 1), spelledPattern(n.right, lookup, depth + 1)];
    return left !== undefined && right !== undefined ? left + right : undefined;
  }
  if (ts.isTemplateExpression(n)) {
    let text = n.head.text;
    for (const span of n.templateSpans) {
      const part = spelledPattern(span.expression, lookup, depth + 1);
      if (part === undefined) return undefined;
      text += part + span.literal.text;
    }
    return text;
  }
  const init = ts.isIdentifier(n) ? lookup(n) : undefined;
  return init ? spelledPattern(init, lookup, depth + 1) : undefined;
}

function globOfText(text: string): string {
  return collapse(escapeGlob(text.replace(/\$\{[^}]*\}/g, '\0')).replace(/\0/g, '*'));
}

/** A key made of text and other keys in turn: `billing-${id}` from a helper's `${opts.namespace}-${opts.key}`. */
export function piecedKey(node: ts.Node, pieces: ReadonlyArray<string | KeyRef>): KeyRef {
  const spell = (of: (k: KeyRef) => string) => pieces.map((p) => (typeof p === 'string' ? p : `\${${of(p)}}`)).join('');
  const keys = pieces.filter((p): p is KeyRef => typeof p !== 'string');
  const glob = collapse(pieces.map((p) => (typeof p === 'string' ? escapeGlob(p) : p.glob)).join(''));
  const canonical = spell((k) => k.canonical);
  return { node, text: spell((k) => k.text), canonical, glob, id: `${canonical}\0${glob}`, owners: keys.flatMap((k) => k.owners), lockOwners: keys.every((k) => k.lockOwners) };
}

/**
 * A key built around another: the `lock:${key}` a project helper makes of its argument, or a key
 * known only by where it lives (`inner` undefined, `head` naming it).
 */
export function composedKey(node: ts.Node, inner: KeyRef | undefined, head: string, tail: string, glob?: string): KeyRef {
  const wraps = !head.endsWith('(') && !tail.startsWith('.');
  const composedGlob = glob ?? (wraps && inner ? collapse(globOfText(head) + inner.glob + globOfText(tail)) : '*');
  const text = inner ? `${head}\${${inner.text}}${tail}` : head;
  const canonical = inner ? `${head}\${${inner.canonical}}${tail}` : head;
  const around = inner ? { head: head + (inner.around?.head ?? ''), tail: (inner.around?.tail ?? '') + tail } : undefined;
  return { node, text, canonical, glob: composedGlob, id: `${canonical}\0${composedGlob}`, owners: inner?.owners ?? [], lockOwners: inner?.lockOwners ?? true, around };
}

// The verbs of lock code: an acquire, release or renewal function whatever it is called on.
const LOCK_FUNCTION = /acquire|release|extend|renew|refresh|heartbeat|keep_?alive|watchdog|^(?:try)?(?:take|grab|free)(?![a-z])/i;

// The verb acting on something a name says is not a lock: `extendTtl(key)`, `refreshToken(key)`,
// `releaseConnection(conn)` in a cache or client class share no key with its `acquireLock(key)`.
// `isReleaseGroupComplete`, `buildReleaseNotes`: a software release, the noun.
const OTHER_OBJECT = /(?:acquire|release|extend|renew|refresh)_?(?:ttl|expiry|expiration|cache|cached|token|session|connection|client|pool|subscription|stream|cursor)|release_?(?:notes?|groups?|versions?|tags?|trains?|candidates?|branch|channels?|dates?|builds?|artifacts?|assets?)/i;

// `AccountLockoutService`, `auth/lockout.ts`, `LockedAccounts`: a locked state, not lock code.
const STATE_WORDS = /lock_?-?(?:out|down)|locked/gi;

// A function named for a set-once marker: something seen, processed or done once (deduplication, idempotency).
const MARKER_FUNCTION = /seen|dedup|idempoten|processed|once(?![a-z])|nonce|replay|first_?time/i;

/**
 * Functions of one lock module pass a key from parameter to parameter (`acquireLock(key)` and
 * `releaseLock(key)`): a function named like lock code, in a class, object or file named like one.
 */
export function isLockFunction(fn: ts.Node): boolean {
  // Not cached by node: an incremental re-parse keeps a method's node when only its class is renamed.
  const name = functionNameOf(fn);
  if (LOCK_NAME.test(name) || (LOCK_FUNCTION.test(name) && !OTHER_OBJECT.test(name))) return true;
  // `markEventSeen(id)` beside the locks of `redis-lock.ts`: a set-once marker, named as one.
  if (MARKER_FUNCTION.test(name)) return false;
  const holder = ancestorWhere(fn, (a) => ts.isClassLike(a) || ts.isObjectLiteralExpression(a));
  if (holder && LOCK_NAME.test(functionNameOf(holder).replace(STATE_WORDS, ''))) return true;
  // The file and its folder: `redis-lock.ts`, `locks/index.ts`, `lock/core.ts` (not `auth/lockout.ts`).
  return LOCK_NAME.test(fn.getSourceFile().fileName.split(/[\\/]/).slice(-2).join('/').replace(STATE_WORDS, ''));
}

/** Are two keys' parameters the same bindings (or parameters passed along one lock module)? */
function sameBindings(a: KeyRef, b: KeyRef): boolean {
  // Asked of every pair of keys in a bucket: the cheap answers first, and no closure per call.
  if (a.owners.length === 0 && b.owners.length === 0) return true;
  if (a.lockOwners && b.lockOwners) return true;
  if (a.owners.length !== b.owners.length) return false;
  for (const owner of a.owners) if (!b.owners.includes(owner)) return false;
  return true;
}

/**
 * Same key: the same expression after following `const` aliases in their own scopes, over the same
 * bindings (two functions' `const key = ...` differ by initializer; a parameter of one function is
 * another function's only inside one lock module), or the same informative glob when it is a lock's.
 */
export function sameKey(a: KeyRef, b: KeyRef): boolean {
  if (a === b) return true;
  if (a.canonical === b.canonical && sameBindings(a, b)) return true;
  return informative(a.glob) && a.glob === b.glob && (LOCK_NAME.test(a.glob) || !!a.listed || !!b.listed || sameBindings(a, b)) && !otherMember(a.canonical, b.canonical);
}

const SUBSTITUTION = /\$\{([^{}]*)\}/g;
const MEMBER_CHAIN = /^[\w$]+(?:\??\.[\w$]+)+$/;

/**
 * `${p}_${message.meta.id}` and `${p}_${message.sha1}`: templates alike but for a part that is another
 * member of the same object, an event's id and its hash. Two keys, though their globs are one.
 */
function otherMember(a: string, b: string): boolean {
  if (a === b || !a.startsWith('`') || !b.startsWith('`')) return false;
  const partsA = [...a.matchAll(SUBSTITUTION)].map((m) => m[1]);
  const partsB = [...b.matchAll(SUBSTITUTION)].map((m) => m[1]);
  if (partsA.length !== partsB.length || a.replace(SUBSTITUTION, '*') !== b.replace(SUBSTITUTION, '*')) return false;
  return partsA.some((x, i) => {
    const y = partsB[i];
    return x !== y && MEMBER_CHAIN.test(x) && MEMBER_CHAIN.test(y) && x.split(/\??\./)[0] === y.split(/\??\./)[0];
  });
}

/** A glob that says more than "any key": has a literal part of at least 3 characters. */
export function informative(glob: string): boolean {
  // Counted, not replaced: asked of every key filed and found.
  let literal = 0;
  for (let i = 0; i < glob.length && literal < 3; i++) if (glob.charCodeAt(i) !== STAR) literal++;
  return literal >= 3;
}

const STAR = 42;


/** Does the key's glob, text or name say it is a lock ("lock:x", `lockKey`, `this.mutexName`)? */
export function looksLikeLockKey(key: KeyRef): boolean {
  if (namesLockedState(key) || namesDataAboutLock(key)) return false;
  return LOCK_NAME.test(key.glob) || LOCK_NAME.test(key.text) || LOCK_NAME.test(key.canonical);
}

// `editLockSeatsCountCacheKey(id)`, `EDIT_LOCK_USERS_CACHE_PREFIX`, `editLockTakeoverAckKey`: one name
// whose last word is data about a lock (a cache, a count, an acknowledgement, its event stream), not the
// lock: English compounds end in their head noun. `cacheLockKey` is a lock. A key's segments
// (`lock:cache:<id>`) are a namespace and a resource, so the name never spans a colon or a dot.
const ABOUT_LOCK_HEADS = ['cache', 'cached', 'count', 'counter', 'ack', 'acks', 'acknowledgement', 'stream', 'event', 'events', 'stats', 'metrics', 'history', 'audit'];
const title = (w: string) => w[0].toUpperCase() + w.slice(1);
const DATA_ABOUT_LOCK = new RegExp(
  `(?:(?<![a-zA-Z])lock|Lock|(?<![A-Z])LOCK|[mM]utex|MUTEX|[sS]emaphore|SEMAPHORE)[\\w$-]*?` +
    `(?:${ABOUT_LOCK_HEADS.map(title).join('|')}|[_-](?:${ABOUT_LOCK_HEADS.join('|')}|${ABOUT_LOCK_HEADS.map((w) => w.toUpperCase()).join('|')}))` +
    `(?:Key|Prefix|Name|[_-](?:key|prefix|name|KEY|PREFIX|NAME))?(?![a-zA-Z])`,
);

/** Does the key's name, as written, say it holds data about a lock rather than the lock? */
export function namesDataAboutLock(key: KeyRef): boolean {
  return DATA_ABOUT_LOCK.test(key.text) || DATA_ABOUT_LOCK.test(key.canonical);
}

// `otp_locked:<user>`, `security:lockout:<user>`, `locked_payments_for_<user>`, `server:lockdown`: a state
// ("this account is locked until...", "payments held for...", maintenance mode) written by its own
// logic, not a mutex anyone acquires.
const LOCKED_STATE = /(?<![a-z])(?:un)?locked(?![a-z])|(?<![a-z])locked_|lock_?(?:out|down)/i;

/** The string parts a key is built from: `keyFor('auth', 'lockout', id)` has 'auth' and 'lockout'. */
const STRING_PART = /'([^'\n]*)'|"([^"\n]*)"/g;

/** Does the key's own text (its glob, or the strings it is built from; not the variable it is held in) name a locked state rather than a lock? */
export function namesLockedState(key: KeyRef): boolean {
  // The glob, or the key as written: `${LOCKOUT_KEY}:${email}` of a failed-attempt counter.
  if (LOCKED_STATE.test(key.glob) || LOCKED_STATE.test(key.text)) return true;
  for (const [, single, double] of key.canonical.matchAll(STRING_PART)) if (LOCKED_STATE.test(single ?? double)) return true;
  return false;
}

// `cooldown:bet:<user>`, `throttle:<ip>`, `ratelimit:<key>`: a window in which a repeat is refused. Its
// TTL is the point, and a race that lets two requests through is the limiter's imprecision, not a
// claim on work that must run once.
const RATE_LIMIT = /cool_?-?down|throttl|rate_?-?limit|debounce/i;

/** Does the key's own text name a rate limit (a cooldown, a throttle) rather than a once-only claim? */
export function namesRateLimit(key: KeyRef): boolean {
  return RATE_LIMIT.test(key.glob) || writtenAsRateLimit(key.node);
}

/**
 * `let lockKey = null; ... lockKey = \`sandbox-\${id}-restored-cooldown\``: a variable of the key's function
 * that it assigns only rate-limit keys to (the key's glob cannot follow a `let`).
 */
function writtenAsRateLimit(node: ts.Node): boolean {
  const id = unwrap(node);
  if (!ts.isIdentifier(id)) return false;
  const decl = declarationOf(id);
  if (!decl || !ts.isVariableDeclaration(decl) || isConstList(decl.parent)) return false;
  // A function's own variable: all its writes are in that function, which a lean parse keeps or blanks whole.
  const scope = ancestorWhere(decl, isFunctionLike);
  if (!scope) return false;
  const written = descendantsOfKind<ts.BinaryExpression>(scope, ts.SyntaxKind.BinaryExpression)
    .filter((b) => isAssignment(b) && ts.isIdentifier(unwrap(b.left)) && (unwrap(b.left) as ts.Identifier).text === id.text)
    .map((b) => b.right);
  if (decl.initializer && unwrap(decl.initializer).kind !== ts.SyntaxKind.NullKeyword) written.push(decl.initializer);
  return written.length > 0 && written.every((w) => RATE_LIMIT.test(w.getText()));
}

// `circuit_probe:<host>`, `breaker:half-open:<svc>`: a circuit breaker's state, its half-open probe slot
// taken with NX and cleared by whoever sees the circuit close or trip. Admission control, like a rate
// limit: not a lock a holder releases.
const CIRCUIT = /circuit|breaker|half_?-?open/i;

/** Does the key's own text name a circuit breaker's state, or an account lockout (`lockout:locked:<user>`)? */
export function namesCircuitState(key: KeyRef): boolean {
  return CIRCUIT.test(key.glob) || LOCKOUT.test(key.glob) || inCircuitBreaker(key.node);
}

/** `cb:${host}:probe_lock` written in `class CircuitBreaker` or `circuit-breaker.ts`: the breaker's own state. */
function inCircuitBreaker(node: ts.Node): boolean {
  const cls = ancestorWhere(node, ts.isClassLike);
  if (cls && CIRCUIT.test(functionNameOf(cls))) return true;
  return CIRCUIT.test(node.getSourceFile().fileName.split(/[\\/]/).pop() ?? '');
}

// An account locked out after failed logins, or a maintenance lockdown: set once with NX so a running
// lockout is not restarted, cleared by a successful login or an admin. Admission state, not a mutex.
const LOCKOUT = /lock_?-?(?:out|down)/i;

/** How a message names a key: `key (lock:order:*)` when the expression alone does not say. */
/** A key written over several lines (an options object) is shown on one, cut at this length. */
const SHOWN_KEY = 60;

export function describeKey(key: KeyRef | undefined): string {
  if (!key) return 'the lock';
  // `lockKey(id) as never`: the cast says nothing of the key.
  const text = unwrap(key.node).getText();
  const oneLine = text.includes('\n') ? text.replace(/\s+/g, ' ') : text;
  const written = oneLine.length > SHOWN_KEY && oneLine !== text ? `${oneLine.slice(0, SHOWN_KEY)}…` : oneLine;
  const literal = written.replace(/^['"`]|['"`]$/g, '');
  return informative(key.glob) && literal !== key.glob ? `${written} (${key.glob})` : written;
}

/** An item filed under its key, and the canonical bucket the key is filed under. */
interface Entry<T> {
  item: T;
  key: KeyRef;
  bucket: Entry<T>[];
}

/**
 * Items by key, so "everything on the same key" is a map lookup rather than a scan (see sameKey).
 * An item's bucket tells whether its canonical is the one asked for, and what sameKey reads of the key
 * asked for is read once per find: a lock module's every function writes the same key, so a bucket
 * holds hundreds of items.
 */
export class KeyIndex<T> {
  private readonly byCanonical = new Map<string, Entry<T>[]>();
  private readonly byGlob = new Map<string, Entry<T>[]>();
  /** Buckets holding a key whose owners are not all lock code (the others match every lock-code key). */
  private readonly mixed = new Set<Entry<T>[]>();
  // Many operations share one key (every function of a lock module): answer each key once.
  private readonly answers = new Map<string, T[]>();
  private readonly answersByKey = new Map<KeyRef, T[]>();
  /** By KeyRef id: the answer for lock-code keys over buckets of lock-code keys only, whatever their owners. */
  private readonly lockCodeAnswers = new Map<string, T[]>();

  add(key: KeyRef, item: T): void {
    let bucket = this.byCanonical.get(key.canonical);
    if (!bucket) this.byCanonical.set(key.canonical, (bucket = []));
    const entry = { item, key, bucket };
    bucket.push(entry);
    if (!key.lockOwners) this.mixed.add(bucket);
    if (informative(key.glob)) {
      const glob = push(this.byGlob, key.glob, entry);
      if (!key.lockOwners) this.mixed.add(glob);
    }
    // Clearing allocates a new table, and indexes are filled before they are asked.
    if (this.answers.size > 0) this.answers.clear();
    if (this.answersByKey.size > 0) this.answersByKey.clear();
    if (this.lockCodeAnswers.size > 0) this.lockCodeAnswers.clear();
  }

  find(key: KeyRef): T[] {
    let answer = this.answersByKey.get(key);
    if (answer) return answer;
    const id = key.owners.length === 0 ? key.id : `${key.id}\0${key.owners.map((o) => o.pos).join(',')}`;
    answer = this.answers.get(id);
    if (!answer) {
      const exact = this.byCanonical.get(key.canonical);
      const informativeGlob = informative(key.glob);
      const glob = informativeGlob ? this.byGlob.get(key.glob) : undefined;
      // sameBindings holds for every pair of lock-code keys, so the owners of such a key do not change the answer.
      const lockCode = key.lockOwners && !(exact && this.mixed.has(exact)) && !(glob && this.mixed.has(glob));
      answer = lockCode ? this.lockCodeAnswers.get(key.id) : undefined;
      if (!answer) {
        // sameKey, with what it reads of `key` and what the buckets already say.
        const globOfLock = informativeGlob && (LOCK_NAME.test(key.glob) || !!key.listed);
        answer = [];
        if (exact) {
          for (const e of exact) if (sameBindings(key, e.key) || (globOfLock && key.glob === e.key.glob)) answer.push(e.item);
        }
        if (glob) for (const e of glob) if (e.bucket !== exact && (globOfLock || e.key.listed || sameBindings(key, e.key)) && !otherMember(key.canonical, e.key.canonical)) answer.push(e.item);
        if (lockCode) this.lockCodeAnswers.set(key.id, answer);
      }
      this.answers.set(id, answer);
    }
    this.answersByKey.set(key, answer);
    return answer;
  }
}

function push<T>(map: Map<string, T[]>, k: string, item: T): T[] {
  let list = map.get(k);
  if (list) list.push(item);
  else map.set(k, (list = [item]));
  return list;
}
