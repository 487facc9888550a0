// When the view reads Redis: merged (debounced) requests that carry their reasons, never two reads at
// once, polling and the countdown tick only while the view is visible.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RefreshScheduler, type RefreshReason } from '../../client/src/panel/refresh-scheduler';
import { waitFor } from '../helpers/wait';

function harness(options: { intervalMs?: number; debounceMs?: number; readMs?: () => Promise<void> } = {}) {
  const reads: RefreshReason[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let ticks = 0;
  const scheduler = new RefreshScheduler({
    intervalMs: options.intervalMs ?? 10_000,
    debounceMs: options.debounceMs ?? 20,
    tickMs: 15,
    refresh: async (reasons) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      reads.push([...reasons].sort());
      await options.readMs?.();
      inFlight--;
    },
    tick: () => ticks++,
  });
  return { scheduler, reads, ticks: () => ticks, maxInFlight: () => maxInFlight };
}

/** Resolves after the given number of the test's own intervals (an event to wait for, not a sleep). */
function periods(n: number, ms: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const t = setInterval(() => {
      if (++seen >= n) {
        clearInterval(t);
        resolve();
      }
    }, ms);
  });
}

test('requests close together become one read carrying every reason', async () => {
  const h = harness();
  try {
    h.scheduler.request('manual');
    h.scheduler.request('settings');
    h.scheduler.request('manual');
    await h.scheduler.idle();
    assert.deepEqual(h.reads, [['manual', 'settings']]);
  } finally {
    h.scheduler.dispose();
  }
});

test('a request during a read runs after it, never concurrently', async () => {
  let release!: () => void;
  let started!: () => void;
  const firstStarted = new Promise<void>((r) => (started = r));
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const h = harness({
    debounceMs: 1,
    readMs: async () => {
      if (++calls === 1) {
        started();
        await gate;
      }
    },
  });
  try {
    h.scheduler.request('manual');
    await firstStarted;
    h.scheduler.request('after-write');
    h.scheduler.request('settings');
    await waitFor(() => h.reads.length === 1, 'first read under way');
    release();
    await waitFor(() => h.reads.length === 2, 'second read');
    await h.scheduler.idle();
    assert.deepEqual(h.reads, [['manual'], ['after-write', 'settings']]);
    assert.equal(h.maxInFlight(), 1);
  } finally {
    h.scheduler.dispose();
  }
});

test('polls and ticks only while visible; explicit requests still run while hidden', async () => {
  const h = harness({ intervalMs: 30, debounceMs: 1 });
  try {
    h.scheduler.request('poll');
    await periods(4, 30);
    await h.scheduler.idle();
    assert.deepEqual(h.reads, [], 'a hidden view sends nothing');
    assert.equal(h.ticks(), 0);

    h.scheduler.setVisible(true);
    await waitFor(() => h.reads.filter((r) => r.includes('poll')).length >= 2 && h.ticks() >= 2, 'polls and ticks while visible');
    assert.deepEqual(h.reads[0], ['visible'], 'becoming visible reads at once');

    h.scheduler.setVisible(false);
    await h.scheduler.idle();
    const readsWhenHidden = h.reads.length;
    const ticksWhenHidden = h.ticks();
    await periods(5, 30);
    await h.scheduler.idle();
    assert.equal(h.reads.length, readsWhenHidden, 'no poll after the view was hidden');
    assert.equal(h.ticks(), ticksWhenHidden, 'no countdown tick after the view was hidden');

    h.scheduler.request('manual');
    await h.scheduler.idle();
    assert.deepEqual(h.reads.at(-1), ['manual']);
  } finally {
    h.scheduler.dispose();
  }
});
