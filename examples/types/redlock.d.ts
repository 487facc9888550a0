// redlock 5.0.0-beta.2 ships its declarations (dist/index.d.ts), but its package.json "exports" map
// has no "types" condition, so TypeScript's "bundler" resolution finds only untyped JavaScript.
// This declares the part of redlock v5's documented API that the examples use.
declare module 'redlock' {
  import type { Cluster, Redis } from 'ioredis';

  export interface Settings {
    readonly driftFactor: number;
    /** -1 retries forever. */
    readonly retryCount: number;
    readonly retryDelay: number;
    readonly retryJitter: number;
    readonly automaticExtensionThreshold: number;
  }

  /** Aborted when an automatic extension fails; `error` says why. */
  export type RedlockAbortSignal = AbortSignal & { error?: Error };

  export class ResourceLockedError extends Error {}

  export class Lock {
    readonly resources: string[];
    readonly value: string;
    expiration: number;
    release(): Promise<unknown>;
    /** Returns a new Lock; this one is marked expired. */
    extend(duration: number): Promise<Lock>;
  }

  export default class Redlock {
    constructor(clients: Iterable<Redis | Cluster>, settings?: Partial<Settings>);
    acquire(resources: string[], duration: number, settings?: Partial<Settings>): Promise<Lock>;
    release(lock: Lock, settings?: Partial<Settings>): Promise<unknown>;
    extend(existing: Lock, duration: number, settings?: Partial<Settings>): Promise<Lock>;
    using<T>(
      resources: string[],
      duration: number,
      settings: Partial<Settings>,
      routine: (signal: RedlockAbortSignal) => Promise<T>,
    ): Promise<T>;
    using<T>(resources: string[], duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
    quit(): Promise<void>;
  }
}
