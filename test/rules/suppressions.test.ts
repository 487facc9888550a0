import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeText } from '../../rules/analyze';

const head = `import Redis from 'ioredis';
const redis = new Redis();
export async function run(id: string) {
  const key = \`lock:\${id}\`;
`;

function rules(body: string): string[] {
  return analyzeText('a.ts', `${head}${body}}\n`).findings.map((f) => f.rule).sort();
}

test('without a directive both findings are reported', () => {
  assert.deepEqual(rules(`  await redis.setnx(key, 'x');\n  await redis.expire(key, 5);\n`), ['atomic-acquire', 'check-acquire-result']);
});

test('lockwise-disable-next-line silences the named rule on the next line only', () => {
  assert.deepEqual(
    rules(`  // lockwise-disable-next-line atomic-acquire\n  await redis.setnx(key, 'x');\n  await redis.expire(key, 5);\n`),
    ['check-acquire-result'],
  );
});

test('lockwise-disable-line with several ids, and without ids for every rule', () => {
  assert.deepEqual(rules(`  await redis.setnx(key, 'x'); // lockwise-disable-line atomic-acquire, check-acquire-result\n  await redis.expire(key, 5);\n`), []);
  assert.deepEqual(rules(`  await redis.setnx(key, 'x'); // lockwise-disable-line\n  await redis.expire(key, 5);\n`), []);
});

test('a directive for another rule or another line changes nothing', () => {
  assert.deepEqual(
    rules(`  // lockwise-disable-next-line require-ttl\n  await redis.setnx(key, 'x');\n  // lockwise-disable-next-line atomic-acquire\n\n  await redis.expire(key, 5);\n`),
    ['atomic-acquire', 'check-acquire-result'],
  );
});
