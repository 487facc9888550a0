// A cheap text test that decides whether a file can hold lock code at all, so that only those files
// are parsed. It must never say no to a file that a rule could report on: test/rules/prefilter.test.ts
// holds it to every rule table, doc example and example file. It reads the text as written, so code
// that spells a command or an option only through escapes or by joining fragments is not seen.
//
// Every finding starts from one of these in the lock model (engine/model.ts, engine/libraries.ts):
// - a Redis NX acquire: SET with an NX option (GLIDE: onlyIfDoesNotExist), or SETNX, as a call or inside Lua;
// - a lock library: redlock, redis-semaphore, the redis-lock package, Lockwise's withLock;
// - a DEL/UNLINK/GETDEL/DELEX/DELIFEQ, an EXPIRE, a SET XX or a Lua delete, with a key or a function named
//   like a lock (LOCK_NAME, the engine's own test);
// - a plain SET with a TTL (or a SETEX) after a GET or an EXISTS: a GET-compare-SET renewal, a check-then-SET
//   acquire, or a once-only claim by GET then SET of a marker; or in a function named as an acquire
//   (`acquireLock`, `setLock`, `lock`), which takes the lock without NX;
// - a lock object's extend in a timer (`jobLock.extend(ttl)` in a setInterval, `locks.extendLock(lock, ttl)`), of any package;
// - a Lua script kept in a file of its own (`readFileSync(... 'lock.lua')`) and run with EVAL: the
//   project layer reads the script (engine/script-files.ts);
// - a call to a helper named in the config.
import type { HelperNames } from '../config';
import { LOCK_NAME } from './lock-name';

/**
 * A command as the engine reads one: a method (`.del(`, `?.setNX(`, bluebird's `.delAsync(`) or a whole string (`'DEL'` in
 * `call()`, `sendCommand([...])`, `redis['del']` or Lua, where it may be `\"DEL\"`). A string followed
 * by `:` is an object key or a `case` label, never a command (command tables list every name that way).
 */
const command = (names: string) => new RegExp(`\\.\\s*(?:${names})(?:Async)?\\b|['"\`](?:${names})\\\\?['"\`](?!\\s*:)`, 'i');
/** An option as a string (`'NX'`, `"nx"` in Lua) or an object key (`NX:`, `'NX':`). */
const option = (name: string) => new RegExp(`['"\`]${name}\\b|\\b${name}['"\`]?\\s*:`, 'i');

// Command names the screen below needs as well.
const SETNX_NAME = 'setnx';
const SETEX_NAMES = 'p?setex';
const DELETE_OR_EXPIRE_NAMES = 'del|unlink|getdel|delex|delifeq|p?expire(?:at)?';

