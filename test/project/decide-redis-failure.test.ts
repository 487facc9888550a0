// decide-redis-failure through a project helper in another file: which argument is the lock's key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject } from './harness';
import { withQuietLocker } from './quiet-locker';

// A gate object that locks a key built from the name it was given, and a withLock-like helper taking (name, routine, options).
const GATE_MODULE = `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const FREE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
export class Gate {
  private readonly me = randomUUID();
  private readonly name: string;
  constructor(name: string, private readonly ttl: number) {
    this.name = \`gate:\${name}\`;
  }
  async take(): Promise<boolean> {
    return (await redis.set(this.name, this.me, 'PX', this.ttl, 'NX')) === 'OK';
  }
  async takeWithin(maxMs: number): Promise<boolean> {
    const end = Date.now() + maxMs;
    while (Date.now() < end) {
      if (await this.take()) return true;
      await new Promise((done) => setTimeout(done, 20 + Math.random() * 30));
    }
    return false;
  }
  async give(): Promise<void> {
    await redis.eval(FREE, 1, this.name, this.me);
  }
}
export async function guarded<T>(name: string, routine: () => Promise<T>, options: { ttl?: number; maxMs?: number } = {}): Promise<T> {
  const { ttl = 10000, maxMs = 3000 } = options;
  const gate = new Gate(name, ttl);
  if (!(await gate.takeWithin(maxMs))) throw new Error('busy');
  try {
    return await routine();
  } finally {
    await gate.give();
  }
}
`;

test('decide-redis-failure names the key a helper locks, not its options argument', () => {
  const findings = analyzeProject({
    'src/locks/gate.ts': GATE_MODULE,
    'src/payout.ts': `import { guarded } from './locks/gate';
async function book(user: string): Promise<string> {
  return user;
}
export async function payout(user: string): Promise<string> {
  const run = () => book(user);
  try {
    return await guarded(\`payout:\${user}\`, run, { ttl: 15000, maxMs: 5000 });
  } catch {
    return run();
  }
}
`,
  }).filter((f) => f.rule === 'decide-redis-failure');
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  assert.equal(findings[0].file, 'src/payout.ts');
  assert.match(findings[0].message, /the acquire of `payout:\$\{user\}`/);
  assert.doesNotMatch(findings[0].message, /ttl/);
});

test('decide-redis-failure: a key fixed inside a helper is not read from the options of the helper around it', () => {
  const findings = analyzeProject({
    'src/locks/nightly.ts': `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
const redis = new Redis();
const me = randomUUID();
async function takeNightly(maxMs: number): Promise<boolean> {
  const end = Date.now() + maxMs;
  while (Date.now() < end) {
    if ((await redis.set('lock:nightly', me, 'PX', 60000, 'NX')) === 'OK') return true;
    await new Promise((done) => setTimeout(done, 50 + Math.random() * 50));
  }
  return false;
}
export async function nightly<T>(routine: () => Promise<T>, options: { maxMs?: number } = {}): Promise<T> {
  const { maxMs = 3000 } = options;
  if (!(await takeNightly(maxMs))) throw new Error('busy');
  try {
    return await routine();
  } finally {
    await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, 'lock:nightly', me);
  }
}
`,
    'src/report.ts': `import { nightly } from './locks/nightly';
async function build(): Promise<number> {
  return 1;
}
export async function report(): Promise<number> {
  try {
    return await nightly(build, { maxMs: 5000 });
  } catch {
    return build();
  }
}
`,
  }).filter((f) => f.rule === 'decide-redis-failure');
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  assert.match(findings[0].message, /the acquire of 'lock:nightly' fails/);
});

const failures = (files: Record<string, string>) => analyzeProject({ 'src/locks/gate.ts': GATE_MODULE, ...files }).filter((f) => f.rule === 'decide-redis-failure');

test('decide-redis-failure: a catch around a locked routine that only answers the request grants nothing', () => {
  assert.deepEqual(failures({
    'src/settle.ts': `import { guarded } from './locks/gate';
declare function settle(id: string): Promise<void>;
declare function find(id: string): Promise<unknown>;
interface Res { redirect(to: string): void; send(body: string): void }
export async function settleRoute(id: string, res: Res) {
  try {
    await guarded(\`settle:\${id}\`, async () => { await settle(id); });
    if (await find(id)) return res.redirect(\`/settled/\${id}\`);
    res.send('<p>closed</p>');
  } catch (err) {
    console.error(err);
    res.send('<p>closed</p>');
  }
}
`,
  }), []);
});

