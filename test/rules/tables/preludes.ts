// Shared file headers for the rule tables: each case is a whole, type-checkable module.
export const io = `import Redis from 'ioredis';
const redis = new Redis();
async function work(): Promise<void> {}
`;

export const nr = `import { createClient } from 'redis';
const client = createClient();
async function work(): Promise<void> {}
`;

// Valkey GLIDE: one standalone and one cluster client (shapes from @valkey/valkey-glide's .d.ts).
export const glide = `import { GlideClient, GlideClusterClient, Script, TimeUnit } from '@valkey/valkey-glide';
declare const valkey: GlideClient;
declare const cluster: GlideClusterClient;
async function work(): Promise<void> {}
`;

export const glideBatch = `import { Batch, GlideClient } from '@valkey/valkey-glide';
declare const valkey: GlideClient;
`;

export const RELEASE = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"`;
export const EXTEND = `"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"`;
