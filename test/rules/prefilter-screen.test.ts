// The pre-check's first screen (hasLockEvidence in rules/engine/prefilter.ts) is four regexes, split
// for speed from one alternation of every word its tests need. Split or not, it must say yes to the same
// texts: here the alternation as it was written is the reference, on the known lock code and on text
// built from the words, quotes, dots and colons around which the two could differ.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasLockEvidence } from '../../rules/engine/prefilter';
import { docInputs, exampleInputs, tableInputs } from './helpers/known-lock-code';

const command = (names: string) => new RegExp(`\\.\\s*(?:${names})\\b|['"\`](?:${names})\\\\?['"\`](?!\\s*:)`, 'i');
const option = (name: string) => new RegExp(`['"\`]${name}\\b|\\b${name}['"\`]?\\s*:`, 'i');
const ANY_EVIDENCE = new RegExp(
  [
    /redlock/i,
    /mutex|semaphore/,
    /\bwithLock\b/,
    /['"`]redis-lock['"`]/,
    command('setnx'),
    option('nx'),
    /['"`]onlyIfDoesNotExist['"`]/,
    option('xx'),
    command('del|unlink|getdel|delex|delifeq|p?expire(?:at)?'),
    /['"`](?:zrem|hdel)\\?['"`]/i,
    /['"`](?:ex|px)['"`]|\b(?:EX|PX)['"`]?\s*:/i,
    command('p?setex'),
    /lock[\w$]*\s*\??\.\s*extend(?:Lock)?\s*\(/i,
    /\.lua['"`]/,
  ]
    .map((r) => r.source)
    .join('|'),
  'i',
);

const WORDS = ['redlock', 'redis-lock', 'mutex', 'semaphore', 'withLock', 'setnx', 'nx', 'onlyIfDoesNotExist', 'xx', 'del', 'unlink', 'getdel', 'delex', 'delifeq', 'expire', 'pexpire', 'expireat', 'pexpireat', 'zrem', 'hdel', 'ex', 'px', 'setex', 'psetex', 'set', 'get', 'next', 'index', 'model', 'lock.extend(', 'jobLock?.extend (', 'server.lock.extendLock(', 'Lock.extend', 'block.extend(', 'take.lua', 'lua'];
const AROUND = ["'", '"', '`', '.', '. ', ':', ' :', '\\', '\\"', '(', ' ', '\n', 'a', '_', '$', '0', 'é'];

/** A small deterministic generator, so that a failure names a text that can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function mixedCase(word: string, next: () => number): string {
  return [...word].map((c) => (next() < 0.3 ? c.toUpperCase() : c)).join('');
}

function generatedTexts(count: number): string[] {
  const next = random(20261202);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  return Array.from({ length: count }, () => {
    let text = '';
    for (let i = 0, n = 1 + Math.floor(next() * 4); i < n; i++) text += pick(AROUND) + mixedCase(pick(WORDS), next) + pick(AROUND) + pick(AROUND);
    return text;
  });
}

test('the split screen says yes to the same texts as the one alternation it replaced', () => {
  const known = [...tableInputs(), ...exampleInputs(), ...docInputs()].map((input) => input.code);
  const texts = [...known, ...generatedTexts(20_000)];
  const differing = texts.filter((text) => hasLockEvidence(text) !== ANY_EVIDENCE.test(text));
  assert.deepEqual(differing.slice(0, 5), []);
  // The generated texts reach both verdicts, so the comparison means something either way.
  const passed = texts.filter((text) => ANY_EVIDENCE.test(text)).length;
  assert.ok(passed > 1000 && passed < texts.length - 1000, `${passed} of ${texts.length} texts have evidence`);
});