test('decide-redis-failure: a catch around a locked routine that returns an error result grants nothing', () => {
  assert.deepEqual(failures({
    'src/withdraw.ts': `import { guarded } from './locks/gate';
declare function withdraw(id: string): Promise<{ code: number }>;
export async function withdrawFor(id: string) {
  try {
    return await guarded(\`withdraw:\${id}\`, () => withdraw(id));
  } catch (err) {
    return { code: 500, message: String(err) };
  }
}
`,
  }), []);
});

test('decide-redis-failure: a catch that runs the inline locked routine again grants the lock', () => {
  const found = failures({
    'src/ship.ts': `import { guarded } from './locks/gate';
declare function ship(id: string): Promise<void>;
export async function shipOnce(id: string) {
  try {
    await guarded(\`ship:\${id}\`, () => ship(id));
  } catch {
    await ship(id);
  }
}
`,
  });
  assert.equal(found.length, 1, found.map((f) => f.message).join('\n'));
  assert.match(found[0].message, /runs `ship`/);
});

test('decide-redis-failure: a catch whose try also ran the work answers for the work, not for the lock', () => {
  assert.deepEqual(failures({
    'src/lobby.ts': `import { Gate } from './locks/gate';
declare function finish(id: string): Promise<void>;
declare function markFailed(id: string): Promise<void>;
export async function endRound(id: string): Promise<boolean> {
  const gate = new Gate(\`round:\${id}\`, 5000);
  try {
    if (!(await gate.take())) return false;
    await finish(id);
    await gate.give();
    return true;
  } catch (err) {
    await markFailed(id);
    setTimeout(() => void endRound(id), 10000);
    return true;
  }
}
`,
  }), []);
});

test('decide-redis-failure: an outer catch around a scan loop that records the error grants nothing', () => {
  assert.deepEqual(failures({
    'src/recover.ts': `import { Gate } from './locks/gate';
declare function listOrphans(): Promise<string[]>;
declare function restore(id: string): Promise<void>;
export async function recoverAll() {
  const result = { recovered: 0, errors: [] as string[] };
  try {
    for (const id of await listOrphans()) {
      const gate = new Gate(\`table:\${id}\`, 10000);
      if (await gate.take()) {
        try {
          await restore(id);
          result.recovered++;
        } catch (error) {
          const message = \`failed \${id}: \${error}\`;
          result.errors.push(message);
          await gate.give();
        }
      }
    }
  } catch (error) {
    const message = \`scan failed: \${error}\`;
    result.errors.push(message);
  }
  return result;
}
`,
  }), []);
});

/** A client module whose getter answers `null` when `guard` holds, and a hold helper in another file running unlocked without a client. */
function holdsWithout(guard: string): Record<string, string> {
  return {
    'lib/redis.ts': `import Redis from 'ioredis';
let shared: Redis | null | undefined;
let connected = false;
export function getRedisClient(): Redis | null {
  if (shared !== undefined) return shared;
  const url = process.env.REDIS_URL;
  if (${guard}) {
    return null;
  }
  shared = new Redis(url!);
  shared.on('ready', () => (connected = true));
  return shared;
}
`,
    'lib/holds.ts': `import { randomUUID } from 'node:crypto';
import { getRedisClient } from './redis';
export async function holdSlot(slot: string, ttlMs: number): Promise<string | null> {
  const redis = getRedisClient();
  const token = randomUUID();
  if (redis) {
    const reply = await redis.set(\`lock:slot:\${slot}\`, token, 'PX', ttlMs, 'NX');
    return reply === 'OK' ? token : null;
  }
  return token;
}
`,
  };
}

test('a client getter of another file answering null only without its URL: the no-client fallback is a stated deployment mode', () => {
  const configured = analyzeProject(holdsWithout('!url'));
  assert.deepEqual(configured.filter((f) => f.rule === 'decide-redis-failure'), [], configured.map((f) => f.message).join('\n'));
  const disconnected = analyzeProject(holdsWithout('!url || !connected'));
  assert.deepEqual(disconnected.filter((f) => f.rule === 'decide-redis-failure').map((f) => f.file), ['lib/holds.ts'], disconnected.map((f) => f.message).join('\n'));
});

