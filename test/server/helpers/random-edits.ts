// Seeded random edits of source text, for the incremental-parsing tests: insertions (of pieces of the
// text itself, so lock code moves around, and of tokens that open or close strings, templates,
// comments and blocks), deletions short and long, and replacements. The same seed gives the same edits.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Position, Range } from 'vscode-languageserver-protocol';

/** mulberry32: a small PRNG, enough to make a test's edits reproducible from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Replace text[start, end) with `text`. */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

const TOKENS = [
  '{', '}', '(', ')', '`', '${', "'", '"', '/*', '*/', '// ', '\n', ';', ',', 'await ', 'return;\n', 'const x = ',
  'redis.del(key);\n', "'NX'", ", 'PX', 30000", 'async () => {', 'try {', '} finally {', '<T>', 'é', ' ',
];

/** A random edit; `from` (a share of the text) keeps it out of the text before that point. */
export function randomEdit(text: string, random: () => number, from = 0): OffsetEdit {
  const int = (n: number) => Math.floor(random() * n);
  const first = Math.floor(text.length * from);
  const at = first + int(text.length - first + 1);
  const piece = () => {
    if (random() < 0.5) return TOKENS[int(TOKENS.length)];
    const from = int(text.length + 1);
    return text.slice(from, from + 1 + int(120));
  };
  const kind = random();
  if (kind < 0.4) return { start: at, end: at, text: piece() };
  const length = random() < 0.85 ? 1 + int(20) : 1 + int(Math.min(600, text.length / 8));
  const end = Math.min(text.length, at + length);
  return kind < 0.75 ? { start: at, end, text: '' } : { start: at, end, text: piece() };
}

export function applyEdit(text: string, edit: OffsetEdit): string {
  return text.slice(0, edit.start) + edit.text + text.slice(edit.end);
}

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** The LSP form of `edit` against `text` (the text as it is when the change applies). */
export function lspChange(text: string, edit: OffsetEdit): { range: Range; text: string } {
  return { range: { start: positionAt(text, edit.start), end: positionAt(text, edit.end) }, text: edit.text };
}

/** Every TypeScript file under examples/, by path relative to the repository. */
export function exampleFiles(): Map<string, string> {
  const root = join(import.meta.dirname, '..', '..', '..');
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith('.ts')) files.set(rel, readFileSync(join(root, rel), 'utf8'));
    }
  };
  walk('examples');
  return files;
}
