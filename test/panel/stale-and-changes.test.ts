// The view's rows when Redis stops answering (stale: dimmed, frozen, writes off), the "held long" state
// from the history, control characters from Redis escaped on screen, and re-rendering only what changed.
// Rows come from a real redis-server through the real lock core.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type ListResult, type LockConnection } from '../../client/src/locks';
import { LockHistory } from '../../client/src/locks/history';
import { ContextValue } from '../../client/src/panel/ids';
import { buildTree, renderNode, type PanelTree } from '../../client/src/panel/lock-tree-model';
import type { ConnectionView, PanelView } from '../../client/src/panel/panel-state';
import { RenderedItems } from '../../client/src/panel/tree-changes';
import { clockTime } from '../../client/src/panel/ttl-text';
import { startRedis, type RedisProcess } from '../helpers/redis-server';

let redis: RedisProcess;
let client: Redis;
let core: LockConnection;

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
  await client.set('lock:pay:1', 'pay-worker#1', 'PX', 60_000);
  await client.set('lock:pay:2', 'pay-worker#2', 'PX', 60_000);
  await client.set('lock:forever', 'cron#1');
  await client.set('lock:evil\x1b]0;PWNED\x07\r\nFAKE', '\x1b[2Jholder\u202eevil', 'PX', 60_000);
  core = await openLockConnection({ url: redis.url });
});

after(async () => {
  await core?.close();
  client?.disconnect();
  await redis?.stop();
});

function view(result: ListResult, readAt: number, connection: Partial<ConnectionView> = {}, heldLongMs = 600_000): PanelView {
  return {
    connections: [
      { target: { id: 'url:t', label: '127.0.0.1 test', kind: 'url' }, status: { phase: 'connected' }, listing: { result, readAt }, writable: true, ...connection },
    ],
    filter: '',
    notices: [],
    heldLongMs,
  };
}

function lockNode(tree: PanelTree, key: string) {
  const node = [...tree.nodes.values()].find((n) => n.kind === 'lock' && n.row.key === key);
  assert.ok(node, `no lock node for ${key}`);
  return node;
}

test('stale rows: dimmed icon, TTL frozen at the read, writes shown disabled, "last read" on the connection, a short note', async () => {
  const result = await core.list();
  const readAt = Date.now();
  const down: Partial<ConnectionView> = {
    status: { phase: 'reconnecting', error: 'Connection refused by 127.0.0.1:6390. Check that Redis is running there.', summary: 'Connection refused by 127.0.0.1:6390.', retryAt: readAt + 60_000, attempt: 1 },
  };
  const live = buildTree(view(result, readAt));
  const stale = buildTree(view(result, readAt, down));
  const liveItem = renderNode(lockNode(live, 'lock:pay:1'), readAt);
  const later = readAt + 20_000;
  const staleNode = lockNode(stale, 'lock:pay:1');
  const staleItem = renderNode(staleNode, later);

  assert.equal(liveItem.icon.color, 'charts.green');
  assert.deepEqual(staleItem.icon, { id: liveItem.icon.id, color: 'disabledForeground' });
  assert.equal(staleItem.description, liveItem.description, 'the countdown stopped at what was read');
  assert.ok(!stale.ticking.includes(staleNode.id));
  assert.equal(staleItem.contextValue, ContextValue.LockStale);
  assert.match(staleItem.tooltip!, /Not live:.*Release and Extend are off/);

  const connection = renderNode(stale.nodes.get(stale.roots[0]!)!, later);
  assert.equal(connection.description, `last read ${clockTime(readAt)} · reconnecting`);
  const messages = (stale.nodes.get(stale.roots[0]!) as { children: string[] }).children
    .map((id) => stale.nodes.get(id)!)
    .filter((n) => n.kind === 'message' || n.kind === 'retry')
    .map((n) => renderNode(n, later));
  assert.equal(messages[0]!.label, `Rows below as read at ${clockTime(readAt)}`);
  assert.equal(messages[1]!.label, 'Connection refused by 127.0.0.1:6390.', 'the row shows what failed; the tooltip the rest');
  assert.match(messages[1]!.tooltip!, /Check that Redis is running there/);
  assert.equal(messages[2]!.label, 'Reconnecting in 40s', 'the countdown has a row of its own');
  for (const m of messages) assert.ok(m.label.length <= 40, `"${m.label}" fits a default-width sidebar`);

  // A read-only connection shows no write entries at all, stale or not.
  const readOnly = buildTree(view(result, readAt, { ...down, writable: false }));
  assert.equal(renderNode(lockNode(readOnly, 'lock:pay:1'), later).contextValue, ContextValue.Lock);
});

