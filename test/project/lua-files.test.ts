// Lua kept in a file of its own beside the code and read with readFileSync: the project layer hands the
// model that file's text (engine/script-files.ts), so the script's acquire or release is judged as if it
// were written inline. Without the file the script stays unknown, as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mightHoldLockCode } from '../../rules/engine/prefilter';
import { analyzeProject, findingList } from './harness';

/** Takes every key of the list for this holder, with no TTL. */
const TAKE_ALL = `for _, key in ipairs(KEYS) do
  if not redis.call('SET', key, ARGV[1], 'NX') then return 0 end
end
return 1
`;

/** A lock module reading its acquire script with `readScript`, the expression that names the file. */
const locks = (readScript: string) => `import Redis from 'ioredis';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const SCRIPTS = path.join(__dirname, 'scripts');
const TAKE = ${readScript};
export async function lockAll(names: string[]): Promise<string | null> {
  const token = randomUUID();
  const taken = await redis.eval(TAKE, names.length, ...names, token);
  return Number(taken) === 1 ? token : null;
}
`;

test('a Lua acquire read from a file beside the module is judged: no TTL', () => {
  for (const read of [
    `fs.readFileSync(path.resolve(__dirname, 'take-all.lua'), 'utf8')`,
    `fs.readFileSync(path.join(SCRIPTS, '..', 'take-all.lua'), 'utf8')`,
    `fs.readFileSync(require.resolve('./take-all.lua'), 'utf8')`,
    `fs.readFileSync(\`\${__dirname}/take-all.lua\`, 'utf8')`,
  ]) {
    const found = analyzeProject({ 'src/locks.ts': locks(read), 'src/take-all.lua': TAKE_ALL });
    assert.deepEqual(findingList(found), ['src/locks.ts: require-ttl'], `${read}\n${found.map((f) => f.message).join('\n')}`);
  }
});

test('the pre-check passes a module whose only lock code is the script it reads and EVALs', () => {
  const helpers = { acquire: [], release: [], extend: [] };
  assert.equal(mightHoldLockCode(locks(`fs.readFileSync(path.join(__dirname, 'take-all.lua'), 'utf8')`), helpers), true);
  assert.equal(mightHoldLockCode(`const TEMPLATE = fs.readFileSync('report.lua.tmpl', 'utf8');\nexport const render = (x: string) => TEMPLATE.replace('$', x);\n`, helpers), false);
});

test('the script file in a folder named by a constant', () => {
  const found = analyzeProject({ 'src/locks.ts': locks(`fs.readFileSync(path.join(SCRIPTS, 'take-all.lua'), 'utf8')`), 'src/scripts/take-all.lua': TAKE_ALL });
  assert.deepEqual(findingList(found), ['src/locks.ts: require-ttl'], found.map((f) => f.message).join('\n'));
});

test('without the file, or with a path that is not static, the script stays unknown', () => {
  assert.deepEqual(findingList(analyzeProject({ 'src/locks.ts': locks(`fs.readFileSync(path.resolve(__dirname, 'take-all.lua'), 'utf8')`) })), []);
  assert.deepEqual(findingList(analyzeProject({ 'src/locks.ts': locks(`fs.readFileSync(process.env.TAKE_SCRIPT ?? '', 'utf8')`), 'src/take-all.lua': TAKE_ALL })), []);
});
