// Keys that are not locks, written through a project's own Redis wrapper (a NestJS `RedisService` with
// `setNx`, `set`, `increment` and `delete`): an idempotency marker rolled back in an RxJS error callback,
// and an account lockout set once a counter reaches its limit. The wrapper gives each call its command's
// meaning; what the key is comes from the caller's code, as it would with the client called directly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const REDIS_SERVICE = `import { createClient } from 'redis';
export class RedisService {
  private readonly client = createClient();
  async setNx(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(key, value, { NX: true, EX: ttlSeconds })) === 'OK';
  }
  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds) await this.client.set(key, value, { EX: ttlSeconds });
    else await this.client.set(key, value);
  }
  async get(key: string): Promise<string | null> {
    return this.client.get(key);
  }
  async increment(key: string, ttlSeconds: number): Promise<number> {
    const count = await this.client.incr(key);
    if (count === 1) await this.client.expire(key, ttlSeconds);
    return count;
  }
  async delete(key: string): Promise<void> {
    await this.client.del(key);
  }
}
`;

/** `onError` is what the request's observable does when the handler fails. */
const interceptor = (onError: string) => `import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Observable, of, tap } from 'rxjs';
import { RedisService } from '../redis/redis.service';
@Injectable()
export class EventIdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly redisService: RedisService) {}
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const eventId: string = context.switchToHttp().getRequest().body.eventId;
    const cacheKey = \`idempotency:event:\${eventId}\`;
    const fresh = await this.redisService.setNx(cacheKey, 'PROCESSING', 86400);
    if (!fresh) return of({ message: 'already processed' });
    return next.handle().pipe(${onError});
  }
}
`;

test('an idempotency marker deleted only in the error callback of the request it admitted is rolled back, not released', () => {
  for (const onError of [
    `tap({ error: () => { void this.redisService.delete(cacheKey).catch(() => undefined); } })`,
    `tap({ next: () => undefined, error: async () => { await this.redisService.delete(cacheKey); } })`,
  ]) {
    const found = analyzeProject({ 'src/redis/redis.service.ts': REDIS_SERVICE, 'src/events/idempotency.interceptor.ts': interceptor(onError) });
    assert.deepEqual(findingList(found), [], `${onError}\n${found.map((f) => f.message).join('\n')}`);
  }
});

test('the same key deleted when the request completes is a release: its fixed value and bare DEL are reported', () => {
  const found = analyzeProject({
    'src/redis/redis.service.ts': REDIS_SERVICE,
    'src/events/idempotency.interceptor.ts': interceptor(`tap({ complete: () => { void this.redisService.delete(cacheKey); } })`),
  });
  assert.deepEqual(findingList(found), ['src/events/idempotency.interceptor.ts: owner-checked-release', 'src/events/idempotency.interceptor.ts: unique-token']);
});

/** A login store whose lock key comes from a method of its own class. */
const loginStore = (gate: string) => `import { RedisService } from '../redis/redis.service';
export class LoginAttemptStore {
  constructor(private readonly redisService: RedisService) {}
  private attemptsKey(email: string) {
    return \`auth:login:attempts:\${email}\`;
  }
  private getLockKey(email: string) {
    return \`auth:login:locked:\${email}\`;
  }
  async registerFailure(email: string, limits: { maxFailedAttempts: number; windowSeconds: number; lockSeconds: number }) {
    const attempts = await this.redisService.increment(this.attemptsKey(email), limits.windowSeconds);
    ${gate}
  }
  async isLocked(email: string): Promise<boolean> {
    return (await this.redisService.get(this.getLockKey(email))) === '1';
  }
  async clear(email: string) {
    await this.redisService.delete(this.attemptsKey(email));
    await this.redisService.delete(this.getLockKey(email));
  }
}
`;

test("an account lockout named by a method of the class (`this.getLockKey(email)` returning `...:locked:...`) is a state, not a lock", () => {
  const found = analyzeProject({
    'src/redis/redis.service.ts': REDIS_SERVICE,
    'src/auth/login-attempt-store.ts': loginStore(`if (attempts >= limits.maxFailedAttempts) await this.redisService.set(this.getLockKey(email), '1', limits.lockSeconds);`),
  });
  assert.deepEqual(findingList(found), [], found.map((f) => f.message).join('\n'));
});
