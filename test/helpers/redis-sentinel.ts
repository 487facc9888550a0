// One redis-sentinel (redis-server --sentinel) watching one master. Sentinel rewrites its config file,
// so it gets its own writable file in a temp dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './free-port';
import { waitFor } from './wait';

export interface SentinelProcess {
  port: number;
  stop(): Promise<void>;
}

export async function startSentinel(masterPort: number, name = 'mymaster'): Promise<SentinelProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lockwise-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${join(dir, 'sentinel.log')}`, `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`, `sentinel down-after-milliseconds ${name} 2000`, ''].join('\n'),
  );
  const child: ChildProcess = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => {
      if (exited) throw new Error(`redis-sentinel exited at start; see ${dir}/sentinel.log`);
      const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        const addr = (await probe.call('SENTINEL', 'get-master-addr-by-name', name)) as string[] | null;
        return addr?.[1] === String(masterPort);
      } finally {
        probe.disconnect();
      }
    }, `sentinel on ${port} knowing master ${name}`);
    return { port, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
