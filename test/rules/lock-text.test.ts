// The lean parse (rules/engine/lock-text.ts) blanks declarations that hold no lock code before
// parsing. It must never change what the analyzer reports: every piece of known lock code, padded with
// functions, classes and class members that are not lock code (so that blanking happens), must give
// the same findings, fixes, lock sites and withLock regions as a parse of the whole text.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseSource } from '../../rules/analyze';
import { emptyConfig } from '../../rules/config';
import { indexTree } from '../../rules/engine/file-index';
import { leanParseHolds, leanText } from '../../rules/engine/lock-text';
import { mightHoldLockCode } from '../../rules/engine/prefilter';
import { outline } from '../../rules/engine/outline';
import { ts } from '../../rules/engine/typescript';
import { lockRegionsIn } from '../../rules/regions';
import { analyzeWithSites } from '../../rules/sites';
import { FILLER_METHOD, filler } from './helpers/filler';
import { docInputs, exampleInputs, tableInputs, type Input } from './helpers/known-lock-code';

/** `code` with filler between its top-level statements and at the start and end of each top-level class. */
function padded(input: Input): string {
  const tree = ts.createSourceFile(input.fileName, input.code, ts.ScriptTarget.Latest, true);
  const inserts: Array<{ at: number; text: string }> = [{ at: input.code.length, text: filler(6) }];
  tree.statements.forEach((statement, k) => {
    if (k > 0 && k % 2 === 0) inserts.push({ at: statement.pos, text: filler(2) });
    if (ts.isClassDeclaration(statement)) {
      const open = statement.members.pos;
      inserts.push({ at: open, text: FILLER_METHOD(k) }, { at: statement.end - 1, text: FILLER_METHOD(k + 1000) });
    }
  });
  // A .js file gets the JavaScript of the filler: types stripped by TypeScript itself.
  const isJs = /\.[cm]?jsx?$/.test(input.fileName);
  let code = input.code;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) {
    code = code.slice(0, at) + (isJs ? stripTypes(text) : text) + code.slice(at);
  }
  return code;
}

function stripTypes(code: string): string {
  return ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext } }).outputText;
}

/** A parse of the whole text, as before the lean parse existed. */
function wholeTree(fileName: string, code: string): ts.SourceFile {
  const kind = /\.[cm]?jsx?$/.test(fileName) ? (fileName.endsWith('x') ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const tree = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, false, kind);
  indexTree(tree);
  return tree;
}

function analysis(tree: ts.SourceFile, input: Input) {
  return { ...analyzeWithSites(tree, input.config), regions: lockRegionsIn(tree, input.config) };
}

function assertSameAnalysis(inputs: Input[], minimumLean: number): void {
  let lean = 0;
  for (const input of inputs) {
    const code = padded(input);
    const tree = parseSource(input.fileName, code, input.config.helpers);
    if (tree.text !== code) lean++;
    assert.deepEqual(analysis(tree, input), analysis(wholeTree(input.fileName, code), input), input.where);
  }
  // A lean parse that never happened would pass the comparison above.
  assert.ok(lean >= minimumLean, `only ${lean} of ${inputs.length} padded inputs were parsed lean`);
}

test('padded rule table inputs analyse the same lean and whole', () => {
  assertSameAnalysis(tableInputs(), 110);
});

test('padded example files analyse the same lean and whole', () => {
  assertSameAnalysis(exampleInputs(), 10);
});

test('padded rule doc examples analyse the same lean and whole', () => {
  assertSameAnalysis(docInputs(), 30);
});

test('blanking keeps the length and every line break, and only filler goes', () => {
  const input = exampleInputs()[0];
  const code = padded(input);
  const lean = leanText(code, emptyConfig().helpers, false);
  assert.ok(lean, 'the padded file is blanked');
  assert.equal(lean.text.length, code.length);
  assert.deepEqual(lean.text.split('\n').length, code.split('\n').length);
  for (const [start, end] of lean.blanked) {
    assert.match(code.slice(start, end), /formatRow|Formatter|describeRow/, `only filler is blanked: ${code.slice(start, start + 60)}`);
  }
});

