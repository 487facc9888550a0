// The typed settings module: workspace trust, production => read-only, validation, and the way
// settings turn into connections (no password from settings ever reaches a connection).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection } from '../../client/src/locks';
import {
  readPanelSettings,
  REDIS_SETTINGS,
  settingsNotices,
  type ConfigurationSource,
  type SettingInspection,
} from '../../client/src/panel/settings';
import { startRedis } from '../helpers/redis-server';

type Values = Record<string, unknown>;

/** The shape `WorkspaceConfiguration.inspect()` returns, from plain per-level values. */
function source(levels: { global?: Values; workspace?: Values; folder?: Values }): ConfigurationSource {
  return {
    inspect<T>(key: string): SettingInspection<T> {
      return {
        defaultValue: REDIS_SETTINGS[key as keyof typeof REDIS_SETTINGS].default as T,
        globalValue: levels.global?.[key] as T | undefined,
        workspaceValue: levels.workspace?.[key] as T | undefined,
        workspaceFolderValue: levels.folder?.[key] as T | undefined,
      };
    },
  };
}

test('defaults: one local connection, the four library patterns, 5 s refresh, writes allowed', () => {
  const s = readPanelSettings(source({}), true);
  assert.deepEqual(s.targets.map((t) => t.options.url), ['redis://127.0.0.1:6379']);
  assert.deepEqual(s.list, { patterns: ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*'], count: 1000, rowCap: 5000 });
  assert.equal(s.refreshMs, 5000);
  assert.deepEqual(s.writes, { allowed: true });
  assert.equal(s.targets[0]!.options.readOnly, false);
  assert.deepEqual(s.problems, []);
});

test('trusted workspace: folder beats workspace beats global', () => {
  const s = readPanelSettings(
    source({ global: { refreshSeconds: 30, rowCap: 10 }, workspace: { refreshSeconds: 10, rowCap: 20 }, folder: { rowCap: 30 } }),
    true,
  );
  assert.equal(s.refreshMs, 10_000);
  assert.equal(s.list.rowCap, 30);
  assert.deepEqual(s.ignoredWorkspaceKeys, []);
});

test('untrusted workspace: workspace values are ignored (only global ones count), listed, and writes are off', () => {
  const s = readPanelSettings(
    source({
      global: { urls: ['redis://10.0.0.5:6379'], readOnly: false },
      workspace: { urls: ['redis://attacker.example:6379'], 'tls.rejectUnauthorized': false, patterns: ['*'] },
      folder: { production: false },
    }),
    false,
  );
  assert.deepEqual(s.targets.map((t) => t.options.url), ['redis://10.0.0.5:6379']);
  assert.equal(s.targets[0]!.options.readOnly, true);
  assert.deepEqual(s.list.patterns, ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*']);
  assert.deepEqual(s.writes, { allowed: false, reason: 'the workspace is not trusted' });
  assert.equal(s.useLockSiteGlobs, false, 'no SCAN globs from an untrusted workspace\'s code, even when the user setting is on');
  assert.deepEqual(s.ignoredWorkspaceKeys, ['patterns', 'production', 'tls.rejectUnauthorized', 'urls']);
  assert.match(settingsNotices(s).join('\n'), /^This workspace is not trusted: its values for lockwise\.redis\.patterns, lockwise\.redis\.production, lockwise\.redis\.tls\.rejectUnauthorized, lockwise\.redis\.urls are ignored\.$/);
});

test('production => read-only unless readOnly is explicitly false; explicit readOnly always wins', () => {
  const prod = readPanelSettings(source({ workspace: { production: true } }), true);
  assert.equal(prod.writes.allowed, false);
  assert.match(!prod.writes.allowed ? prod.writes.reason : '', /production is on/);
  assert.equal(prod.targets[0]!.options.readOnly, true);

  const unlocked = readPanelSettings(source({ workspace: { production: true }, global: { readOnly: false } }), true);
  assert.deepEqual(unlocked.writes, { allowed: true });

  const locked = readPanelSettings(source({ global: { readOnly: true } }), true);
  assert.deepEqual(locked.writes, { allowed: false, reason: 'lockwise.redis.readOnly is on' });
});

test('invalid values fall back to the default and say so', () => {
  const s = readPanelSettings(source({ global: { db: -1, refreshSeconds: 0, patterns: 'lock:*', scanCount: 2.5 } }), true);
  assert.equal(s.refreshMs, 5000);
  assert.equal(s.list.count, 1000);
  assert.deepEqual(s.list.patterns, ['lock:*', 'mutex:*', 'semaphore:*', 'redlock:*']);
  assert.equal(s.problems.length, 4);
  assert.match(s.problems.join('\n'), /lockwise\.redis\.db must be an integer >= 0; using the default/);
});

test('a password written into a URL is dropped and reported, never passed on', () => {
  const s = readPanelSettings(source({ global: { urls: ['redis://ops:s3cret-pw@10.0.0.5:6380/2', 'http://x', 'nonsense'] } }), true);
  assert.equal(s.targets.length, 1);
  const [t] = s.targets;
  assert.equal(t!.options.url, 'redis://ops@10.0.0.5:6380/2');
  assert.equal(t!.label, '10.0.0.5:6380/2');
  assert.equal(t!.options.db, undefined, 'the database in the URL wins');
  assert.ok(!JSON.stringify(s).includes('s3cret-pw'));
  assert.equal(s.problems.length, 3);
  assert.match(s.problems[0]!, /contains a password; it was ignored/);
});

test('Cluster and Sentinel targets; the default URL only applies when nothing else is configured', () => {
  const s = readPanelSettings(
    source({
      global: { cluster: ['10.0.0.1:7000', '10.0.0.2:7000', 'bad'], sentinels: ['10.0.0.9:26379'], sentinelMasterName: 'mymaster', 'tls.enabled': true, 'tls.caFile': '/etc/ca.pem', username: 'lockwise' },
    }),
    true,
  );
  assert.deepEqual(s.targets.map((t) => t.kind), ['cluster', 'sentinel']);
  assert.deepEqual(s.targets[0]!.options.cluster, ['10.0.0.1:7000', '10.0.0.2:7000']);
  assert.equal(s.targets[0]!.label, 'cluster 10.0.0.1:7000 +1');
  assert.deepEqual(s.targets[1]!.options.sentinel, { sentinels: ['10.0.0.9:26379'], name: 'mymaster' });
  assert.deepEqual(s.targets[1]!.options.tls, { enabled: true, caFile: '/etc/ca.pem', certFile: undefined, keyFile: undefined, servername: undefined, rejectUnauthorized: true });
  assert.equal(s.targets[1]!.options.username, 'lockwise');
  assert.match(s.problems.join('\n'), /"bad" is not host:port/);
});

test('read-only from settings reaches the core: a production connection refuses release before sending it', async () => {
  const redis = await startRedis();
  const client = new Redis(redis.port, '127.0.0.1');
  try {
    await client.set('lock:prod', 'tok-1', 'PX', 60_000);
    const s = readPanelSettings(source({ global: { urls: [redis.url], production: true } }), true);
    const core = await openLockConnection(s.targets[0]!.options);
    try {
      await assert.rejects(core.release('lock:prod', 'tok-1'), /read-only/i);
      assert.equal(await client.get('lock:prod'), 'tok-1');
    } finally {
      await core.close();
    }
  } finally {
    client.disconnect();
    await redis.stop();
  }
});
