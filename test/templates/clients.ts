// The two client libraries withLock supports, behind one small interface so every behaviour test
// runs against both. The clients are real and talk to a real redis-server.
// Each library is loaded only when used: worker processes need one, and start faster without both.
import type { LockClient } from '../../rules/templates/with-lock';

export interface TestClient {
  /** What withLock receives: the library's own client object. */
  lock: LockClient;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, pxMs?: number): Promise<void>;
  del(key: string): Promise<void>;
  pttl(key: string): Promise<number>;
  /** Calls of one command since the server started (INFO commandstats), e.g. 'set' or 'eval'. */
  commandCalls(command: string): Promise<number>;
  /** Closes the connection now; later commands fail. */
  close(): Promise<void>;
}

export interface ClientLibrary {
  name: 'ioredis' | 'node-redis';
  connect(port: number): Promise<TestClient>;
}

function callsFrom(info: string, command: string): number {
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

export const ioredis: ClientLibrary = {
  name: 'ioredis',
  async connect(port) {
    const { default: Redis } = await import('ioredis');
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true });
    // Reconnection errors are expected in the restart tests; ioredis would only log them.
    client.on('error', () => {});
    await client.connect();
    return {
      lock: client,
      get: (key) => client.get(key),
      set: async (key, value, pxMs) => {
        await (pxMs === undefined ? client.set(key, value) : client.set(key, value, 'PX', pxMs));
      },
      del: async (key) => {
        await client.del(key);
      },
      pttl: (key) => client.pttl(key),
      commandCalls: async (command) => callsFrom(await client.info('commandstats'), command),
      close: async () => client.disconnect(),
    };
  },
};

export const nodeRedis: ClientLibrary = {
  name: 'node-redis',
  async connect(port) {
    const { createClient } = await import('redis');
    const client = createClient({ url: `redis://127.0.0.1:${port}` });
    // node-redis throws an unhandled 'error' event (crashing the process) without a listener.
    client.on('error', () => {});
    await client.connect();
    return {
      lock: client,
      get: async (key) => {
        const value = await client.get(key);
        return value === null ? null : String(value);
      },
      set: async (key, value, pxMs) => {
        await (pxMs === undefined ? client.set(key, value) : client.set(key, value, { PX: pxMs }));
      },
      del: async (key) => {
        await client.del(key);
      },
      pttl: (key) => client.pTTL(key),
      commandCalls: async (command) => callsFrom(await client.info('commandstats'), command),
      close: async () => client.destroy(),
    };
  },
};

export const libraries: readonly ClientLibrary[] = [ioredis, nodeRedis];

export function libraryNamed(name: string): ClientLibrary {
  const library = libraries.find((l) => l.name === name);
  if (!library) throw new Error(`unknown client library ${name}`);
  return library;
}

/** Resolves with the signal's reason once it aborts (immediately if it already has). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

/** Rejects when `promise` has not settled within `ms`: a deadline for waits that could hang. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
