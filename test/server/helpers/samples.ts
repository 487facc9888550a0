// Source files with lock misuse the server tests open, scan and fix. Each one type-checks as it is
// (against the installed ioredis / redis types), so a fix that breaks the types is the fix's fault.

/** ioredis: SETNX + separate EXPIRE, a constant token, an unchecked DEL. */
export const IOREDIS_ORDERS = `import Redis from 'ioredis';

const redis = new Redis();

export async function processOrder(id: string): Promise<void> {
  const ok = await redis.setnx(\`lock:order:\${id}\`, 'worker');
  if (!ok) return;
  await redis.expire(\`lock:order:\${id}\`, 30);
  try {
    console.log('processing', id);
  } finally {
    await redis.del(\`lock:order:\${id}\`);
  }
}
`;

/** node-redis: SET NX without a TTL whose result is ignored, a plain pExpire renewal, a DEL release. */
export const NODE_REDIS_REPORTS = `import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';

const client = createClient();

export async function buildReport(day: string): Promise<void> {
  const token = randomUUID();
  await client.set(\`lock:report:\${day}\`, token, { NX: true });
  console.log('building', day);
  await client.pExpire(\`lock:report:\${day}\`, 10_000);
  await client.del(\`lock:report:\${day}\`);
}
`;

/** No lock code at all: the server must stay quiet on it. */
export const PLAIN = `export function add(a: number, b: number): number {
  return a + b;
}
`;
