// The example app is the tool's showcase (`npx lockwise check examples/`): every rule must fire in the
// mistaken files, exactly the rules examples/README.md lists for each, and nothing may fire in
// src/safe/. The safe counterparts are also run against a real Redis, so "correct" is demonstrated,
// not just unreported.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import Redlock from 'redlock';
import type { NodeRedisClient } from '../examples/src/clients';
import { buildNightlyReport } from '../examples/src/jobs/nightly-report';
import type { OrderStore, PaymentGateway } from '../examples/src/orders/charge-service';
import { OutOfStockError } from '../examples/src/inventory/reserve';
import { appendToLedger, createFencedRedis } from '../examples/src/safe/fenced-lock';
import { StockBusyError, reserveStockSafely } from '../examples/src/safe/inventory-lock';
import { SafeChargeService } from '../examples/src/safe/order-lock';
import { buildNightlyReportSafely, createBoundedRedlock } from '../examples/src/safe/report-job';
import { sendQueuedEmailsSafely } from '../examples/src/safe/email-worker';
import { reserveLinesSafely } from '../examples/src/safe/bulk-reserve';
import { checkOutSafely } from '../examples/src/safe/checkout-lock';
import { lockImportSafely } from '../examples/src/safe/stale-lock-takeover';
import { printLabelSafely } from '../examples/src/safe/label-printer';
import { renderThumbnailsSafely } from '../examples/src/safe/thumbnail-worker';
import { sendMonthlyInvoicesSafely } from '../examples/src/safe/invoice-run';
import { sendMonthlyInvoices } from '../examples/src/billing/invoice-run';
import { checkOut } from '../examples/src/cart/checkout-lock';
import { printLabel } from '../examples/src/shipping/label-printer';
import { reserveLines } from '../examples/src/inventory/bulk-reserve';
import { analyzeText } from '../rules/analyze';
import { ruleIds } from '../rules/index';
import { startRedis, type RedisProcess } from './helpers/redis-server';
import { waitFor } from './helpers/wait';
import { EXPECTED } from './helpers/example-findings';

const SRC = 'examples/src';


function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** How many findings each rule reports in the file, rules in name order. */
function findingsPerRule(file: string): Record<string, number> {
  const result = analyzeText(file, readFileSync(file, 'utf8'));
  assert.deepEqual(result.ruleFailures, [], `no rule may throw on ${file}`);
  const counts: Record<string, number> = {};
  for (const rule of result.findings.map((f) => f.rule).sort()) counts[rule] = (counts[rule] ?? 0) + 1;
  return counts;
}

const rulesFiredIn = (file: string): string[] => Object.keys(findingsPerRule(file));

const files = sourceFiles(SRC).map((f) => relative(SRC, f).split('\\').join('/'));
const mistaken = files.filter((f) => !f.startsWith('safe/'));
const safe = files.filter((f) => f.startsWith('safe/'));

describe('the examples under the analyzer', () => {
  test('every rule fires at least once outside src/safe/', () => {
    const fired = new Set(mistaken.flatMap((f) => rulesFiredIn(join(SRC, f))));
    assert.deepEqual(ruleIds.filter((id) => !fired.has(id)), [], 'rules that never fire in the examples');
  });

  test('each mistaken file triggers exactly the rules examples/README.md lists, as many times as it should', () => {
    const actual = Object.fromEntries(mistaken.map((f) => [f, findingsPerRule(join(SRC, f))]).filter(([, counts]) => Object.keys(counts).length > 0));
    assert.deepEqual(actual, EXPECTED);
  });

  test('nothing fires in src/safe/', () => {
    assert.ok(safe.length >= 8, `safe counterparts found: ${safe.join(', ')}`);
    for (const f of safe) assert.deepEqual(rulesFiredIn(join(SRC, f)), [], `${f} is reported`);
  });

  test('examples/README.md names every example file', () => {
    const readme = readFileSync('examples/README.md', 'utf8');
    for (const f of files) assert.ok(readme.includes(`(src/${f})`), `examples/README.md does not link src/${f}`);
  });
});

class MemoryOrders implements OrderStore {
  readonly paid = new Map<string, string>();
  async isPaid(orderId: string) {
    return this.paid.has(orderId);
  }
  async markPaid(orderId: string, chargeId: string) {
    this.paid.set(orderId, chargeId);
  }
}

