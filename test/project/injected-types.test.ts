// Lock services injected by type: the caller holds an interface or an abstract class, and the class
// that does the work is bound elsewhere (a NestJS provider, a container), in a file the caller never
// imports. The one production implementation is found by searching the project's class headers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSource } from '../../rules/analyze';
import { emptyConfig } from '../../rules/config';
import { memoryHost } from '../../rules/project/host';
import { ProjectIndex } from '../../rules/project/project-index';
import { analyzeProject, findingList, ROOT } from './harness';

const lockInterface = `export interface ILockService {
  acquire(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}
export const LOCK_SERVICE = Symbol('LOCK_SERVICE');
`;

const redisImplementation = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { ILockService } from './lock.interface';
export class RedisLockService implements ILockService {
  constructor(private readonly redis: Redis) {}
  async acquire(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(\`lock:\${key}\`, randomUUID(), 'PX', ttlMs, 'NX')) === 'OK';
  }
  async release(key: string): Promise<void> {
    await this.redis.del(\`lock:\${key}\`);
  }
}
`;

const injectedCaller = `import { Inject, Injectable } from '@nestjs/common';
import { ILockService, LOCK_SERVICE } from '../lock/lock.interface';
@Injectable()
export class ShippingService {
  constructor(@Inject(LOCK_SERVICE) private readonly locks: ILockService) {}
  async ship(orderId: string) {
    await this.locks.acquire(\`ship:\${orderId}\`, 10_000);
    await this.label(orderId);
    await this.locks.release(\`ship:\${orderId}\`);
  }
  private async label(orderId: string) {}
}
`;

const cases: Array<{ name: string; files: Record<string, string>; expected: string[] }> = [
  {
    name: 'an interface injected by a token: the caller ignores the boolean and releases outside finally',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/lock/lock.interface.ts': lockInterface,
      'src/lock/redis-lock.service.ts': redisImplementation,
      'src/orders/shipping.service.ts': injectedCaller,
    },
    expected: ['src/lock/redis-lock.service.ts: owner-checked-release', 'src/orders/shipping.service.ts: check-acquire-result', 'src/orders/shipping.service.ts: release-on-all-paths'],
  },
  {
    name: 'an abstract class as the injection token, extended by the Redis service; a typed function parameter',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/locking/lock-provider.ts': `export abstract class LockProvider {
  abstract tryLock(name: string, ttlMs: number): Promise<boolean>;
  abstract unlock(name: string): Promise<void>;
}
`,
      'src/locking/redis-lock-provider.ts': `import { createClient } from 'redis';
import { randomUUID } from 'node:crypto';
import { LockProvider } from './lock-provider';
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
export class RedisLockProvider extends LockProvider {
  private readonly client = createClient();
  private readonly token = randomUUID();
  async tryLock(name: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(\`lock:\${name}\`, this.token, { NX: true, PX: ttlMs })) === 'OK';
  }
  async unlock(name: string): Promise<void> {
    await this.client.eval(RELEASE, { keys: [\`lock:\${name}\`], arguments: [this.token] });
  }
}
`,
      'src/jobs/nightly.ts': `import { LockProvider } from '../locking/lock-provider';
export async function nightly(locks: LockProvider, run: () => Promise<void>) {
  await locks.tryLock('nightly', 60_000);
  try {
    await run();
  } finally {
    await locks.unlock('nightly');
  }
}
`,
    },
    // The provider is one instance per process: its token is shared by every acquisition it makes.
    expected: ['src/jobs/nightly.ts: check-acquire-result', 'src/locking/redis-lock-provider.ts: unique-token'],
  },
  {
    name: 'a finally that releases through a bare-DEL helper also after a failed acquire deletes the holder\'s lock',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/lock/lock.interface.ts': lockInterface,
      'src/lock/redis-lock.service.ts': redisImplementation,
      'src/wallet/wallet.service.ts': `import { Inject } from '@nestjs/common';
import { ILockService, LOCK_SERVICE } from '../lock/lock.interface';
export class WalletService {
  constructor(@Inject(LOCK_SERVICE) private readonly locks: ILockService) {}
  async topUp(userId: string, credit: () => Promise<void>) {
    const key = \`wallet:\${userId}\`;
    try {
      if (!(await this.locks.acquire(key, 5000))) throw new Error('busy');
      await credit();
    } finally {
      await this.locks.release(key);
    }
  }
}
`,
    },
    expected: ['src/lock/redis-lock.service.ts: owner-checked-release', 'src/wallet/wallet.service.ts: release-only-acquired'],
  },
  {
    name: 'a test double of the interface is not the implementation production injects',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/lock/lock.interface.ts': lockInterface,
      'src/lock/redis-lock.service.ts': redisImplementation,
      'test/in-memory-lock.service.ts': `import Redis from 'ioredis';
import { ILockService } from '../src/lock/lock.interface';
export class FakeLockService implements ILockService {
  private readonly redis = new Redis();
  async acquire(key: string): Promise<boolean> {
    return (await this.redis.setnx(\`lock:\${key}\`, '1')) === 1;
  }
  async release(key: string): Promise<void> {
    await this.redis.del(\`lock:\${key}\`);
  }
}
`,
      'src/orders/shipping.service.ts': injectedCaller,
    },
    expected: [
      'src/lock/redis-lock.service.ts: owner-checked-release',
      'src/orders/shipping.service.ts: check-acquire-result',
      'src/orders/shipping.service.ts: release-on-all-paths',
      'test/in-memory-lock.service.ts: owner-checked-release',
      'test/in-memory-lock.service.ts: require-ttl',
      'test/in-memory-lock.service.ts: unique-token',
    ],
  },
  {
    name: 'an abstract class named for its domain, whose abstract members are lock operations, extended by the Redis class',
    files: {
      'package.json': '{ "name": "rides" }',
      'src/dispatch/driver-registry.ts': `export abstract class DriverRegistry {
  abstract lockDriver(driverId: string, ttlSeconds: number): Promise<boolean>;
  abstract unlockDriver(driverId: string): Promise<void>;
}
`,
      'src/dispatch/redis-driver-registry.ts': `import Redis from 'ioredis';
import { DriverRegistry } from './driver-registry';
export class RedisDriverRegistry extends DriverRegistry {
  private readonly redis = new Redis();
  async lockDriver(driverId: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(\`driver:\${driverId}:lock\`, 'busy', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
  async unlockDriver(driverId: string): Promise<void> {
    await this.redis.del(\`driver:\${driverId}:lock\`);
  }
}
`,
      'src/dispatch/matcher.ts': `import { DriverRegistry } from './driver-registry';
export class Matcher {
  constructor(private readonly drivers: DriverRegistry) {}
  async offer(driverId: string, notify: () => Promise<void>) {
    await this.drivers.lockDriver(driverId, 45);
    await notify();
  }
}
`,
    },
    expected: [
      'src/dispatch/matcher.ts: check-acquire-result',
      'src/dispatch/redis-driver-registry.ts: owner-checked-release',
      'src/dispatch/redis-driver-registry.ts: unique-token',
    ],
  },
  {
    name: 'a NestJS provider binds the abstract token to a Redis service that does not say implements',
    files: {
      'package.json': '{ "name": "bank" }',
      'src/locking/lock.service.ts': `export abstract class LockService {
  abstract acquire(name: string, ttlMs: number): Promise<boolean>;
  abstract release(name: string): Promise<void>;
}
`,
      'src/redis/redis.service.ts': `import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
@Injectable()
export class RedisService {
  private readonly client = new Redis();
  async acquire(name: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(\`lock:\${name}\`, 'held', 'PX', ttlMs, 'NX')) === 'OK';
  }
  async release(name: string): Promise<void> {
    await this.client.del(\`lock:\${name}\`);
  }
}
`,
      'src/locking/locking.module.ts': `import { Module } from '@nestjs/common';
import { RedisService } from '../redis/redis.service';
import { LockService } from './lock.service';
@Module({
  providers: [RedisService, { provide: LockService, useExisting: RedisService }],
  exports: [LockService],
})
export class LockingModule {}
`,
      'src/transfers/transfers.service.ts': `import { Injectable } from '@nestjs/common';
import { LockService } from '../locking/lock.service';
@Injectable()
export class TransfersService {
  constructor(private readonly locks: LockService) {}
  async move(accountId: string, post: () => Promise<void>) {
    if (!(await this.locks.acquire(\`account:\${accountId}\`, 5000))) throw new Error('busy');
    await post();
    await this.locks.release(\`account:\${accountId}\`);
  }
}
`,
    },
    expected: [
      'src/redis/redis.service.ts: owner-checked-release',
      'src/redis/redis.service.ts: unique-token',
      'src/transfers/transfers.service.ts: release-on-all-paths',
    ],
  },
  {
    name: 'an inversify container binds a lock-named interface to a Redis class that does not say implements',
    files: {
      'package.json': '{ "name": "tickets" }',
      'src/seats/seat-locker.ts': `export interface SeatLocker {
  hold(seat: string, ttlMs: number): Promise<boolean>;
  free(seat: string): Promise<void>;
}
`,
      'src/seats/redis-seat-locker.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const FREE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0';
export class RedisSeatLocker {
  private readonly redis = new Redis();
  private readonly id = randomUUID();
  async hold(seat: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(\`seat:lock:\${seat}\`, this.id, 'PX', ttlMs, 'NX')) === 'OK';
  }
  async free(seat: string): Promise<void> {
    await this.redis.eval(FREE, 1, \`seat:lock:\${seat}\`, this.id);
  }
}
`,
      'src/container.ts': `import { Container } from 'inversify';
import type { SeatLocker } from './seats/seat-locker';
import { RedisSeatLocker } from './seats/redis-seat-locker';
export const container = new Container();
container.bind<SeatLocker>('SeatLocker').to(RedisSeatLocker);
`,
      'src/checkout.ts': `import { inject, injectable } from 'inversify';
import type { SeatLocker } from './seats/seat-locker';
@injectable()
export class Checkout {
  constructor(@inject('SeatLocker') private readonly holds: SeatLocker) {}
  async buy(seat: string, pay: () => Promise<void>) {
    await this.holds.hold(seat, 60_000);
    await pay();
  }
}
`,
    },
    // The binding names no interface the class implements: without it the caller means nothing.
    expected: ['src/checkout.ts: check-acquire-result', 'src/seats/redis-seat-locker.ts: unique-token'],
  },
  {
    name: 'a lock service over a store typed by a generic interface: the store\'s one implementation wraps Redis, so its get, set and delete are commands',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/store/store.ts': `export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  delete(key: string): Promise<void>;
}
`,
      'src/store/redis-store.ts': `import Redis from 'ioredis';
import { KeyValueStore } from './store';
export class RedisStore implements KeyValueStore {
  private readonly redis = new Redis();
  async get(key: string) {
    return this.redis.get(key);
  }
  async set(key: string, value: string, ttlSeconds?: number) {
    if (ttlSeconds) await this.redis.set(key, value, 'EX', ttlSeconds);
    else await this.redis.set(key, value);
  }
  async delete(key: string) {
    await this.redis.del(key);
  }
}
`,
      'src/lock/lock.service.ts': `import { Inject } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { KeyValueStore } from '../store/store';
export class ClusterLockService {
  constructor(@Inject('KV_STORE') private readonly kv: KeyValueStore) {}
  async acquire(name: string, ttlSeconds = 10): Promise<string | null> {
    const id = randomUUID();
    if (await this.kv.get(\`lock:\${name}\`)) return null;
    await this.kv.set(\`lock:\${name}\`, id, ttlSeconds);
    return id;
  }
  async release(name: string, id: string): Promise<void> {
    if ((await this.kv.get(\`lock:\${name}\`)) !== id) return;
    await this.kv.delete(\`lock:\${name}\`);
  }
}
`,
      'src/profile/profile.service.ts': `import { Inject } from '@nestjs/common';
import { KeyValueStore } from '../store/store';
export class ProfileService {
  constructor(@Inject('KV_STORE') private readonly kv: KeyValueStore) {}
  async refresh(userId: string) {
    if (await this.kv.get(\`profile:\${userId}\`)) return;
    await this.kv.set(\`profile:\${userId}\`, 'fresh', 60);
    await this.kv.delete(\`profile:\${userId}:draft\`);
  }
}
`,
    },
    expected: ['src/lock/lock.service.ts: exclusive-acquire', 'src/lock/lock.service.ts: owner-checked-release'],
  },
  {
    name: 'two production implementations: which one is bound cannot be told, so the caller means nothing',
    files: {
      'package.json': '{ "name": "shop" }',
      'src/lock/lock.interface.ts': lockInterface,
      'src/lock/redis-lock.service.ts': redisImplementation,
      'src/lock/etcd-lock.service.ts': `import { Etcd3 } from 'etcd3';
import Redis from 'ioredis';
import { ILockService } from './lock.interface';
export class ClusterLockService implements ILockService {
  private readonly redis = new Redis();
  async acquire(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(\`elect:\${key}\`, process.pid.toString(), 'PX', ttlMs, 'NX')) === 'OK';
  }
  async release(key: string): Promise<void> {}
}
`,
      'src/orders/shipping.service.ts': injectedCaller,
    },
    expected: ['src/lock/redis-lock.service.ts: owner-checked-release'],
  },
  {
    name: 'the search for implementations stays inside the repository (its .git folder) when no package.json is nearer',
    files: {
      // A folder above the checkout, another project: its implementation of the same interface is not this one's.
      'package.json': '{ "name": "workspace-of-many-checkouts" }',
      'other/redis-lease.service.ts': `import Redis from 'ioredis';
import { ILockService } from '../shop/src/lock/lock.interface';
export class RedisLeaseService implements ILockService {
  constructor(private readonly redis: Redis) {}
  async acquire(key: string, ttlMs: number): Promise<boolean> {
    await this.redis.set(\`lease:\${key}\`, 'x', 'PX', ttlMs, 'NX');
    return true;
  }
  async release(key: string): Promise<void> {}
}
`,
      'shop/.git/HEAD': 'ref: refs/heads/main\n',
      'shop/src/lock/lock.interface.ts': lockInterface,
      'shop/src/lock/redis-lock.service.ts': redisImplementation,
      'shop/src/orders/shipping.service.ts': injectedCaller,
    },
    expected: ['other/redis-lease.service.ts: check-acquire-result', 'shop/src/lock/redis-lock.service.ts: owner-checked-release', 'shop/src/orders/shipping.service.ts: check-acquire-result', 'shop/src/orders/shipping.service.ts: release-on-all-paths'],
  },
];

for (const c of cases) {
  test(`injected by type: ${c.name}`, () => {
    const findings = analyzeProject(c.files);
    assert.deepEqual(findingList(findings), [...c.expected].sort(), findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
  });
}

test('injected by type: the caller finding points at the implementation it was resolved to', () => {
  const findings = analyzeProject(cases[0].files).filter((f) => f.file === 'src/orders/shipping.service.ts' && f.rule === 'check-acquire-result');
  assert.equal(findings.length, 1);
  assert.ok(findings[0].related.some((r) => r.file?.endsWith('src/lock/redis-lock.service.ts')), JSON.stringify(findings[0].related));
});

test('injected by type: binding the token to another class re-analyses the caller', () => {
  const bound = cases.find((c) => c.name.startsWith('a NestJS provider binds'))!;
  const files = Object.fromEntries(Object.entries(bound.files).map(([name, text]) => [`${ROOT}/${name}`, text]));
  const [caller, module] = [`${ROOT}/src/transfers/transfers.service.ts`, `${ROOT}/src/locking/locking.module.ts`];
  // The module also declares a class with no lock work; at first the provider binds the Redis service.
  files[module] += 'class NoLocks { async acquire() { return true; } async release() {} }\n';
  const config = emptyConfig();
  const affected: string[] = [];
  const index = new ProjectIndex({ host: memoryHost(files), configFor: () => config, onMeaningChanged: (_path, files) => affected.push(...files) });
  const rules = () => index.analyze(caller, files[caller], { config, summaryOnDemand: true }).findings.map((f) => f.rule);
  assert.deepEqual(rules(), ['release-on-all-paths']);
  // Only the binding changes (the module's summary does not): the caller is told, and means nothing now.
  const rebound = files[module].replace('useExisting: RedisService', 'useClass: NoLocks');
  index.modelOf(module, rebound, parseSource(module, rebound), config, true);
  assert.deepEqual(affected, [caller]);
  assert.deepEqual(rules(), []);
});