const SET = command('set');
const SETNX = command(SETNX_NAME);
const NX = option('nx');
const GLIDE_NX = /['"`]onlyIfDoesNotExist['"`]/;
const XX = option('xx');
/** The read a check-then-SET acquire decides on: GET or EXISTS. */
const GET_OR_EXISTS = command('get|exists');
/** `.set(key, 'done', 'EX', ...)`, `.set(key, owner, 'EX', ...)`: a marker (a literal or a name) written with a TTL, the SET of a once-only claim. */
const MARKER_SET = /\.\s*set\s*\(\s*[^,()]+,\s*(?:'[^'\n]*'|"[^"\n]*"|\d+|true|[A-Za-z_$][\w$]*)\s*,\s*['"`](?:ex|px)['"`]/i;
const TTL = /['"`](?:ex|px)['"`]|\b(?:EX|PX)['"`]?\s*:/i;
/**
 * A function named as taking a lock (`acquireLock`, `setLock`, `lock(`), or an `acquire(...) {` method
 * (of a lock class: LOCK_NAME is asked too): exclusive-acquire's plain SET in an acquire.
 */
const ACQUIRE_NAMED = /(?:acquire|take|grab|claim|obtain|reserve|set|create|add|try|do)_?(?:lock|mutex)|(?<![\w$.])lock\s*[(=:]|(?<![\w$.])(?:try_?)?(?:acquire|take|grab|claim|obtain)\s*\([^()]*\)[^;{]*\{/i;
/** SETEX/PSETEX: a SET with a TTL, spelled as its own command. */
const SETEX = command(SETEX_NAMES);
const DELETE_OR_EXPIRE = command(DELETE_OR_EXPIRE_NAMES);
// Lua also releases by removing the holder from a zset or a hash (redis-semaphore, Redisson).
const LUA_DELETE = /['"`](?:zrem|hdel)\\?['"`]/i;

// redlock: imported or required from its module, constructed as `Redlock`, or an object whose name
// says redlock, with one of the calls the engine reads on it.
const REDLOCK_MODULE = /['"`](?:@sesamecare-oss\/)?redlock['"`]/;
const REDLOCK_CLASS = /\bRedlock\b/;
const REDLOCK_WORD = /redlock/i;
const LIBRARY_CALL = /\.\s*(?:acquire|lock|using|release|unlock|extend)\b|['"`](?:acquire|lock|using|release|unlock|extend)['"`]/;
// redis-semaphore: one of its classes constructed (`new Mutex(`, `new RS.RedlockSemaphore(`).
const SEMAPHORE = /\bnew\s*\(?\s*(?:[\w$]+\s*\??\.\s*)*(?:Redlock)?(?:Multi)?(?:Mutex|Semaphore)\b/;
const WITH_LOCK = /\bwithLock\b/;
// The redis-lock package, imported or required by its name; redis-semaphore's too (its classes may be renamed on import).
const REDIS_LOCK_MODULE = /['"`]redis-(?:lock|semaphore)['"`]/;

// The words every test below needs, as four regexes that together match what the one alternation of
// them all (ANY_EVIDENCE in test/rules/prefilter-screen.test.ts) matches: V8 runs each of these, led by
// a few characters (a quote, a dot, a word boundary), at about twice the speed of that alternation,
// which tries every branch at every character. Most files fail all four.
const COMMANDS = [SETNX_NAME, DELETE_OR_EXPIRE_NAMES, SETEX_NAMES].join('|');
const SCREEN = [
  /redlock|mutex|semaphore|\bwithLock\b|['"`]redis-lock['"`]|lock[\w$]*\s*\??\.\s*extend(?:Lock)?\s*\(|\.lua['"`]/i,
  // A command in a string, an option string, GLIDE's option, a Lua delete or a TTL option string.
  new RegExp(`['"\`](?:(?:${COMMANDS})\\\\?['"\`](?!\\s*:)|nx\\b|xx\\b|onlyIfDoesNotExist['"\`]|(?:zrem|hdel)\\\\?['"\`]|(?:ex|px)['"\`])`, 'i'),
  new RegExp(`\\.\\s*(?:${COMMANDS})(?:Async)?\\b`, 'i'),
  /\b(?:nx|xx|ex|px)['"`]?\s*:/i,
];

/** Has the text one of the words that every lock shape needs? */
export function hasLockEvidence(text: string): boolean {
  return SCREEN.some((words) => words.test(text));
}

// Comment blocks that open a line (JSDoc, license headers): library code documents every command and
// option there. Outside strings `/*` always opens a comment, and no string but a template spans lines.
const COMMENT_BLOCK = /^[ \t]*\/\*[\s\S]*?\*\//gm;

function usesLockLibrary(code: string): boolean {
  if (REDLOCK_MODULE.test(code) || REDLOCK_CLASS.test(code)) return true;
  if (REDLOCK_WORD.test(code) && LIBRARY_CALL.test(code)) return true;
  return SEMAPHORE.test(code) || WITH_LOCK.test(code) || REDIS_LOCK_MODULE.test(code);
}

function acquiresWithNx(code: string): boolean {
  return SETNX.test(code) || ((NX.test(code) || GLIDE_NX.test(code)) && SET.test(code));
}

function releasesOrExtendsLock(code: string): boolean {
  return LOCK_NAME.test(code) && (DELETE_OR_EXPIRE.test(code) || LUA_DELETE.test(code) || (XX.test(code) && SET.test(code)) || (((TTL.test(code) && SET.test(code)) || SETEX.test(code)) && (GET_OR_EXISTS.test(code) || ACQUIRE_NAMED.test(code))));
}

/**
 * `jobLock.extend(ttl)` in a timer: a watchdog renewing a lock object of a package the engine does not
 * know (an organisation's lock library), whose lost lock must still reach the work (stop-on-lock-lost).
 */
const LOCK_OBJECT_EXTEND = /lock[\w$]*\s*\??\.\s*extend(?:Lock)?\s*\(/i;
const TIMER = /\bset(?:Interval|Timeout)\s*\(/;
/** A Lua file's name in a string, and an EVAL to run it: the script's text is the lock code. */
const SCRIPT_FILE = /\.lua['"`]/i;
const EVAL = /\.\s*eval(?:sha)?\s*\(/i;

export function mightHoldLockCode(text: string, helpers: HelperNames): boolean {
  const names = [...helpers.acquire, ...helpers.release, ...helpers.extend];
  if (names.some((n) => text.includes(n))) return true;
  if (!hasLockEvidence(text)) return false;
  const code = text.replace(COMMENT_BLOCK, ' ');
  return usesLockLibrary(code) || acquiresWithNx(code) || releasesOrExtendsLock(code) || (MARKER_SET.test(code) && GET_OR_EXISTS.test(code)) ||
    (LOCK_OBJECT_EXTEND.test(code) && TIMER.test(code)) || (SCRIPT_FILE.test(code) && EVAL.test(code));
}
