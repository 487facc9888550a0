// Lock keys: how a key expression is compared with another and turned into a Redis glob.
import { ts } from './typescript';
import { LOCK_NAME } from './lock-name';
import { isPlus, literalString, normalizeText, unwrap } from './nodes';

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
  return '*';
}

const GLOB_SPECIAL = /[*?[\]\\]/;

function escapeGlob(s: string): string {
  return GLOB_SPECIAL.test(s) ? s.replace(/[*?[\]\\]/g, (c) => `\\${c}`) : s;
}

function collapse(glob: string): string {
  return glob.includes('**') ? glob.replace(/\*+/g, '*') : glob;
}

export function keyRef(node: ts.Node, lookup: ConstLookup): KeyRef {
  const written = unwrap(node);
  const resolved = resolveAlias(node, lookup);
  const text = normalizeText(written);
  const canonical = resolved === written ? text : normalizeText(resolved);
  const glob = globOf(node, lookup);
  return { node, text, canonical, glob, id: `${canonical}\0${glob}` };
}

/**
 * Same key: the same expression after following `const` aliases in their own scopes (two functions'
 * `const key = ...` differ by initializer; same-named parameters of a lock module's acquire and release
 * functions match by name), or the same informative glob.
 */
export function sameKey(a: KeyRef, b: KeyRef): boolean {
  if (a.canonical === b.canonical) return true;
  return informative(a.glob) && a.glob === b.glob;
}

/** A glob that says more than "any key": has a literal part of at least 3 characters. */
export function informative(glob: string): boolean {
  return glob.replace(/\*/g, '').length >= 3;
}


/** Does the key's glob, text or name say it is a lock ("lock:x", `lockKey`, `this.mutexName`)? */
export function looksLikeLockKey(key: KeyRef): boolean {
  return LOCK_NAME.test(key.glob) || LOCK_NAME.test(key.text) || LOCK_NAME.test(key.canonical);
}

/** How a message names a key: `key (lock:order:*)` when the expression alone does not say. */
export function describeKey(key: KeyRef | undefined): string {
  if (!key) return 'the lock';
  const written = key.node.getText();
  const literal = written.replace(/^['"`]|['"`]$/g, '');
  return informative(key.glob) && literal !== key.glob ? `${written} (${key.glob})` : written;
}

/** Items by key, so "everything on the same key" is a map lookup rather than a scan (see sameKey). */
export class KeyIndex<T> {
  private readonly byCanonical = new Map<string, T[]>();
  private readonly byGlob = new Map<string, T[]>();
  // Many operations share one key (every function of a lock module): answer each key once.
  private readonly answers = new Map<string, T[]>();

  add(key: KeyRef, item: T): void {
    push(this.byCanonical, key.canonical, item);
    if (informative(key.glob)) push(this.byGlob, key.glob, item);
    this.answers.clear();
  }

  find(key: KeyRef): T[] {
    const id = key.id;
    let answer = this.answers.get(id);
    if (!answer) {
      const exact = this.byCanonical.get(key.canonical) ?? [];
      const glob = informative(key.glob) ? (this.byGlob.get(key.glob) ?? []) : [];
      answer = glob.length === 0 ? exact : exact.length === 0 ? glob : [...new Set([...exact, ...glob])];
      this.answers.set(id, answer);
    }
    return answer;
  }
}

function push<T>(map: Map<string, T[]>, k: string, item: T): void {
  const list = map.get(k);
  if (list) list.push(item);
  else map.set(k, [item]);
}
