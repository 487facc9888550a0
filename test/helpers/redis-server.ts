// Starts private redis-server processes on free ports so tests are isolated and can kill, pause and
// restart them. Never a mock: every test talks to a real server.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait';

export interface RedisProcess {
  port: number;
  url: string;
  dir: string;
  /** The running child; replaced by restart(). */
  child: ChildProcess;
  /** SIGKILL the server and wait until it is gone. */
  kill(): Promise<void>;
  /** Start the server again on the same port with the same arguments. */
  restart(): Promise<void>;
  /** Stop for good and remove its directory. */
  stop(): Promise<void>;
}

export interface RedisOptions {
  /** Extra redis-server arguments, e.g. ['--cluster-enabled', 'yes']. */
  args?: string[];
  port?: number;
  /** When true, `port` is used for TLS only (`--port 0 --tls-port P`); pass the tls-* args in `args`. */
  tlsOnly?: boolean;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

export async function startRedis(options: RedisOptions = {}): Promise<RedisProcess> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'lockwise-redis-'));
  const portArgs = options.tlsOnly ? ['--port', '0', '--tls-port', String(port)] : ['--port', String(port)];
  const args = [
    ...portArgs,
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', 'no',
    '--dir', dir,
    '--logfile', join(dir, 'redis.log'),
    ...(options.args ?? []),
  ];

  const launch = async (): Promise<ChildProcess> => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    let exited = false;
    child.once('exit', () => (exited = true));
    await waitFor(async () => {
      if (exited) throw new Error(`redis-server exited at start; see ${dir}/redis.log`);
      return pingOnce(port);
    }, `redis-server on port ${port}`);
    return child;
  };

  const killChild = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };

  const proc: RedisProcess = {
    port,
    url: `${options.tlsOnly ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    dir,
    child: await launch(),
    kill: () => killChild(proc.child),
    restart: async () => {
      await killChild(proc.child);
      proc.child = await launch();
    },
    stop: async () => {
      await killChild(proc.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return proc;
}
