// The Redis clients the example services are built with. Services take a client in their
// constructor or as a parameter, so tests and other apps can hand them their own.
import { Redis } from 'ioredis';
import { createClient } from 'redis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** ioredis: used by the orders, billing, jobs and workers code. */
export function createIoredis(): Redis {
  return new Redis(url, { lazyConnect: true });
}

/** node-redis (v4 and later): used by the inventory code. */
export function createNodeRedis() {
  return createClient({ url });
}

export type NodeRedisClient = ReturnType<typeof createNodeRedis>;