/** A client module whose `init` sets the client only after `guard` left, and a getter answering it or null. */
function initOnlyWhen(guard: string): Record<string, string> {
  return {
    'lib/redis.ts': `import Redis from 'ioredis';
let client: Redis;
export async function initRedis(): Promise<void> {
  const url = process.env.REDIS_URL;
  if (${guard}) {
    console.warn('Redis is disabled: set REDIS_URL to enable it');
    return;
  }
  client = new Redis(url!);
}
export function getRedisClient(): Redis | null {
  return client || null;
}
`,
    'lib/holds.ts': holdsWithout('!url')['lib/holds.ts'],
  };
}

test('a client module variable set only after an init left on a missing URL: its getter\'s null is a stated deployment mode', () => {
  const configured = analyzeProject(initOnlyWhen('!url'));
  assert.deepEqual(configured.filter((f) => f.rule === 'decide-redis-failure'), [], configured.map((f) => f.message).join('\n'));
  const onOutage = analyzeProject(initOnlyWhen('!url || !(await isReachable(url))'));
  assert.deepEqual(onOutage.filter((f) => f.rule === 'decide-redis-failure').map((f) => f.file), ['lib/holds.ts'], onOutage.map((f) => f.message).join('\n'));
});


test('decide-redis-failure: a catch around a helper that never throws (it answers null) hears only the work\'s errors', () => {
  const findings = analyzeProject(withQuietLocker({
    'lib/events.js': `const locker = require('./locker');
async function findOrCreateEvent(pipelineId) {
  return { id: pipelineId };
}
async function announce(event) {
  return event.id;
}
async function startRemote(pipelineId) {
  const resource = \`pipeline:\${pipelineId}\`;
  let lock;
  let event;
  try {
    lock = await locker.lock(resource);
    event = await findOrCreateEvent(pipelineId);
  } catch (err) {
    console.error('remote start failed', err);
  } finally {
    await locker.unlock(lock, resource);
  }
  if (event) await announce(event);
  return event;
}
module.exports = { startRemote };
`,
  }));
  assert.deepEqual(findings.filter((f) => f.rule === 'decide-redis-failure').map((f) => `${f.file}: ${f.message}`), []);
  // Its null answer, ignored, is check-acquire-result's finding.
  assert.ok(findings.some((f) => f.rule === 'check-acquire-result' && f.file === 'lib/events.js'), findings.map((f) => `${f.rule} ${f.file}`).join('\n'));
});

// A helper of the file that throws when the lock is busy, and a caller whose catch records any other error in a flag.
const HOLD_WITH_REPLY = `const ok = await redis.set(\`lock:review:\${docId}\`, owner, 'PX', 30000, 'NX');
  if (ok !== 'OK') throw new BusyError('busy');`;
const flaggedCaller = (after: string, hold = HOLD_WITH_REPLY) => ({
  'src/save.ts': `import Redis from 'ioredis';
const redis = new Redis();
class BusyError extends Error {}
async function holdReviewLock(docId: string, owner: string) {
  ${hold}
}
declare function saveDraft(docId: string): Promise<string>;
declare function navigate(to: string): void;
export async function saveAndGo(docId: string, owner: string, next?: string) {
  let failure: unknown;
  let saved: string | undefined;
  try {
    await holdReviewLock(docId, owner);
    saved = await saveDraft(docId);
  } catch (error) {
    if (error instanceof BusyError) return { saved: null, error: 'locked' };
    failure = error;
  }
  ${after}
  return { saved, error: failure ? (failure as Error).message : undefined };
}
`,
});

test('decide-redis-failure: a catch that records the error in a flag, and work after the try guarded by that flag, grants nothing', () => {
  assert.deepEqual(failures(flaggedCaller('if (!failure && next) navigate(next);')), []);
});

test('decide-redis-failure: a catch that records the error in a flag the work after the try does not test still lets the work run', () => {
  assert.deepEqual(failures(flaggedCaller('if (next) navigate(next);')).map((f) => `${f.file}: ${f.rule}`), ['src/save.ts: decide-redis-failure']);
});

test('decide-redis-failure: a helper that hands nothing back and throws on its own test of the reply (`if ((await set(...)) !== \'OK\') throw`) throws when busy: a catch that goes on runs the work', () => {
  const inline = `if ((await redis.set(\`lock:review:\${docId}\`, owner, 'PX', 30000, 'NX')) !== 'OK') throw new BusyError('busy');`;
  assert.deepEqual(failures(flaggedCaller('if (next) navigate(next);', inline)).map((f) => `${f.file}: ${f.rule}`), ['src/save.ts: decide-redis-failure']);
});