test('a holder seen past the threshold is "held long": own icon, "held" in the description, the history in the tooltip', async () => {
  const history = new LockHistory(1);
  const first = await core.list();
  const t0 = Date.now();
  history.observe(first, t0);
  await client.pexpire('lock:pay:2', 90_000);
  const second = await core.list({ previous: first.rows });
  const t1 = t0 + 61_000;
  history.observe(second, t1);
  const tree = buildTree(view(second, t1, { history }, 1));
  const node = lockNode(tree, 'lock:pay:2');
  const item = renderNode(node, t1);
  assert.deepEqual(item.icon, { id: 'history', color: 'problemsWarningIcon.foreground' });
  assert.match(item.description!, /^1m \d\ds ↻ · held 1m · pay-worker#2$/);
  assert.match(item.tooltip!, /\| Held \| at least 1m \(already held at the view's first read/);
  assert.match(item.tooltip!, /\| Renewed \| 1 time seen \|/);
  assert.match(item.tooltip!, /\*\*Held long:\*\*/);
  assert.ok(item.tooltip!.includes(`- ${clockTime(t1)} renewed`));
  assert.ok(tree.ticking.includes(node.id));
  // No-expiry keeps its own (worse) alarm icon even when held long.
  assert.equal(renderNode(lockNode(tree, 'lock:forever'), t1).icon.id, 'warning');
});

test('control characters from Redis are escaped in labels, descriptions and tooltips', async () => {
  const result = await core.list();
  const readAt = Date.now();
  const tree = buildTree(view(result, readAt));
  const evil = [...tree.nodes.values()].find((n) => n.kind === 'lock' && n.row.key.startsWith('lock:evil'))!;
  const item = renderNode(evil, readAt);
  assert.equal(item.label, 'lock:evil\\x1b]0;PWNED\\x07\\r\\nFAKE');
  assert.match(item.description!, / · \\x1b\[2Jholder\\u\{202e\}evil$/);
  const visible = [item.label, item.description!, item.tooltip!].join('');
  assert.doesNotMatch(visible, /[\x00-\x09\x0b-\x1f\x7f\u202e]/, 'no raw control character is rendered');
  assert.equal(evil.kind === 'lock' && evil.row.raw, '\x1b[2Jholder\u202eevil', 'the row itself keeps the exact value (for the token)');
});

test('re-rendering: a refresh with the same rows re-renders nothing; a tick only the rows whose text changed', async () => {
  const items = new RenderedItems();
  const result = await core.list();
  const readAt = Date.now();
  assert.equal(items.replace(buildTree(view(result, readAt)), readAt), 'all');
  for (const id of [...items.current.nodes.keys()]) items.render(id, readAt);

  // The next listing re-read every key: same shape, same text at the same instant -> nothing to re-render.
  const again = await core.list({ previous: result.rows });
  const pay1 = again.rows.find((r) => r.key === 'lock:pay:1')!;
  for (const row of again.rows) row.pttl = result.rows.find((r) => r.key === row.key)!.pttl;
  assert.deepEqual(items.replace(buildTree(view(again, readAt)), readAt), []);
  // Tooltips are resolved on hover: what they say about PTTL, read time and counts re-renders nothing;
  // a new history entry does (the tooltip VS Code resolved once would miss it).
  const history = new LockHistory();
  history.observe(result, readAt);
  items.replace(buildTree(view(again, readAt, { history })), readAt);
  for (const id of [...items.current.nodes.keys()]) items.render(id, readAt);
  history.observe(again, readAt + 500);
  const withHistory = buildTree(view(again, readAt, { history }));
  assert.match(renderNode(lockNode(withHistory, 'lock:pay:1'), readAt).tooltip!, /History \(while the view is open\)/);
  assert.deepEqual(items.replace(withHistory, readAt), [], 'counts and PTTL do not re-render');
  await client.set('lock:pay:1', 'pay-worker#9', 'PX', 60_000);
  const changedHands = await core.list({ previous: again.rows });
  history.observe(changedHands, readAt + 1_000);
  for (const row of changedHands.rows) row.pttl = again.rows.find((r) => r.key === row.key)?.pttl ?? row.pttl;
  changedHands.rows.find((r) => r.key === 'lock:pay:1')!.holder = pay1.holder;
  assert.deepEqual(items.replace(buildTree(view(changedHands, readAt, { history })), readAt), [lockNode(items.current, 'lock:pay:1').id]);
  for (const id of [...items.current.nodes.keys()]) items.render(id, readAt);

  // A step (5 s) later every finite TTL under a minute shows a new figure; the lock without expiry does not.
  const ticked = items.tick(readAt + 5_001);
  const keys = ticked.map((id) => (items.current.nodes.get(id) as { row: { key: string } }).row.key).sort();
  assert.ok(keys.includes(pay1.key));
  assert.ok(!keys.includes('lock:forever'));
  for (const id of ticked) items.render(id, readAt + 5_001);
  assert.deepEqual(items.tick(readAt + 5_001), [], 'rendered rows are not re-rendered until their text changes');

  await client.set('lock:pay:3', 'pay-worker#3', 'PX', 60_000);
  assert.equal(items.replace(buildTree(view(await core.list(), Date.now())), Date.now()), 'all', 'a new row changes the shape');
});
