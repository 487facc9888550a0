// One table per rule, in the typescript-eslint style: `valid` code must produce nothing for the rule,
// `invalid` code must produce the findings, and its preferred fix must give exactly `output`, which
// must no longer trigger the rule. typecheck.test.ts type-checks every input and every output of all
// tables against the real client packages (ioredis, redis, redlock, redis-semaphore) in one program.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { analyzeText } from '../../rules/analyze';
import { emptyConfig, type LockwiseConfig } from '../../rules/config';
import type { Finding, TextEdit } from '../../rules/types';

export interface ValidCase {
  name: string;
  code: string;
  /** Default `case.ts`; a .js name is parsed as JavaScript and not type-checked. */
  fileName?: string;
  config?: Partial<LockwiseConfig>;
  /** Snippets that cannot type-check on purpose (e.g. v3 callback APIs with no types). */
  typecheck?: false;
}

export interface InvalidCase extends ValidCase {
  /** How many findings of this rule; default 1. */
  count?: number;
  /** Each string must appear in the first finding's message. */
  message?: string[];
  /** The code after applying the first finding's preferred fix; `null` asserts there is no fix. */
  output?: string | null;
  /** Apply the fix whose title starts with this instead of the preferred one. */
  fix?: string;
  /** Findings of the rule left after the fix; default `count - 1` (a multi-edit fix may remove more). */
  remaining?: number;
  /** With `output: null`: words the reason for having no fix must contain. */
  noFix?: string;
}

export function applyEdits(text: string, edits: TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.newText + out.slice(edit.end);
  }
  return out;
}

function run(ruleId: string, c: ValidCase, code = c.code): Finding[] {
  const config = { ...emptyConfig(), ...c.config };
  const result = analyzeText(c.fileName ?? 'case.ts', code, { config, only: [ruleId] });
  assert.deepEqual(result.ruleFailures, [], 'the rule must not throw');
  return result.findings.filter((f) => f.rule === ruleId);
}

const TYPECHECK_ROOT = resolve('test/.tmp/typecheck');

/** Type-checks all sources in one program (loading the client packages' types once); returns the errors. */
export function typecheck(sources: { name: string; code: string }[]): string[] {
  mkdirSync(TYPECHECK_ROOT, { recursive: true });
  const dir = mkdtempSync(join(TYPECHECK_ROOT, 'run-'));
  const files = sources.map((s, i) => {
    const file = join(dir, `${String(i).padStart(3, '0')}-${s.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}.ts`);
    writeFileSync(file, s.code);
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    skipLibCheck: true,
    esModuleInterop: true,
    // redlock 5's package.json "exports" hides its types from bundler resolution; point at them.
    paths: { redlock: [resolve('node_modules/redlock/dist/index.d.ts')] },
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  // Each run has its own folder; remove it so runs do not pile up.
  rmSync(dir, { recursive: true, force: true });
  return errors;
}

export interface RuleCases {
  valid: ValidCase[];
  invalid: InvalidCase[];
}

/** Every input, and every fixed output, that must type-check. */
export function typecheckSources(ruleId: string, cases: RuleCases): { name: string; code: string }[] {
  const checked = (c: ValidCase) => c.typecheck !== false && !/\.[cm]?jsx?$/.test(c.fileName ?? 'case.ts');
  return [
    ...cases.valid.filter(checked).map((c) => ({ name: `${ruleId} valid ${c.name}`, code: c.code })),
    ...cases.invalid.filter(checked).flatMap((c) => [
      { name: `${ruleId} invalid ${c.name}`, code: c.code },
      ...(typeof c.output === 'string' ? [{ name: `${ruleId} fixed ${c.name}`, code: c.output }] : []),
    ]),
  ];
}

export function ruleTable(ruleId: string, cases: RuleCases): void {
  for (const c of cases.valid) {
    test(`${ruleId} valid: ${c.name}`, () => {
      const findings = run(ruleId, c);
      assert.deepEqual(findings.map((f) => f.message), [], 'expected no findings');
    });
  }

  for (const c of cases.invalid) {
    test(`${ruleId} invalid: ${c.name}`, () => {
      const findings = run(ruleId, c);
      assert.equal(findings.length, c.count ?? 1, `findings: ${JSON.stringify(findings.map((f) => f.message), null, 1)}`);
      const first = findings[0];
      for (const part of c.message ?? []) assert.ok(first.message.includes(part), `message lacks "${part}": ${first.message}`);
      assert.ok(first.span.end > first.span.start && first.span.end <= c.code.length, 'span inside the file');
      if (c.output === undefined) return;
      const fix = c.fix ? first.fixes.find((f) => f.title.startsWith(c.fix!)) : (first.fixes.find((f) => f.isPreferred) ?? first.fixes[0]);
      if (c.output === null) {
        assert.equal(fix, undefined, 'expected no fix');
        assert.ok(first.noFix, 'a finding without a fix says why');
        if (c.noFix) assert.ok(first.noFix.includes(c.noFix), `reason lacks "${c.noFix}": ${first.noFix}`);
        return;
      }
      assert.ok(fix, 'expected a fix');
      const fixed = applyEdits(c.code, fix.edits);
      assert.equal(fixed, c.output);
      assert.equal(run(ruleId, c, fixed).length, c.remaining ?? (c.count ?? 1) - 1, 'the fix removes the finding');
    });
  }
}
