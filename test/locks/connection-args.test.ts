// The CLI's connection flags -> the lock core's ConnectionOptions (pure; the real connections are tested
// in the other files of this folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionFromArgs, UsageError } from '../../cli/src/connection-args';

test('URL default, REDIS_URL and REDIS_PASSWORD from the environment, user and db flags', () => {
  assert.deepEqual(connectionFromArgs({}, {}), { url: 'redis://127.0.0.1:6379' });
  assert.deepEqual(connectionFromArgs({ user: 'ops', db: '2' }, { REDIS_URL: 'redis://db:6380', REDIS_PASSWORD: 's3cret' }), {
    url: 'redis://db:6380',
    username: 'ops',
    password: 's3cret',
    db: 2,
  });
  assert.deepEqual(connectionFromArgs({ cluster: '10.0.0.1:7000, 10.0.0.2:7000' }, {}), { cluster: ['10.0.0.1:7000', '10.0.0.2:7000'] });
  assert.deepEqual(connectionFromArgs({ sentinel: 's1:26379,s2', name: 'main' }, {}), { sentinel: { sentinels: ['s1:26379', 's2'], name: 'main' } });
});

test('any TLS flag turns TLS on with verification; only --insecure turns verification off', () => {
  assert.deepEqual(connectionFromArgs({ url: 'rediss://db', 'tls-ca': 'ca.pem', 'tls-servername': 'db.internal' }, {}).tls, {
    enabled: true,
    caFile: 'ca.pem',
    certFile: undefined,
    keyFile: undefined,
    servername: 'db.internal',
    rejectUnauthorized: true,
  });
  assert.equal(connectionFromArgs({ url: 'rediss://db', insecure: true }, {}).tls?.rejectUnauthorized, false);
  assert.equal(connectionFromArgs({ url: 'rediss://db' }, {}).tls, undefined, 'rediss:// alone is enough; the core turns TLS on');
});

test('contradictory or incomplete flags are usage errors', () => {
  assert.throws(() => connectionFromArgs({ url: 'redis://a', cluster: 'b:1' }, {}), UsageError);
  assert.throws(() => connectionFromArgs({ sentinel: 's:1' }, {}), /--sentinel needs --name/);
  assert.throws(() => connectionFromArgs({ name: 'main' }, {}), /--name only goes with --sentinel/);
  assert.throws(() => connectionFromArgs({ db: '-1' }, {}), /--db must be a whole number/);
  assert.throws(() => connectionFromArgs({ 'connect-timeout': '0' }, {}), /above 0/);
});
