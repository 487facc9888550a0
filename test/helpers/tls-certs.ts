// A throwaway certificate authority with a server and a client certificate, made with the openssl CLI
// in a temp dir. The server certificate names only `lockwise.test`, so hostname checks are exercised too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The only name in the server certificate. */
  servername: string;
  remove(): void;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'lockwise-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  // EC keys: generated in milliseconds, unlike RSA.
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const servername = 'lockwise.test';

  openssl('req', '-x509', ...newKey, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Lockwise Test CA');
  const issue = (name: string, cn: string, ext: string) => {
    writeFileSync(at(`${name}.ext`), ext);
    openssl('req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  };
  issue('server', servername, `subjectAltName=DNS:${servername}\nextendedKeyUsage=serverAuth\n`);
  issue('client', 'lockwise-client', 'extendedKeyUsage=clientAuth\n');

  return {
    dir,
    caFile: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    servername,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** redis-server arguments for a TLS-only server with these certificates (clients must present one). */
export function tlsServerArgs(certs: TestCerts): string[] {
  return ['--tls-cert-file', certs.serverCert, '--tls-key-file', certs.serverKey, '--tls-ca-cert-file', certs.caFile, '--tls-auth-clients', 'yes'];
}
