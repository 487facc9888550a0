// A lock manager that retries its own private acquire method: the retry is judged at the loop, through
// the method's summary, as a retry of a Redis acquire written in the loop would be.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const manager = (loop: string) => `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class LockManager {
  constructor(private readonly client: Redis) {}
  async waitForLock(lockKey: string, delayMs: number, timeout: number): Promise<string> {
    const token = randomUUID();
${loop}
    return token;
  }
  private async acquireLock(lockKey: string, token: string, timeout: number): Promise<boolean> {
    return (await this.client.set(lockKey, token, 'EX', timeout, 'NX')) === 'OK';
  }
}
`;

test('a while (true) around a private acquire method, left only when it succeeds, has no limit', () => {
  const findings = analyzeProject({
    'src/lock-manager.ts': manager(`    while (true) {
      if (await this.acquireLock(lockKey, token, timeout)) break;
      await new Promise((r) => setTimeout(r, delayMs + Math.random() * delayMs));
    }`),
  });
  assert.deepEqual(findingList(findings), ['src/lock-manager.ts: bounded-acquire-retry'], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});

test('the same loop with a deadline is bounded', () => {
  const findings = analyzeProject({
    'src/lock-manager.ts': manager(`    const giveUpAt = Date.now() + 10 * timeout * 1000;
    while (!(await this.acquireLock(lockKey, token, timeout))) {
      if (Date.now() > giveUpAt) throw new Error('lock busy');
      await new Promise((r) => setTimeout(r, delayMs + Math.random() * delayMs));
    }`),
  });
  assert.deepEqual(findingList(findings), [], findings.map((f) => `${f.file}: ${f.rule}: ${f.message}`).join('\n'));
});
