// TLS with a throwaway CA against a TLS-only redis-server that requires client certificates:
// verification is on by default (works with the CA, fails clearly without it), the servername decides the
// hostname check, and turning verification off is explicit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openLockConnection, type ConnectionOptions } from '../../client/src/locks/index';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { makeTestCerts, tlsServerArgs, type TestCerts } from '../helpers/tls-certs';

let certs: TestCerts;
let server: RedisProcess;

before(async () => {
  certs = makeTestCerts();
  server = await startRedis({ tlsOnly: true, args: tlsServerArgs(certs) });
});

after(async () => {
  await server?.stop();
  certs?.remove();
});

const base = (): ConnectionOptions => ({
  url: `rediss://127.0.0.1:${server.port}`,
  connectTimeoutMs: 3000,
  tls: { enabled: true, caFile: certs.caFile, certFile: certs.clientCert, keyFile: certs.clientKey, servername: certs.servername },
});

test('with the CA, the client certificate and the certificate name, listing works over TLS', async () => {
  const conn = await openLockConnection(base());
  try {
    assert.equal(conn.target, `rediss://127.0.0.1:${server.port}/0`);
    assert.deepEqual((await conn.list()).errors, []);
  } finally {
    await conn.close();
  }
});

test('without the CA the certificate is not trusted: a TLS error that says what to check', async () => {
  const o = base();
  delete o.tls!.caFile;
  await assert.rejects(openLockConnection(o), (err: Error & { kind?: string }) => {
    assert.equal(err.kind, 'tls');
    assert.match(err.message, /TLS connection to rediss:\/\/127\.0\.0\.1:\d+\/0 failed: .*certificate.*Check the CA file/);
    return true;
  });
});

test('a server name the certificate does not carry fails the hostname check', async () => {
  const o = base();
  delete o.tls!.servername; // the certificate names lockwise.test, not 127.0.0.1
  await assert.rejects(openLockConnection(o), (err: Error & { kind?: string }) => err.kind === 'tls' && /servername/.test(err.message));
});

test('without a client certificate the server refuses the connection', async () => {
  const o = base();
  delete o.tls!.certFile;
  delete o.tls!.keyFile;
  await assert.rejects(openLockConnection(o), (err: Error & { kind?: string }) => err.kind === 'tls' && /certificate required/.test(err.message));
});

test('a plain connection to the TLS port is closed by the server, and the message points at TLS', async () => {
  await assert.rejects(
    openLockConnection({ url: `redis://127.0.0.1:${server.port}`, connectTimeoutMs: 3000 }),
    (err: Error & { kind?: string }) => /expects TLS \(rediss:\/\/\)/.test(err.message),
  );
});

test('verification off is explicit (rejectUnauthorized: false) and then connects without the CA', async () => {
  const o = base();
  delete o.tls!.caFile;
  o.tls!.rejectUnauthorized = false;
  const conn = await openLockConnection(o);
  await conn.close();
});

test('an unreadable CA file is a configuration error naming the file', async () => {
  const o = base();
  o.tls!.caFile = '/nonexistent/ca.crt';
  await assert.rejects(openLockConnection(o), (err: Error & { kind?: string }) => err.kind === 'config' && /\/nonexistent\/ca\.crt.*ENOENT/.test(err.message));
});
