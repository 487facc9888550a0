// Text tests that decide, before any parse, which files without lock code of their own may still
// need the project-wide analysis. Cheap enough to run on every file of a workspace, and free of the
// parser, so `lockwise check`'s main thread can run them.
import type { HelperNames } from '../config';
import { LOCK_NAME } from '../engine/lock-name';

const REDIS_CLIENT = /redis|valkey/i;
const COMMAND_CALL = /\.\s*(?:set|setnx|setNX|del|unlink|expire|pexpire|pExpire|eval|evalsha|evalSha|sendCommand)\s*\(/;
/**
 * `coordinator.acquire(`, `.using(`, `claims.acquireMatchOwnership(`: a lock library's object, or a
 * project helper, imported under a name without a lock word.
 */
const ACQUIRE_CALL = /\.\s*(?:tryAcquire|acquire)\w*\s*\(|\.\s*using\s*\(/;
const IMPORT = /\bfrom\s*['"]|\b(?:require|import)\s*\(\s*['"]/;

// `return this.client.del(key)`, `=> redis.set(k, v, opts)`, `await client.del(key)`: a command call a
// function hands back or awaits as a statement, the shapes a thin wrapper has.
const FORWARDS_COMMAND = /(?:return|=>|[;{]\s*await)\s*(?:await\s+)?[\w$]+(?:\s*\??\.\s*[\w$]+)*\s*\??\.\s*(?:set|setnx|setNX|del|unlink|expire|pexpire|pExpire|eval|evalsha|evalSha|sendCommand)\s*\(/;

/** A module that may hold a thin command wrapper (engine/wrappers.ts): it wraps Redis and hands a command's reply back. */
export function mayWrapCommands(text: string): boolean {
  return REDIS_CLIENT.test(text) && COMMAND_CALL.test(text) && FORWARDS_COMMAND.test(text);
}

/** Kept by a lean parse of a wrapper module: its thin wrappers of these methods carry no other lock word. */
const WRAPPED_METHODS = ['set(', 'get(', 'del(', 'expire(', 'pexpire(', 'pExpire(', 'eval(', 'call('];

/** `helpers` with the words a lean parse of this file must also keep (engine/lock-text.ts): a wrapper module's methods. */
export function leanParseKeeps(text: string, helpers: HelperNames): HelperNames {
  return mayWrapCommands(text) ? { ...helpers, acquire: [...helpers.acquire, ...WRAPPED_METHODS] } : helpers;
}

type Spans = ReadonlyArray<readonly [number, number]>;

/** The blanked spans leanParseKeeps' words would have kept: the declarations that may be thin wrappers. */
export function wrapperSpans(text: string, blanked: Spans): Spans {
  return blanked.filter(([start, end]) => {
    const span = text.slice(start, end);
    return WRAPPED_METHODS.some((word) => span.includes(word));
  });
}

// The name a declaration declares: a function or class statement, or a class member.
const DECLARED_NAME = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:(?:export|default|declare|abstract|async|public|private|protected|static|readonly|override|accessor|function|class|[gs]et(?=\s+[\w$#[]))(?![\w$])\s*\*?\s*)*([\w$#]+)/;

/**
 * Does the kept text of a lean parse name a declaration of `spans` (or one whose name cannot be read)?
 * A call to a thin wrapper of the file itself then needs the wrapper parsed.
 */
export function namesAnyOf(text: string, kept: string, spans: Spans): boolean {
  return spans.some(([start, end]) => {
    const name = DECLARED_NAME.exec(text.slice(start, end))?.[1];
    return !name || new RegExp(`(?<![\\w$#])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(kept);
  });
}

/**
 * A file that may call a project lock helper: it has a lock word (the helper's name, an import path
 * like `./redis-lock`, a `lockKey`) and imports something. Whether an import resolves to a module
 * with lock helpers is then asked of the project index (ProjectIndex.importsLockHelpers).
 */
export function mayCallLockHelpers(text: string): boolean {
  // IMPORT first: it answers at the first import of most files, and a quarter of a package corpus's text
  // (compiled bundles, scripts) imports nothing, which spares the two slower tests their whole text.
  if (!IMPORT.test(text) || !(LOCK_NAME.test(text) || ACQUIRE_CALL.test(text) || mayClaimThroughStore(text))) return false;
  const code = text.replace(LINE_COMMENTS, ' ');
  return (LOCK_NAME.test(code) || ACQUIRE_CALL.test(code) || mayClaimThroughStore(code)) && IMPORT.test(code);
}

/** `putIfMissing(` ... `finally`: an in-flight claim through a store's put-if-absent, with no lock word (call-site-ops.ts pairedStoreOps). */
const PUT_IF_ABSENT_CALL = /(?:if_?not_?exists?|if_?absent|if_?missing)\s*\(/i;
const FINALLY = /\bfinally\b/;

function mayClaimThroughStore(text: string): boolean {
  return FINALLY.test(text) && PUT_IF_ABSENT_CALL.test(text);
}

/**
 * Comments that open a line, where `//` and `/*` cannot be inside a string: a lock word there (`//
 * optimistic lock`, a JSDoc example of `sentinel.acquire()`) calls nothing. On the corpus, two such files
 * of a Redis client had the whole client summarised for them, a fifth of the analysis worker's time.
 */
const LINE_COMMENTS = /^[ \t]*(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*)/gm;
