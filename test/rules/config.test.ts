import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { analyzeText } from '../../rules/analyze';
import { ConfigError, emptyConfig, loadConfig, type LoadedConfig } from '../../rules/config';
import { ruleIds } from '../../rules/index';

const root = mkdtempSync(join(tmpdir(), 'lockwise-config-'));
after(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string>): string {
  const d = join(root, name);
  mkdirSync(join(d, 'src', 'deep'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(d, file), text);
  return d;
}

test('the nearest lockwise.config.json applies to nested folders', () => {
  const d = dir('nearest', { 'lockwise.config.json': JSON.stringify({ rules: { 'require-ttl': 'off' }, ignore: ['gen/**'] }) });
  const loaded = loadConfig(join(d, 'src', 'deep'), ruleIds);
  assert.equal(loaded.file, join(d, 'lockwise.config.json'));
  assert.equal(loaded.config.rules['require-ttl'], 'off');
  assert.deepEqual(loaded.config.ignore, ['gen/**']);
});

test('with a map of found configs, each ancestor is read once and every folder passed gets the same answer', () => {
  const d = dir('found', { 'lockwise.config.json': JSON.stringify({ rules: { 'require-ttl': 'off' } }) });
  // Package folders without a "lockwise" key below the config, as in a vendored tree.
  writeFileSync(join(d, 'src', 'package.json'), JSON.stringify({ name: 'inner' }));
  writeFileSync(join(d, 'src', 'deep', 'package.json'), JSON.stringify({ name: 'deeper' }));
  const found = new Map<string, LoadedConfig>();
  const deep = loadConfig(join(d, 'src', 'deep'), ruleIds, found);
  assert.deepEqual([...found.keys()], [join(d, 'src', 'deep'), join(d, 'src'), d]);
  // Once known, a folder's answer is not read again: a package.json broken since is not seen.
  writeFileSync(join(d, 'src', 'package.json'), '{ broken');
  assert.equal(loadConfig(join(d, 'src'), ruleIds, found), deep);
  assert.equal(deep.file, join(d, 'lockwise.config.json'));
  assert.throws(() => loadConfig(join(d, 'src'), ruleIds), ConfigError);
});

test('"server" names the server the fixes write for; default redis', () => {
  const d = dir('server', { 'lockwise.config.json': JSON.stringify({ server: 'valkey-9' }) });
  assert.equal(loadConfig(d, ruleIds).config.server, 'valkey-9');
  assert.equal(loadConfig(dir('no-server', { 'lockwise.config.json': '{}' }), ruleIds).config.server, undefined);
});

test('a "lockwise" key in package.json is a config too', () => {
  const d = dir('pkg', { 'package.json': JSON.stringify({ name: 'x', lockwise: { helpers: { acquire: ['takeLock'] } } }) });
  assert.deepEqual(loadConfig(d, ruleIds).config.helpers.acquire, ['takeLock']);
});

test('broken configs are errors that name the file and the problem', () => {
  const cases: [string, RegExp][] = [
    ['{ "rules": ', /not valid JSON/],
    ['[]', /must be a JSON object/],
    ['{ "rule": {} }', /unknown key "rule"/],
    ['{ "rules": { "no-such-rule": "error" } }', /unknown rule "no-such-rule"/],
    ['{ "rules": { "require-ttl": "fatal" } }', /severity "fatal"/],
    ['{ "ignore": "dist" }', /"ignore" must be an array/],
    ['{ "server": "valkey-8" }', /"server" is "valkey-8"; use one of redis, redis-8\.4, valkey-9/],
    ['{ "helpers": { "lock": ["x"] } }', /unknown key "helpers.lock"/],
    ['{ "tests": true }', /"tests" is true; use "skip"/],
  ];
  cases.forEach(([text, problem], i) => {
    const d = dir(`broken-${i}`, { 'lockwise.config.json': text });
    assert.throws(() => loadConfig(d, ruleIds), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.ok(err.message.startsWith(join(d, 'lockwise.config.json')), err.message);
      assert.match(err.message, problem);
      return true;
    });
  });
});

test('severity overrides and "off" reach the findings', () => {
  const code = `import Redis from 'ioredis';
const redis = new Redis();
export async function run(id: string) {
  await redis.set(\`lock:\${id}\`, 'x', 'NX');
}
`;
  const base = analyzeText('a.ts', code).findings.map((f) => `${f.rule}:${f.severity}`);
  assert.ok(base.includes('require-ttl:error'), base.join());
  const config = { ...emptyConfig(), rules: { 'require-ttl': 'warning' as const, 'check-acquire-result': 'off' as const } };
  const tuned = analyzeText('a.ts', code, { config }).findings.map((f) => `${f.rule}:${f.severity}`);
  assert.ok(tuned.includes('require-ttl:warning'));
  assert.ok(!tuned.some((f) => f.startsWith('check-acquire-result')));
});

test('configured helper names are lock operations', () => {
  const code = `declare function takeLock(key: string): Promise<boolean>;
declare function dropLock(key: string): Promise<void>;
declare function work(): Promise<void>;
export async function run() {
  if (!(await takeLock('report'))) return;
  await work();
  await dropLock('report');
}
`;
  assert.deepEqual(analyzeText('a.ts', code).findings, []);
  const config = { ...emptyConfig(), helpers: { acquire: ['takeLock'], release: ['dropLock'], extend: [] } };
  assert.deepEqual(analyzeText('a.ts', code, { config }).findings.map((f) => f.rule), ['release-on-all-paths']);
});
