// Derives with-lock.js (what JavaScript projects get) from with-lock.ts, the one source of truth.
// TypeScript's transpiler, not esbuild's transform: esbuild drops every comment but legal ones, and
// the comments are much of the helper's worth to the user who now owns the file.
// Usage: node rules/templates/build-js.mjs [--check] [input.ts output.js]
//   --check: write nothing; exit 1 when the output file differs from what the input gives.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The transpiler drops blank lines; a marker comment on each one survives and is turned back.
const BLANK = '//__lockwise_blank_line__';

function toJs(source) {
  const marked = source.replace(/^[ \t]*$/gm, BLANK);
  const { outputText } = ts.transpileModule(marked, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: false },
  });
  const lines = outputText.split('\n').map((line) => (line.trim() === BLANK ? '' : line));
  // Markers of erased declarations (interfaces, types) leave runs of blank lines: keep one.
  return lines.filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== '')).join('\n');
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const paths = args.filter((a) => a !== '--check');
const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const [input, output] = paths.length === 2 ? paths : [here('with-lock.ts'), here('with-lock.js')];

const js = toJs(readFileSync(input, 'utf8'));
if (check) {
  let current = '';
  try {
    current = readFileSync(output, 'utf8');
  } catch {
    // A missing output is simply stale.
  }
  if (current !== js) {
    console.error(`${output} is not up to date with ${input}: run node rules/templates/build-js.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(output, js);
}