describe('the safe counterparts against a real Redis', () => {
  let server: RedisProcess;
  let redis: Redis;
  let nodeRedis: NodeRedisClient;

  before(async () => {
    server = await startRedis();
    redis = new Redis(server.port, { maxRetriesPerRequest: 1 });
    nodeRedis = createClient({ url: server.url });
    await nodeRedis.connect();
  });

  after(async () => {
    redis?.disconnect();
    nodeRedis?.destroy();
    await server?.stop();
  });

  test('order-lock: concurrent charges of one order charge it once, and a failed charge frees the lock', async () => {
    const orders = new MemoryOrders();
    let charges = 0;
    const gateway: PaymentGateway = {
      charge: async (orderId) => ({ chargeId: `ch_${orderId}_${++charges}` }),
    };
    const service = new SafeChargeService(redis, gateway, orders);
    const results = await Promise.all([service.chargeOrder('o-1', 500), service.chargeOrder('o-1', 500)]);
    assert.equal(charges, 1);
    assert.deepEqual(results.filter((r) => r !== undefined), ['ch_o-1_1']);
    assert.equal(await redis.exists('lock:order:o-1'), 0, 'released');

    const failing = new SafeChargeService(redis, { charge: async () => Promise.reject(new Error('gateway 503')) }, orders);
    await assert.rejects(failing.chargeOrder('o-2', 500), /gateway 503/);
    assert.equal(await redis.exists('lock:order:o-2'), 0, 'released in finally');
  });

  test('order-lock: a lock held elsewhere makes the bounded retry give up', async () => {
    await redis.set('lock:order:o-3', 'other-holder', 'PX', 60_000);
    const service = new SafeChargeService(redis, { charge: async () => ({ chargeId: 'never' }) }, new MemoryOrders());
    await assert.rejects(service.chargeOrder('o-3', 500), /being charged by another process/);
    assert.equal(await redis.get('lock:order:o-3'), 'other-holder', 'the other holder keeps its lock');
  });

  test('inventory-lock (node-redis): reserves, refuses when out of stock, never deletes a foreign lock', async () => {
    await nodeRedis.set('stock:sku-1', '1');
    await reserveStockSafely(nodeRedis, 'order-1', 'sku-1', 1);
    assert.equal(await nodeRedis.get('stock:sku-1'), '0');
    assert.equal(await nodeRedis.hGet('reservation:order-1', 'sku-1'), '1');
    await assert.rejects(reserveStockSafely(nodeRedis, 'order-2', 'sku-1', 1), OutOfStockError);
    assert.equal(await nodeRedis.exists('lock:stock:sku-1'), 0, 'released after the failure too');

    await nodeRedis.set('lock:stock:sku-1', 'other-holder', { PX: 60_000 });
    await assert.rejects(reserveStockSafely(nodeRedis, 'order-3', 'sku-1', 1), StockBusyError);
    assert.equal(await nodeRedis.get('lock:stock:sku-1'), 'other-holder');
  });

  test('fenced-lock: every acquisition gets a larger fence, and a held lock is refused', async () => {
    const fenced = createFencedRedis(server.url);
    try {
      const fences: number[] = [];
      const ledger = { append: async (_account: string, _entry: string, fence: number) => void fences.push(fence) };
      assert.equal(await appendToLedger(fenced, ledger, 'acct-1', 'a'), true);
      assert.equal(await appendToLedger(fenced, ledger, 'acct-1', 'b'), true);
      assert.ok(fences[1] > fences[0], `fences ${fences.join(', ')}`);
      assert.equal(await fenced.exists('lock:ledger:acct-1'), 0);

      await fenced.set('lock:ledger:acct-1', 'other-holder', 'PX', 60_000);
      assert.equal(await appendToLedger(fenced, ledger, 'acct-1', 'c'), false);
      assert.equal(fences.length, 2);
    } finally {
      fenced.disconnect();
    }
  });

  test('report-job: keeping the extended Lock works where dropping it fails at the second extend', async () => {
    assert.equal(
      typeof Redlock.prototype.acquire,
      'function',
      "'redlock' resolved to a module without methods: a tsconfig.json \"paths\" entry pointing it at dist/index.d.ts is followed by tsx at run time",
    );
    const source = { regions: async () => ['eu', 'us', 'apac'], salesFor: async () => 1 };
    const written: string[] = [];
    const sink = { write: async (day: string) => void written.push(day) };
    await buildNightlyReportSafely(createBoundedRedlock(redis), source, sink, 'd1');
    assert.deepEqual(written, ['d1']);
    assert.equal(await redis.exists('lock:report:d1'), 0);

    // The mistaken job from examples/src/jobs: the dropped Lock makes the second extend throw.
    const redlock = new Redlock([redis], { retryCount: 3, retryDelay: 50, retryJitter: 20 });
    await assert.rejects(buildNightlyReport(redlock, source, sink, 'd2'), /already-expired/);
    assert.deepEqual(written, ['d1']);
  });

  test('email-worker: sends when the mutex is free, sends nothing while another worker holds it', async () => {
    const sent: string[] = [];
    const mailer = { send: async (to: string) => void sent.push(to) };
    const outbox = {
      pending: async () => [{ id: 'm1', to: 'a@example.com', subject: 's', body: 'b' }],
      markSent: async () => {},
    };
    assert.equal(await sendQueuedEmailsSafely(redis, mailer, outbox, 'c-1'), 1);
    assert.equal(await redis.exists('mutex:email:c-1'), 0);

    await redis.set('mutex:email:c-2', 'other-worker', 'PX', 60_000);
    assert.equal(await sendQueuedEmailsSafely(redis, mailer, outbox, 'c-2'), 0);
    assert.deepEqual(sent, ['a@example.com']);
    assert.equal(await redis.get('mutex:email:c-2'), 'other-worker');
  });
  test('checkout-lock: a checkout that finds the cart busy leaves the running checkout its lock', async () => {
    await redis.set('lock:cart:c-1', 'running-checkout', 'PX', 60_000);
    const checkout = { place: async (cartId: string) => `order-${cartId}` };
    assert.equal(await checkOutSafely(redis, checkout, 'c-1'), 'busy');
    assert.equal(await redis.get('lock:cart:c-1'), 'running-checkout', 'the safe finally never ran');
    // The mistaken one deletes the running checkout's lock from its finally.
    assert.equal(await checkOut(redis, checkout, 'c-1'), 'busy');
    assert.equal(await redis.exists('lock:cart:c-1'), 0);
    assert.equal(await checkOutSafely(redis, checkout, 'c-2'), 'order-c-2');
    assert.equal(await redis.exists('lock:cart:c-2'), 0, 'released after the checkout');
  });

  test('label-printer: SET NX refuses a held printer where SET without NX takes it over', async () => {
    await redis.set('lock:printer:w1', 'other-worker', 'PX', 60_000);
    const printed: string[] = [];
    const printer = { print: async (_w: string, label: string) => void printed.push(label) };
    assert.equal(await printLabelSafely(redis, printer, 'w1', 'safe'), false);
    assert.equal(await redis.get('lock:printer:w1'), 'other-worker');
    assert.equal(await printLabel(redis, printer, 'w1', 'mistaken'), true, 'the plain SET "acquires" a held lock');
    assert.deepEqual(printed, ['mistaken']);
  });

  test('bulk-reserve: a busy SKU makes the safe reservation release the SKUs it had locked', async () => {
    await nodeRedis.set('lock:stock:b-2', 'other-order', { PX: 60_000 });
    const reserved: string[] = [];
    const reserve = async (sku: string) => void reserved.push(sku);
    assert.equal(await reserveLinesSafely(nodeRedis, ['b-1', 'b-2'], reserve), false);
    assert.equal(await nodeRedis.exists('lock:stock:b-1'), 0, 'rolled back');
    assert.equal(await nodeRedis.get('lock:stock:b-2'), 'other-order');
    assert.equal(await reserveLines(nodeRedis, ['b-3', 'b-2'], reserve), false);
    assert.equal(await nodeRedis.exists('lock:stock:b-3'), 1, 'the mistaken one leaves b-3 locked');
    assert.deepEqual(reserved, []);
  });

  test('stale-lock-takeover: one Lua script replaces an expired lock and leaves a live one', async () => {
    await redis.set('lock:jobs:import', `${Date.now() + 60_000}:live`, 'PX', 60_000);
    assert.equal(await lockImportSafely(redis), undefined);
    await redis.set('lock:jobs:import', `${Date.now() - 1_000}:stale`, 'PX', 60_000);
    const token = await lockImportSafely(redis);
    assert.ok(token);
    assert.match((await redis.get('lock:jobs:import')) ?? '', new RegExp(`:${token}$`));
    await redis.del('lock:jobs:import');
  });

  test('invoice-run: the lock is held while every send runs; the mistaken one has released it by then', async () => {
    const key = 'lock:invoices:monthly';
    const heldDuringSend: Array<string | null> = [];
    const send = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      heldDuringSend.push(await redis.get(key));
    };
    assert.equal(await sendMonthlyInvoicesSafely(redis, ['c-1', 'c-2'], send), true);
    assert.equal(heldDuringSend.length, 2, 'both sends ran before it returned');
    assert.ok(heldDuringSend.every((holder) => holder !== null), 'the lock was held during each send');
    assert.equal(await redis.exists(key), 0, 'released after the sends');

    heldDuringSend.length = 0;
    assert.equal(await sendMonthlyInvoices(redis, ['c-3'], send), true);
    assert.deepEqual(heldDuringSend, [], 'the mistaken one returned before its send ended');
    await waitFor(() => heldDuringSend.length === 1, 'the mistaken run\'s send to end');
    assert.deepEqual(heldDuringSend, [null], 'its send ran after the lock was released');
  });

  test('thumbnail-worker: renders once and releases when the lock is free', async () => {
    const rendered: string[] = [];
    assert.equal(await renderThumbnailsSafely(redis, 'p-1', async (id) => void rendered.push(id)), true);
    assert.equal(await redis.exists('lock:thumbnails:p-1'), 0);
    assert.deepEqual(rendered, ['p-1']);
  });
});
