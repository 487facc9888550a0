// A watchdog kept as a chain of timeouts in a map of timers: each round renews with an owner-checked Lua
// SETEX and schedules the next round by calling its own setup method; a failed renewal only forgets its timer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const store = (onFailure: string) => ({
  'src/state-store.ts': `import Redis from 'ioredis';
const RENEW = \`local owner = ARGV[1]
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).owner == owner then
  redis.call('SETEX', KEYS[1], tonumber(ARGV[2]), ARGV[3])
  return 1
end
return 0\`;
export class StateStore {
  private readonly renewalTimers = new Map<string, NodeJS.Timeout>();
  constructor(private readonly client: Redis) {}
  async hold(lockKey: string, owner: string, ttlSeconds: number): Promise<boolean> {
    const record = JSON.stringify({ owner, at: Date.now() });
    if ((await this.client.set(lockKey, record, 'EX', ttlSeconds, 'NX')) !== 'OK') return false;
    this.scheduleRenewal(lockKey, owner, ttlSeconds);
    return true;
  }
  private scheduleRenewal(lockKey: string, owner: string, ttlSeconds: number): void {
    const timer = setTimeout(async () => {
      const renewed = await this.client.eval(RENEW, 1, lockKey, owner, String(ttlSeconds), JSON.stringify({ owner, at: Date.now() }));
      if (renewed) {
        this.scheduleRenewal(lockKey, owner, ttlSeconds);
      } else {
        ${onFailure}
      }
    }, (ttlSeconds * 1000) / 2);
    this.renewalTimers.set(lockKey, timer);
  }
  async drop(lockKey: string, owner: string): Promise<void> {
    clearTimeout(this.renewalTimers.get(lockKey));
    this.renewalTimers.delete(lockKey);
    await this.client.eval("if redis.call('GET', KEYS[1]) and cjson.decode(redis.call('GET', KEYS[1])).owner == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, lockKey, owner);
  }
}
`,
});

test('a failed owner-checked SETEX renewal that only forgets its timer and logs: the work never hears, reported once at the renewal (not at the next round it schedules)', () => {
  const findings = analyzeProject(store("this.renewalTimers.delete(lockKey);\n        console.warn('renewal failed', lockKey);"));
  assert.deepEqual(findingList(findings), ['src/state-store.ts: stop-on-lock-lost'], findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /only logs a failed extend of lockKey/);
});

test('a failed renewal that records the loss in a map the work reads is handled', () => {
  const files = store("this.lost.add(lockKey);");
  files['src/state-store.ts'] = files['src/state-store.ts']
    .replace('  private readonly renewalTimers', '  readonly lost = new Set<string>();\n  private readonly renewalTimers')
    .replace('  async drop(', '  stillHeld(lockKey: string): boolean {\n    return !this.lost.has(lockKey);\n  }\n  async drop(');
  assert.deepEqual(findingList(analyzeProject(files)), []);
});
