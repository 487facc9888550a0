// A 3-master Redis Cluster (no replicas) on free ports, built with `redis-cli --cluster create`.
// `cluster-require-full-coverage no` keeps the other masters serving their slots when one is stopped,
// which is what the "one master down" tests need to see a partial, flagged result.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { startRedis, type RedisProcess } from './redis-server';
import { waitFor } from './wait';

export interface RedisCluster {
  nodes: RedisProcess[];
  /** "127.0.0.1:port" of every node, usable as seed list. */
  seeds: string[];
  stop(): Promise<void>;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (port + 10000) is free as well. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await canListen(port)) && (await canListen(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
}

async function clusterState(port: number): Promise<string> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    return /cluster_state:(\w+)/.exec(await client.cluster('INFO'))?.[1] ?? 'unknown';
  } finally {
    client.disconnect();
  }
}

export async function startCluster(masters = 3, extraArgs: string[] = []): Promise<RedisCluster> {
  const taken = new Set<number>();
  const nodes: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await clusterPort(taken);
      nodes.push(
        await startRedis({
          port,
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000', '--cluster-require-full-coverage', 'no', ...extraArgs],
        }),
      );
    }
    const seeds = nodes.map((n) => `127.0.0.1:${n.port}`);
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    for (const n of nodes) await waitFor(async () => (await clusterState(n.port)) === 'ok', `cluster state ok on ${n.port}`);
    return { nodes, seeds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
