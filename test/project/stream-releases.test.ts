// A lock a project service hands back (redlock's Lock), taken in a promise chain or an RxJS pipe (the
// NestJS interceptor shape) and released only where the work succeeded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const service = `import Redlock from 'redlock';
import Redis from 'ioredis';
export class LeaseService {
  private readonly redlock = new Redlock([new Redis()], { retryCount: 3, retryDelay: 150, retryJitter: 50 });
  async lease(resource: string, ttl = 4000) {
    return this.redlock.acquire([resource], ttl);
  }
}
`;

const interceptor = (inner: string) => `import { from, switchMap, finalize, type Observable } from 'rxjs';
import { LeaseService } from './lease.service';
interface Handler { handle(): Observable<unknown> }
export class LeaseInterceptor {
  constructor(private readonly leases: LeaseService) {}
  intercept(id: string, next: Handler): Observable<unknown> {
    return from(this.leases.lease(\`lease:order:\${id}\`)).pipe(
      switchMap((lease) =>
${inner}
      ),
    );
  }
}
`;

test('an interceptor that releases the lease only in a switchMap on the handler\'s values', () => {
  const findings = analyzeProject({
    'src/lease.service.ts': service,
    'src/lease.interceptor.ts': interceptor(`        next.handle().pipe(
          switchMap(async (value) => {
            await lease.release();
            return value;
          }),
        ),`),
  });
  assert.deepEqual(findingList(findings), ['src/lease.interceptor.ts: release-on-all-paths'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /only in a `switchMap` on the values of `next\.handle\(\)`/);
  assert.match(findings[0].message, /finalize/);
});

test('the same interceptor releasing in finalize is not reported', () => {
  const findings = analyzeProject({
    'src/lease.service.ts': service,
    'src/lease.interceptor.ts': interceptor(`        next.handle().pipe(
          finalize(() => {
            void lease.release();
          }),
        ),`),
  });
  assert.deepEqual(findingList(findings), []);
});

test('the lease taken in a .then and released only in a .then of the work', () => {
  const findings = analyzeProject({
    'src/lease.service.ts': service,
    'src/job.ts': `import { LeaseService } from './lease.service';
declare function ship(id: string): Promise<number>;
export function run(leases: LeaseService, id: string) {
  return leases.lease(\`lease:ship:\${id}\`).then((lease) =>
    ship(id).then(async (n) => {
      await lease.release();
      return n;
    }),
  );
}
`,
  });
  assert.deepEqual(findingList(findings), ['src/job.ts: release-on-all-paths'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /released only in a `\.then` of `ship\(id\)`/);
});
