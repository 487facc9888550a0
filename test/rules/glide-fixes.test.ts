// The fix text Lockwise writes for Valkey GLIDE, run with the real GLIDE client against a real server
// (Redis 7 here; GLIDE speaks to Redis OSS as to Valkey): the atomic acquire, and the Lua
// compare-and-delete and compare-and-pexpire through customCommand, with the right and a wrong token.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GlideClient } from '@valkey/valkey-glide';
import ts from 'typescript';
import { atomicSet, guardedExtend, guardedRelease, type GuardedCall } from '../../rules/fixes/text';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let server: RedisProcess;
let client: GlideClient;

before(async () => {
  server = await startRedis();
  client = await GlideClient.createClient({ addresses: [{ host: '127.0.0.1', port: server.port }], requestTimeout: 5000 });
});
after(async () => {
  client?.close();
  await server?.stop();
});

/** Runs a fix's expression text (after the script constant it declares) with `client`, `key`, `token` (and `ttl`) in scope. */
function run(fix: string | GuardedCall, key: string, token: string, ttl = 0): Promise<unknown> {
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
  const [prelude, expression] = typeof fix === 'string' ? ['', fix] : [fix.edits.map((e) => e.newText).join('\n'), fix.call];
  return new AsyncFunction('client', 'key', 'token', 'ttl', `${prelude}\nreturn ${expression};`)(client, key, token, ttl);
}

/** A GLIDE file the fix is written into (empty: the script constant is new). */
const file = { style: 'glide' as const, sourceFile: ts.createSourceFile('fix.ts', '', ts.ScriptTarget.Latest) };

test('the acquire fix is one SET NX PX: the first caller wins, with a TTL', async () => {
  const acquire = atomicSet('glide', 'client', 'key', 'token', 'PX', 'ttl');
  assert.match(acquire, /^client\.customCommand\(\[/);
  assert.equal(await run(acquire, 'lock:acquire', 'a', 5000), 'OK');
  assert.equal(await run(acquire, 'lock:acquire', 'b', 5000), null);
  const pttl = Number(await client.pttl('lock:acquire'));
  assert.ok(pttl > 0 && pttl <= 5000, `pttl ${pttl}`);
});

test('the release fix deletes only with the holder token', async () => {
  await client.customCommand(['SET', 'lock:release', 'mine', 'PX', '5000']);
  const release = guardedRelease(file, 'client', 'key', 'token');
  assert.equal(Number(await run(release, 'lock:release', 'theirs')), 0);
  assert.equal(await client.get('lock:release'), 'mine');
  assert.equal(Number(await run(release, 'lock:release', 'mine')), 1);
  assert.equal(await client.exists(['lock:release']), 0);
});

test('the extend fix sets the TTL only with the holder token', async () => {
  await client.customCommand(['SET', 'lock:extend', 'mine', 'PX', '1000']);
  const extend = guardedExtend(file, 'client', 'key', 'token', 'ttl');
  assert.equal(Number(await run(extend, 'lock:extend', 'theirs', 60_000)), 0);
  assert.ok(Number(await client.pttl('lock:extend')) <= 1000);
  assert.equal(Number(await run(extend, 'lock:extend', 'mine', 60_000)), 1);
  assert.ok(Number(await client.pttl('lock:extend')) > 1000);
});
