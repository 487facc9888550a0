// The rule docs are part of the product: every rule has one, its examples are executed (each
// "Incorrect" block must trigger the rule, each "Correct" block must trigger nothing at all), the
// TypeScript ones are type-checked against the real client packages, and the README's rules table
// agrees with the registry.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { analyzeText } from '../../rules/analyze';
import { allRules, ruleIds } from '../../rules/index';
import { typecheck } from './harness';

const REQUIRED_SECTIONS = ['Why it matters', 'Incorrect', 'Correct', 'Fix', 'What it does not flag', 'Across files', 'Options', 'When not to use it'];

interface CodeBlock {
  section: string;
  /** ```ts blocks are analysed and type-checked; ```js blocks (mistakes TypeScript itself rejects) are analysed. */
  lang: 'ts' | 'js';
  code: string;
  /** 1-based line of the block's first code line in the doc, for messages. */
  line: number;
}

interface Doc {
  title: string;
  sections: Map<string, string>;
  blocks: CodeBlock[];
}

function parseDoc(text: string): Doc {
  const lines = text.split('\n');
  const sections = new Map<string, string>();
  const blocks: CodeBlock[] = [];
  let section = '';
  let fence: { lang: string; start: number; body: string[] } | undefined;
  lines.forEach((line, i) => {
    if (fence) {
      if (line.startsWith('```')) {
        const lang = fence.lang;
        if (lang === 'ts' || lang === 'js') blocks.push({ section, lang, code: `${fence.body.join('\n')}\n`, line: fence.start });
        fence = undefined;
      } else fence.body.push(line);
    } else if (line.startsWith('```')) {
      fence = { lang: line.slice(3).trim(), start: i + 2, body: [] };
    } else if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      sections.set(section, '');
    }
    if (section && !line.startsWith('## ')) sections.set(section, `${sections.get(section)}${line}\n`);
  });
  return { title: lines[0].replace(/^# /, ''), sections, blocks };
}

const docPath = (id: string) => resolve('rules', `${id}.md`);
const docs = new Map(allRules.filter((r) => existsSync(docPath(r.id))).map((r) => [r.id, parseDoc(readFileSync(docPath(r.id), 'utf8'))]));

/** Findings of every rule, or of `only` that rule (as the CLI's --rule would run it). */
function findingsOf(id: string, block: CodeBlock, only?: string) {
  const result = analyzeText(`${id}-example.${block.lang}`, block.code, only ? { only: [only] } : {});
  assert.deepEqual(result.ruleFailures, [], 'no rule may throw on a doc example');
  return result.findings;
}

test('the rule registry is sorted by id, ids are unique and name their files', () => {
  assert.deepEqual([...ruleIds], [...ruleIds].sort());
  assert.equal(new Set(ruleIds).size, ruleIds.length);
  for (const id of ruleIds) assert.ok(existsSync(resolve('rules', `${id}.ts`)), `rules/${id}.ts`);
});

test('every rule has its doc, and every doc belongs to a rule', () => {
  for (const id of ruleIds) assert.ok(existsSync(docPath(id)), `missing rules/${id}.md`);
  const mdFiles = readdirSync('rules').filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
  assert.deepEqual(mdFiles.filter((id) => !ruleIds.includes(id)), [], 'docs without a rule');
});

for (const rule of allRules) {
  test(`${rule.id}.md has the title, summary and every section`, () => {
    const doc = docs.get(rule.id);
    assert.ok(doc, `missing rules/${rule.id}.md`);
    assert.equal(doc.title, rule.id);
    for (const name of REQUIRED_SECTIONS) assert.ok(doc.sections.has(name), `missing section "## ${name}"`);
    assert.match(doc.sections.get('Why it matters') ?? '', /t=0 ms/, 'the failure timeline starts at t=0 ms');
    assert.match(doc.sections.get('Options') ?? '', new RegExp(`"${rule.id}": "(off|info|warning|error)"`), 'shows how to set the severity');
    assert.ok(doc.blocks.some((b) => b.section === 'Incorrect'), 'at least one Incorrect example');
    assert.ok(doc.blocks.some((b) => b.section === 'Correct'), 'at least one Correct example');
  });

  test(`${rule.id}.md: each Incorrect example triggers the rule`, () => {
    for (const block of docs.get(rule.id)?.blocks.filter((b) => b.section === 'Incorrect') ?? []) {
      const own = findingsOf(rule.id, block, rule.id);
      assert.ok(own.length > 0, `the example at rules/${rule.id}.md:${block.line} does not trigger ${rule.id}`);
    }
  });

  test(`${rule.id}.md: each Correct example triggers no rule at all`, () => {
    for (const block of docs.get(rule.id)?.blocks.filter((b) => b.section === 'Correct') ?? []) {
      const found = findingsOf(rule.id, block).map((f) => `${f.rule}: ${f.message}`);
      assert.deepEqual(found, [], `the example at rules/${rule.id}.md:${block.line} is reported`);
    }
  });
}

/** The README's rules table: `| [id](rules/id.md) | severity | what it flags | quick fix |`. */
function readmeRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync('README.md', 'utf8').split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const link = /^\[`?([a-z-]+)`?\]\(rules\/([a-z-]+)\.md\)$/.exec(cells[0] ?? '');
    if (link && link[1] === link[2]) rows.set(link[1], cells);
  }
  return rows;
}

test('README: every rule is in the rules table with a link to its doc and its default severity', () => {
  const rows = readmeRows();
  assert.deepEqual([...rows.keys()], [...ruleIds], 'one row per rule, in registry order');
  for (const rule of allRules) assert.equal(rows.get(rule.id)?.[1], rule.defaultSeverity, `severity of ${rule.id}`);
});

test('README: the quick-fix column matches what the Incorrect examples offer', () => {
  const rows = readmeRows();
  for (const rule of allRules) {
    const blocks = docs.get(rule.id)?.blocks.filter((b) => b.section === 'Incorrect') ?? [];
    const offersFix = blocks.some((b) => findingsOf(rule.id, b, rule.id).some((f) => f.fixes.length > 0));
    assert.equal(rows.get(rule.id)?.[3], offersFix ? 'yes' : 'no', `quick fix of ${rule.id}`);
  }
});

test('README: "What it catches" links every rule doc', () => {
  const readme = readFileSync('README.md', 'utf8');
  const catches = readme.split(/^## /m).find((s) => s.startsWith('What it catches')) ?? '';
  for (const id of ruleIds) assert.ok(catches.includes(`(rules/${id}.md)`), `"What it catches" lacks ${id}`);
});

// Doc examples are real code: each block is its own module, checked in one program with the
// installed client packages (the same check as the rule tables).
test('every doc example type-checks', () => {
  const sources = [...docs].flatMap(([id, doc]) =>
    doc.blocks.filter((b) => b.lang === 'ts').map((b) => ({ name: `${id}.md line ${b.line}`, code: b.code })),
  );
  assert.ok(sources.length >= allRules.length * 2);
  assert.deepEqual(typecheck(sources), []);
});
