// A release helper that first makes sure it still holds the lock (it takes or renews it again, and
// leaves when that fails) is a release to its callers: its answer says whether it deleted, nothing
// runs under a lock after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeProject, findingList } from './harness';

const scheduler = () => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Queue } from './queue';
export class Scheduler {
  private readonly redis = new Redis();
  private readonly name = randomUUID();
  constructor(private readonly queue: Queue) {}
  private async tryForLeader(): Promise<boolean> {
    const taken = await this.redis.set(this.queue.leaderKey(), this.name, 'EX', 60, 'NX');
    if (taken === 'OK') return true;
    return (await this.redis.get(this.queue.leaderKey())) === this.name;
  }
  private async releaseLeaderLock(): Promise<boolean> {
    const isLeader = await this.tryForLeader();
    if (!isLeader) return false;
    return (await this.redis.unlink(this.queue.leaderKey())) === 1;
  }
  async end(): Promise<void> {
    try {
      await this.releaseLeaderLock();
    } catch (error) {
      console.error(error);
    }
  }
}
`;

const QUEUE = `export class Queue {
  leaderKey(): string {
    return 'scheduler:leader';
  }
}
`;

test('a release helper that takes the lock again to be sure it holds it is no acquire at its call', () => {
  const findings = analyzeProject({ 'src/scheduler.ts': scheduler(), 'src/queue.ts': QUEUE });
  // The GET-compare before the UNLINK is a separate round trip: that is the helper's own finding.
  assert.deepEqual(findingList(findings), ['src/scheduler.ts: owner-checked-release'], findings.map((f) => f.message).join('\n'));
});