test('blanking keeps CRLF, lone CR and Unicode line separators where they were', () => {
  const input = exampleInputs()[0];
  const lf = padded(input);
  for (const [name, code] of [['CRLF', lf.replace(/\n/g, '\r\n')], ['CR and U+2028', lf.replace(/\n/g, (_, i: number) => (i % 2 ? '\r' : '\u2028'))]]) {
    const lean = leanText(code, emptyConfig().helpers, false);
    assert.ok(lean, `${name}: the padded file is blanked`);
    const breaks = (s: string) => [...s.matchAll(/[\r\n\u2028\u2029]/g)].map((m) => `${m.index}:${m[0]}`);
    assert.deepEqual(breaks(lean.text), breaks(code), name);
    assert.equal(lean.text.length, code.length, name);
  }
});

test('every boundary the outline finds is one the parser agrees with', () => {
  const inputs = [...tableInputs(), ...exampleInputs(), ...docInputs()];
  let checked = 0;
  for (const input of inputs) {
    const code = padded(input);
    const shape = outline(code);
    if (!shape) continue;
    const tree = ts.createSourceFile(input.fileName, code, ts.ScriptTarget.Latest, false);
    const straddles = (nodes: readonly ts.Node[], at: number) => nodes.some((n) => n.getStart(tree) < at && at < n.end);
    for (const at of shape.statements) assert.ok(!straddles(tree.statements, at), `${input.where}: a statement runs across ${at}`);
    for (const body of shape.classBodies) {
      const holder = tree.statements.find((s) => s.pos <= body.start && body.end < s.end);
      if (!holder || !ts.isClassDeclaration(holder)) continue;
      for (const at of body.members) assert.ok(!straddles(holder.members, at), `${input.where}: a member runs across ${at}`);
    }
    checked++;
  }
  assert.ok(checked >= 180, `only ${checked} inputs outlined`);
});

test('code the lexer misreads falls back to a whole parse with the same findings', () => {
  // `)` then a regular expression holding a brace: the lexer reads a division and loses the depth.
  const code = `import Redis from 'ioredis';
const redis = new Redis();
export function check(s: string) { if (s) /{/.test(s); return s; }
${filler(12)}
export async function take(id: string) {
  await redis.setnx(\`lock:\${id}\`, 'x');
}
`;
  const input = { where: 'misread', fileName: 'a.ts', code, config: emptyConfig() };
  const findings = analyzeWithSites(parseSource('a.ts', code)).findings.map((f) => f.rule);
  assert.ok(findings.includes('require-ttl'), 'the lock code is still analysed');
  assert.deepEqual(analysis(parseSource('a.ts', code), input), analysis(wholeTree('a.ts', code), input));
});

test('a blanked span holds only between statements and between class members, past comments, never inside a node', () => {
  const code = `// head
export function f() {
  const a = 1;
${' '.repeat(40)}
  return a;
}
${' '.repeat(40)}
/* a comment before the class */
export class C {
  one() { return 1; }
${' '.repeat(40)}
  // a comment before two
  two() {
${' '.repeat(40)}
    return 2;
  }
}
`;
  const tree = ts.createSourceFile('a.ts', code, ts.ScriptTarget.Latest, true);
  const blankLines: Array<[number, number]> = [];
  for (let at = code.indexOf(' '.repeat(40)); at >= 0; at = code.indexOf(' '.repeat(40), at + 40)) blankLines.push([at, at + 40]);
  const [inFunction, betweenStatements, betweenMembers, inMethod] = blankLines;
  assert.equal(leanParseHolds(tree, [betweenStatements]), true, 'between two statements');
  assert.equal(leanParseHolds(tree, [betweenStatements, betweenMembers]), true, 'between two members');
  assert.equal(leanParseHolds(tree, [inFunction]), false, 'inside a function');
  assert.equal(leanParseHolds(tree, [betweenStatements, inMethod]), false, 'inside a method');
  // Spans that touch are checked as one: together they still end where the next member starts.
  const half = betweenMembers[0] + 20;
  assert.equal(leanParseHolds(tree, [[betweenMembers[0], half], [half, betweenMembers[1]]]), true, 'two touching spans between members');
});

