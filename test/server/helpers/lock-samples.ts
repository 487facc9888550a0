// Hand-rolled but correct locks, the kind "Convert to withLock" rewrites: acquire, critical
// section, owner-checked release in finally. Lockwise reports nothing on them before or after.

export const RELEASE_SCRIPT = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"`;

export const IOREDIS_SETTLE = `import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';

const redis = new Redis();
const RELEASE = ${RELEASE_SCRIPT};

export async function settle(id: string): Promise<void> {
  const token = randomUUID();
  const ok = await redis.set(\`lock:settle:\${id}\`, token, 'PX', 30000, 'NX');
  if (!ok) return;
  try {
    console.log('settling', id);
  } finally {
    await redis.eval(RELEASE, 1, \`lock:settle:\${id}\`, token);
  }
}
`;

export const NODE_REDIS_EXPORT = `import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';

const client = createClient();
const RELEASE = ${RELEASE_SCRIPT};

export async function exportDay(day: string): Promise<void> {
  const token = randomUUID();
  const ok = await client.set(\`lock:export:\${day}\`, token, { NX: true, PX: 20000 });
  if (!ok) return;
  try {
    console.log('exporting', day);
  } finally {
    await client.eval(RELEASE, { keys: [\`lock:export:\${day}\`], arguments: [token] });
  }
}
`;

/** The same ioredis lock in an ES module JavaScript file. */
export const IOREDIS_SETTLE_JS = IOREDIS_SETTLE.replace('(id: string): Promise<void>', '(id)');
