// A call between the acquire and the try that releases can throw without being awaited: a function of
// the file (or a method of the class) that is not async and throws, itself or through another one it
// calls. Its exception leaves the lock held as an awaited one's does. Read from the text as written, so
// a lean parse that blanked those functions (they hold no lock word) answers alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLean } from '../../rules/analyze';
import { analyzeProject, findingList } from './harness';

/** Business code with no lock word, long enough that a lean parse blanks it. */
const PADDING = Array.from({ length: 40 }, (_, i) => `  private static label${i}(value: number): string {
    const parts = [String(value), 'unit-${i}', new Date(value).toISOString()];
    const rounded = Math.round(value * 100) / 100;
    const sign = rounded < 0 ? 'negative' : rounded === 0 ? 'zero' : 'positive';
    parts.push(sign, rounded.toFixed(2), String(parts.length));
    return parts.filter((part) => part.length > 0).map((part) => part.trim()).join(' / ');
  }
`).join('\n');

/**
 * A job whose static helpers take and release a run lock keyed by a static field; `acquire` is the
 * helper's acquire and busy test, `between` what runs between it and the try.
 */
const reminders = (between: string, acquire = `const reply = await redis.set(this.RUN_LOCK_KEY, token, 'EX', 1800, 'NX');
    if (reply !== 'OK') throw new Error('a run is in progress');`) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();

export class Reminders {
  private static readonly RUN_LOCK_KEY = 'lock:reminders:run';

  private static monthBounds(month: string): { start: string; end: string } {
    const match = /^(\\d{4})-(\\d{2})$/.exec(month);
    if (!match) throw new Error(\`month must be YYYY-MM, got \${month}\`);
    const year = Number(match[1]);
    const index = Number(match[2]);
    const last = new Date(Date.UTC(year, index, 0)).getUTCDate().toString().padStart(2, '0');
    return { start: \`\${month}-01\`, end: \`\${month}-\${last}\` };
  }

  private static buildWindow(now: Date, month?: string): { from: string; to: string } {
    const today = now.toISOString().slice(0, 10);
    const bounds = this.monthBounds(month ?? now.toISOString().slice(0, 7));
    const from = bounds.start < today ? bounds.start : today;
    const to = bounds.end > today ? bounds.end : today;
    return { from, to };
  }

  private static describe(now: Date): string {
    return now.toISOString();
  }

  private static async load(month?: string): Promise<string[]> {
    if (!month) throw new Error('no month');
    return [month];
  }

${PADDING}
  private static async acquireRunLock(): Promise<string> {
    const token = randomUUID();
    ${acquire}
    return token;
  }

  private static async releaseRunLock(token: string): Promise<void> {
    await redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, this.RUN_LOCK_KEY, token);
  }

  static async run(month?: string): Promise<void> {
    const token = await this.acquireRunLock();
    ${between}
    try {
      console.log(month);
    } finally {
      await this.releaseRunLock(token);
    }
  }
}
`;

test('the file is parsed lean: the methods the calls below reach are blanked', () => {
  const { sourceFile, blanked } = parseLean('/project/src/reminders.ts', reminders(''));
  assert.ok(blanked.length > 0);
  assert.ok(!sourceFile.text.includes('monthBounds(month: string)'), 'monthBounds is blanked');
});

test('a call of a method of the class that throws through another, between the acquire and the try, skips the release', () => {
  const found = analyzeProject({ 'src/reminders.ts': reminders('const window = this.buildWindow(new Date(), month);') });
  assert.deepEqual(findingList(found), ['src/reminders.ts: release-on-all-paths'], found.map((f) => f.message).join('\n'));
  assert.match(found[0].message, /an exception from `this\.buildWindow\(new Date\(\), month\)`/);
});

/** A function of the file that cannot throw, and a method that calls it on a line of its own (no semicolon) before a throw of its own. */
const AUDIT = `function audit(month?: string): void {
  console.log('run', month);
}
export function checked(month?: string): string {
  audit(month)
  if (!month) {
    throw new Error('no month');
  }
  return month;
}
`;

test('a call of a function that cannot throw, or of an async one left unawaited (it rejects, it does not throw), skips nothing', () => {
  for (const between of ['const label = this.describe(new Date());', 'void this.load(month).catch(() => undefined);', 'audit(month);']) {
    const found = analyzeProject({ 'src/reminders.ts': reminders(between) + AUDIT });
    assert.deepEqual(findingList(found), [], `${between}\n${found.map((f) => f.message).join('\n')}`);
  }
});

test('an acquire helper testing the reply in its if and throwing when busy hands back a token only once acquired', () => {
  const inline = `if ((await redis.set(this.RUN_LOCK_KEY, token, 'EX', 1800, 'NX')) !== 'OK') throw new Error('a run is in progress');`;
  const clean = analyzeProject({ 'src/reminders.ts': reminders('', inline) });
  assert.deepEqual(findingList(clean), [], clean.map((f) => f.message).join('\n'));
  // The static field is one key for every caller: the awaited work before the try is named with it.
  const awaited = analyzeProject({ 'src/reminders.ts': reminders('const rows = await this.load(month);', inline) });
  assert.deepEqual(findingList(awaited), ['src/reminders.ts: release-on-all-paths'], awaited.map((f) => f.message).join('\n'));
  assert.match(awaited[0].message, /an exception from `await this\.load\(month\)`/);
});