test('a suppression at the end of a statement line stays with its statement', () => {
  const code = `import Redis from 'ioredis';
const redis = new Redis();
${filler(12)}
export async function take(id: string) {
  await redis.setnx(\`lock:\${id}\`, 'x'); // lockwise-disable-line require-ttl, atomic-acquire, check-acquire-result, unique-token
}
${filler(12)}
`;
  assert.notEqual(parseSource('a.ts', code).text, code, 'the filler is blanked');
  assert.deepEqual(analyzeWithSites(parseSource('a.ts', code)).findings, []);
});

test('a method named after a script registered with defineCommand is lock code', () => {
  const code = `import Redis from 'ioredis';
const redis = new Redis();
redis.defineCommand('freeIt', { numberOfKeys: 1, lua: 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0' });
${filler(12)}
export async function done(key: string, token: string) {
  await (redis as any).freeIt(key, token);
}
${filler(12)}
`;
  const input = { where: 'defineCommand', fileName: 'a.ts', code, config: emptyConfig() };
  const tree = parseSource('a.ts', code);
  assert.notEqual(tree.text, code, 'the filler is blanked');
  assert.ok(tree.text.includes('freeIt(key, token)'), 'the call of the script stays');
  assert.deepEqual(analysis(tree, input), analysis(wholeTree('a.ts', code), input));
});

test('JSX, scripts under computed names and scripts as a client option are parsed whole', () => {
  const jsx = `${filler(12)}\nexport const App = () => <div>{'}'}</div>;\n`;
  assert.equal(leanText(jsx, emptyConfig().helpers, true), undefined);
  const computed = `${filler(12)}\nredis.defineCommand(name, { numberOfKeys: 1, lua: 'return 1' });\n`;
  assert.equal(leanText(computed, emptyConfig().helpers, false), undefined);
  const option = `${filler(12)}\nconst redis = new Redis({ scripts: { freeIt: { numberOfKeys: 1, lua: 'return 1' } } });\n`;
  assert.equal(leanText(option, emptyConfig().helpers, false), undefined);
  assert.ok(leanText(`${filler(12)}\nconst redis = new Redis();\n`, emptyConfig().helpers, false), 'the same filler alone is blanked');
});

/** The JavaScript of the Redis clients and lock libraries the project installs: real code, lock code among it. */
function installedPackageFiles(): Input[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return walk(path);
      return /\.[cm]?js$/.test(e.name) ? [path] : [];
    });
  return ['ioredis', '@redis/client', 'redlock', 'redis-semaphore', '@sesamecare-oss/redlock', 'vscode-languageserver']
    .flatMap((pkg) => walk(join('node_modules', pkg)))
    .map((path) => ({ where: path, fileName: path, code: readFileSync(path, 'utf8'), config: emptyConfig() }));
}

test('in the installed Redis clients and lock libraries, the outline agrees with the parser and analysis is unchanged', () => {
  let lean = 0;
  let outlined = 0;
  for (const input of installedPackageFiles()) {
    const shape = outline(input.code);
    if (!shape) continue;
    outlined++;
    const tree = ts.createSourceFile(input.fileName, input.code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
    for (const at of shape.statements) {
      assert.ok(!tree.statements.some((n) => n.getStart(tree) < at && at < n.end), `${input.where}: a statement runs across ${at}`);
    }
    const parsed = parseSource(input.fileName, input.code);
    if (parsed.text !== input.code) lean++;
    else if (!mightHoldLockCode(input.code, input.config.helpers)) continue;
    assert.deepEqual(analysis(parsed, input), analysis(wholeTree(input.fileName, input.code), input), input.where);
  }
  assert.ok(outlined >= 400, `only ${outlined} files outlined`);
  assert.ok(lean >= 20, `only ${lean} installed files were parsed lean`);
});
