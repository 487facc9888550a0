// withLock on Redis Cluster clients (ioredis Cluster, node-redis createCluster), against a real
// one-node cluster: a cluster rejects a script whose keys are in different slots (CROSSSLOT), so
// this proves the lock key and its fencing counter always share a slot. The created helper for a
// native "server" sends its owner-checked command to the lock key's node (Redis 7 refuses it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis, { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { withLock, type LockClient } from '../../rules/templates/with-lock';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { createdHelper, removeCreatedHelpers } from './created-helper';

let server: RedisProcess;
let admin: Redis;

before(async () => {
  // Without an announced IP the node reports '' as its host, and ioredis Cluster never connects.
  server = await startRedis({
    args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-announce-ip', '127.0.0.1'],
  });
  admin = new Redis(server.port, '127.0.0.1');
  await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  const clusterOk = async () => /cluster_state:ok/.test(String(await admin.call('CLUSTER', 'INFO')));
  await waitFor(clusterOk, 'the cluster to be ok');
});
after(async () => {
  admin?.disconnect();
  await server?.stop();
  removeCreatedHelpers();
});

interface ClusterClient {
  lock: LockClient;
  close(): Promise<void>;
}

const clusterClients: Array<{ name: string; connect(): Promise<ClusterClient> }> = [
  {
    name: 'ioredis Cluster',
    async connect() {
      const cluster = new Cluster([{ host: '127.0.0.1', port: server.port }], { lazyConnect: true });
      cluster.on('error', () => {});
      await cluster.connect();
      return { lock: cluster, close: async () => cluster.disconnect() };
    },
  },
  {
    name: 'node-redis cluster',
    async connect() {
      const cluster = createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${server.port}` }] });
      cluster.on('error', () => {});
      await cluster.connect();
      return { lock: cluster, close: async () => cluster.destroy() };
    },
  },
];

for (const { name, connect } of clusterClients) {
  describe(`withLock with ${name}`, () => {
    let client: ClusterClient;
    before(async () => (client = await connect()));
    after(async () => client?.close());

    test('plain and fenced locks, with and without a hash tag in the key', async () => {
      const tag = name.replace(/\W/g, '-');
      for (const key of [`lock:${tag}:order`, `lock:{${tag}}:order`]) {
        const plain = await withLock(client.lock, key, { ttlMs: 1000 }, async (_s, lock) => admin.get(lock.key));
        assert.match(String(plain), /^lw1:/);
        const fences = [];
        for (let i = 0; i < 2; i++) {
          fences.push(await withLock(client.lock, key, { ttlMs: 1000, fencing: true }, async (_s, lock) => lock.fence));
        }
        assert.deepEqual(fences, [1, 2]);
        assert.equal(await admin.exists(key), 0);
      }
    });

    test('a fenceKey in another slot fails loudly (CROSSSLOT) instead of half-working', async () => {
      const key = `lock:${name.replace(/\W/g, '-')}:crossslot`;
      await assert.rejects(
        withLock(client.lock, key, { ttlMs: 1000, fencing: true, fenceKey: 'somewhere-else' }, async () => {}),
        /CROSSSLOT/,
      );
      assert.equal(await admin.exists(key), 0);
    });

    test('"valkey-9": the release is a DELIFEQ sent to the node of the lock key', async () => {
      const { withLock: nativeWithLock, LockReleaseError } = await createdHelper('valkey-9');
      const key = `lock:${name.replace(/\W/g, '-')}:native`;
      const error = await nativeWithLock(client.lock, key, { ttlMs: 5000, renew: false }, async () => 'done')
        .then(() => assert.fail('DELIFEQ does not exist on Redis 7'), (err: unknown) => err);
      assert.ok(error instanceof LockReleaseError, String(error));
      assert.match(String((error.cause as Error).message), /unknown command 'DELIFEQ'/i);
      await admin.del(key);
    });
  });
}
