// withLock across real processes: contention between worker processes (both client libraries at
// once), and a holder paused with SIGSTOP past its TTL.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { withLock } from '../../rules/templates/with-lock';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait';
import { ioredis, nodeRedis, withDeadline, type ClientLibrary, type TestClient } from './clients';
import { overlaps } from './overlap';

// Paths are relative to the repository root, where the test runner runs.
const WORKER = join('test', 'templates', 'fixtures', 'lock-worker.ts');
const TMP = join('test', '.tmp', `with-lock-${process.pid}`);

interface Worker {
  child: ChildProcess;
  messages: Array<Record<string, unknown>>;
  stderr: () => string;
  /** Resolves with the exit code once the process has ended and its output is all read. */
  exited: Promise<number | null>;
  closed: boolean;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: Array<Record<string, unknown>> = [];
  let stderr = '';
  createInterface({ input: child.stdout! }).on('line', (line) => messages.push(JSON.parse(line)));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const worker: Worker = {
    child,
    messages,
    stderr: () => stderr,
    exited: new Promise((resolve) => child.once('close', (code) => resolve(code))),
    closed: false,
  };
  void worker.exited.then(() => (worker.closed = true));
  return worker;
}

function message(worker: Worker, event: string): Record<string, unknown> | undefined {
  const found = worker.messages.find((m) => m.event === event);
  if (!found && worker.closed) throw new Error(`worker ended without "${event}": ${worker.stderr()}`);
  return found;
}

let server: RedisProcess;
before(async () => {
  mkdirSync(TMP, { recursive: true });
  server = await startRedis();
});
after(async () => {
  await server?.stop();
  rmSync(TMP, { recursive: true, force: true });
});

test('the overlap check catches interleaved and overlapping critical sections', () => {
  const exclusive = 'enter a 1\nexit a 2\nenter b 2\nexit b 5\n';
  assert.deepEqual(overlaps(exclusive).problems, []);
  assert.equal(overlaps('enter a 1\nenter b 2\nexit b 3\nexit a 4\n').problems.length, 2);
  // In file order, but the clocks say b entered before a left.
  assert.deepEqual(overlaps('enter a 1\nexit a 5\nenter b 4\nexit b 6\n').problems, ['b entered 1 ns before a left']);
});

test('5 worker processes contending for one key never overlap', async (t) => {
  const key = 'lock:contended';
  const log = join(TMP, 'critical-sections.log');
  const rounds = 6;
  // Workers alternate libraries: both must respect each other's locks.
  const workers = Array.from({ length: 5 }, (_, i) => {
    const library = i % 2 ? nodeRedis : ioredis;
    return startWorker([library.name, String(server.port), 'contend', key, String(rounds), log, `w${i}`]);
  });
  try {
    const codes = await withDeadline(Promise.all(workers.map((w) => w.exited)), 60_000, 'the workers to finish');
    codes.forEach((code, i) => assert.equal(code, 0, `worker ${i}: ${workers[i]!.stderr()}`));
  } finally {
    for (const w of workers) w.child.kill();
  }
  const { sections, problems } = overlaps(readFileSync(log, 'utf8'));
  assert.deepEqual(problems, []);
  assert.equal(sections.length, 5 * rounds);
  const inspector = await ioredis.connect(server.port);
  try {
    assert.equal(await inspector.get(`${key}:counter`), String(5 * rounds));
    assert.equal(await inspector.get(key), null);
  } finally {
    await inspector.close();
  }
  const spanMs = Number(sections.at(-1)!.exit - sections[0]!.enter) / 1e6;
  t.diagnostic(`${sections.length} critical sections in ${Math.round(spanMs)} ms`);
});

// The paused worker uses one library and the new holder the other, both ways round.
const pairs: Array<[ClientLibrary, ClientLibrary]> = [
  [ioredis, nodeRedis],
  [nodeRedis, ioredis],
];
for (const [pausedLibrary, takerLibrary] of pairs) {
  test(`a worker (${pausedLibrary.name}) paused past its TTL loses the lock to ${takerLibrary.name}`, async () => {
    const key = `lock:paused:${pausedLibrary.name}`;
    const victim = startWorker([pausedLibrary.name, String(server.port), 'hold', key]);
    let taker: TestClient | undefined;
    try {
      const acquired = await waitFor(() => message(victim, 'acquired'), 'the worker to take the lock', {
        timeoutMs: 20_000,
      });
      victim.child.kill('SIGSTOP');
      const holder = (taker = await takerLibrary.connect(server.port));
      const options = { ttlMs: 3000, waitMs: 10_000, maxRetryDelayMs: 50, fencing: true };
      await withLock(holder.lock, key, options, async (signal, lock) => {
        victim.child.kill('SIGCONT');
        const lost = await waitFor(() => message(victim, 'lost'), 'the resumed worker to see its loss');
        assert.equal(lost.name, 'LockLostError');
        assert.ok(Number(acquired.fence) < Number(lock.fence), `stale ${acquired.fence}, new ${lock.fence}`);
        // The resumed worker's renewal and release must leave the new holder's lock alone.
        const settled = await waitFor(() => message(victim, 'settled'), 'the worker to settle');
        assert.equal(settled.outcome, 'LockLostError');
        assert.equal(await holder.get(key), lock.token);
        // Its PEXPIRE to 600 ms would show here: ours (3000 ms, renewed every 1000 ms) stays above.
        const pttl = await holder.pttl(key);
        assert.ok(pttl > 1000, `PTTL ${pttl}`);
        assert.equal(signal.aborted, false);
      });
      assert.equal(await withDeadline(victim.exited, 10_000, 'the worker to exit'), 0, victim.stderr());
    } finally {
      victim.child.kill('SIGCONT');
      victim.child.kill();
      await taker?.close();
    }
  });
}
