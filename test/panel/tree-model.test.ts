// The Redis Locks tree model, fed with real rows: locks are seeded in a private redis-server and
// listed by the real lock core, then turned into tree nodes exactly as the view does.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import Redis from 'ioredis';
import { openLockConnection, type ListResult, type LockConnection } from '../../client/src/locks';
import { ContextValue } from '../../client/src/panel/ids';
import { buildTree, childrenOf, renderNode, type PanelTree } from '../../client/src/panel/lock-tree-model';
import { NO_EXPIRY_DOC } from '../../client/src/panel/lock-style';
import { rowTtlText } from '../../client/src/panel/ttl-text';
import { escapeMarkdown } from '../../client/src/panel/markdown';
import type { ConnectionView, PanelView } from '../../client/src/panel/panel-state';
import { startRedis, type RedisProcess } from '../helpers/redis-server';
import { seedAllFormats } from '../locks/seed';

let redis: RedisProcess;
let client: Redis;
let core: LockConnection;
const lwToken = `lw1:web-1:4242:${randomBytes(16).toString('hex')}`;
const redlockToken = randomBytes(16).toString('hex');

before(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
  await client.set('lock:order:1', lwToken, 'PX', 60_000);
  await client.set('lock:order:2', redlockToken, 'PX', 60_000);
  await client.set('lock:nightly', 'cron-host-3');
  await client.set('mutex:reports', '6f1c1d9e-6b7a-4d55-9a43-2f8e1c0b7a11', 'PX', 60_000);
  await client.set('lock:pipe|and`tick', 'odd-holder', 'PX', 60_000);
  await client.set('cache:user:1', 'not a lock');
  core = await openLockConnection({ url: redis.url });
});

after(async () => {
  await core?.close();
  client?.disconnect();
  await redis?.stop();
});

const target = (id = 'url:redis://local') => ({ id, label: '127.0.0.1 test', kind: 'url' as const });

function view(result: ListResult, readAt: number, extra: Partial<PanelView> = {}, connection: Partial<ConnectionView> = {}): PanelView {
  return {
    connections: [{ target: target(), status: { phase: 'connected' }, listing: { result, readAt }, writable: true, ...connection }],
    filter: '',
    notices: [],
    heldLongMs: 600_000,
    ...extra,
  };
}

function labels(tree: PanelTree, id: string | undefined, now = Date.now()): string[] {
  return childrenOf(tree, id).map((child) => renderNode(tree.nodes.get(child)!, now).label);
}

function lockItem(tree: PanelTree, key: string, now: number) {
  const node = [...tree.nodes.values()].find((n) => n.kind === 'lock' && n.row.key === key);
  assert.ok(node, `no lock node for ${key}`);
  return renderNode(node, now);
}

test('connection -> key-prefix groups -> locks, labelled by key, sorted, non-lock keys absent', async () => {
  const result = await core.list();
  const tree = buildTree(view(result, Date.now()));
  assert.equal(tree.roots.length, 1);
  const connection = renderNode(tree.nodes.get(tree.roots[0]!)!, Date.now());
  assert.equal(connection.label, '127.0.0.1 test');
  assert.equal(connection.description, '5 locks');
  assert.equal(connection.contextValue, ContextValue.Connection);
  assert.deepEqual(labels(tree, tree.roots[0]), ['lock:*', 'lock:order:*', 'mutex:*']);
  const orderGroup = childrenOf(tree, tree.roots[0]).find((id) => tree.nodes.get(id)!.kind === 'group' && labels(tree, id).includes('lock:order:1'));
  assert.ok(orderGroup);
  assert.deepEqual(labels(tree, orderGroup), ['lock:order:1', 'lock:order:2']);
  assert.ok(![...tree.nodes.values()].some((n) => n.kind === 'lock' && n.row.key.startsWith('cache:')));
});

test('description = TTL first, counting down locally from the read time in steps, then the holder', async () => {
  const result = await core.list();
  const readAt = Date.now();
  const tree = buildTree(view(result, readAt));
  const row = result.rows.find((r) => r.key === 'lock:order:1')!;
  const at = (ms: number) => lockItem(tree, 'lock:order:1', readAt + ms).description!;
  assert.match(at(0), / · web-1 pid 4242$/);
  const ttl = (text: string) => /^(.+?) · /.exec(text)?.[1];
  // 5 s steps under a minute, tenths in the last 10 s, so a row re-renders (closing its tooltip) rarely.
  const step5 = (left: number) => `${Math.floor(left / 5000) * 5} s`;
  assert.equal(ttl(at(7_000)), step5(row.pttl - 7_000));
  assert.equal(ttl(at(7_900)), ttl(at(7_000)), 'the same step: nothing to re-render');
  assert.equal(ttl(at(row.pttl - 4_250)), '4.3 s');
  assert.match(at(row.pttl + 1), /^expired · /);
  assert.ok(tree.ticking.includes([...tree.nodes.values()].find((n) => n.kind === 'lock' && n.row.key === 'lock:order:1')!.id));
  assert.deepEqual([125_000, 3_599_000, 7_380_000].map((p) => rowTtlText(p, 0, 0)), ['2m 00s', '59m 50s', '2h 03m']);
});

test('a lock without TTL is shown as a problem linked to the require-ttl rule', async () => {
  const result = await core.list();
  const tree = buildTree(view(result, Date.now()));
  const item = lockItem(tree, 'lock:nightly', Date.now());
  assert.equal(item.description, 'NO EXPIRY · cron-host-3');
  assert.deepEqual(item.icon, { id: 'warning', color: 'problemsErrorIcon.foreground' });
  assert.ok(item.tooltip!.includes(`(${NO_EXPIRY_DOC})`));
  assert.match(NO_EXPIRY_DOC, /require-ttl\.md$/);
  const nightly = [...tree.nodes.values()].find((n) => n.kind === 'lock' && n.row.key === 'lock:nightly')!;
  assert.ok(!tree.ticking.includes(nightly.id), 'a lock without TTL has nothing to count down');
  const group = [...tree.nodes.values()].find((n) => n.kind === 'group' && n.prefix === 'lock:*')!;
  assert.match(renderNode(group, Date.now()).description!, /1 without expiry/);
});

test('state icons: held, expiring, renewed, gone, from consecutive real listings', async () => {
  await client.set('lock:state:held', 'h', 'PX', 60_000);
  await client.set('lock:state:renew', 'r', 'PX', 10_000);
  await client.set('lock:state:soon', 's', 'PX', 1_500);
  await client.set('lock:state:gone', 'g', 'PX', 60_000);
  const first = await core.list();
  await client.pexpire('lock:state:renew', 60_000);
  await client.del('lock:state:gone');
  const second = await core.list({ previous: first.rows });
  const tree = buildTree(view(second, Date.now()));
  const icon = (key: string) => lockItem(tree, key, Date.now()).icon.id;
  assert.equal(icon('lock:state:held'), 'lock');
  assert.equal(icon('lock:state:renew'), 'sync');
  assert.match(lockItem(tree, 'lock:state:renew', Date.now()).description!, / ↻ · r$/);
  assert.equal(icon('lock:state:soon'), 'watch');
  assert.equal(icon('lock:state:gone'), 'circle-slash');
  assert.match(lockItem(tree, 'lock:state:gone', Date.now()).description!, /^gone · g$/);
  await client.del('lock:state:held', 'lock:state:renew', 'lock:state:soon');
});

test('tooltip carries raw value, type, TTL in ms, fencing counter; Markdown from Redis stays literal', async () => {
  await client.set('{lock:fenced}:fence', '41');
  await client.set('lock:fenced', lwToken, 'PX', 60_000);
  const result = await core.list();
  const readAt = Date.now();
  const tree = buildTree(view(result, readAt));
  const fenced = lockItem(tree, 'lock:fenced', readAt).tooltip!;
  const row = result.rows.find((r) => r.key === 'lock:fenced')!;
  assert.equal(row.fence?.value, '41');
  assert.ok(fenced.includes(`PTTL ${row.pttl} ms`));
  assert.ok(fenced.includes('| Type | string |'));
  assert.ok(fenced.includes(`\n${lwToken}\n`), 'raw value in a code block');
  assert.ok(fenced.includes('41'));
  const odd = lockItem(tree, 'lock:pipe|and`tick', readAt).tooltip!;
  assert.ok(odd.startsWith('**lock:pipe\\|and\\`tick**'));
  await client.del('lock:fenced', '{lock:fenced}:fence');
});

test('filter: a Redis glob matches keys, plain text matches holder or state; groups without matches disappear', async () => {
  const result = await core.list();
  const glob = buildTree(view(result, Date.now(), { filter: 'lock:order:*' }));
  assert.deepEqual(labels(glob, glob.roots[0]), ['lock:order:*']);
  assert.equal(renderNode(glob.nodes.get(glob.roots[0]!)!, Date.now()).description, `2 of ${result.rows.length} locks`);
  const holder = buildTree(view(result, Date.now(), { filter: 'WEB-1' }));
  assert.deepEqual([...holder.nodes.values()].filter((n) => n.kind === 'lock').map((n) => n.kind === 'lock' && n.row.key), ['lock:order:1']);
  const state = buildTree(view(result, Date.now(), { filter: 'no-expiry' }));
  assert.deepEqual([...state.nodes.values()].filter((n) => n.kind === 'lock').map((n) => n.kind === 'lock' && n.row.key), ['lock:nightly']);
  const none = buildTree(view(result, Date.now(), { filter: 'zzz' }));
  assert.deepEqual(labels(none, none.roots[0]), ['No lock matches the filter "zzz"']);
});

test('partial listings, errors and notices become message nodes; writable decides the contextValue', async () => {
  const result = await core.list({ rowCap: 2 });
  assert.equal(result.partial, true);
  const tree = buildTree(
    view(result, Date.now(), { notices: ['lockwise.redis.db must be an integer >= 0; using the default.'] }, {
      status: { phase: 'reconnecting', error: 'Connection refused at 127.0.0.1:1.', retryAt: Date.now() + 4_000, attempt: 2 },
      writable: false,
      readOnlyReason: 'lockwise.redis.readOnly is on',
    }),
  );
  assert.equal(renderNode(tree.nodes.get(tree.roots[0]!)!, Date.now()).label, 'lockwise.redis.db must be an integer >= 0; using the default.');
  const conn = renderNode(tree.nodes.get(tree.roots[1]!)!, Date.now());
  assert.match(conn.description!, /^last read \d\d:\d\d:\d\d · reconnecting · read-only$/);
  assert.equal(conn.contextValue, ContextValue.ConnectionDown);
  assert.match(conn.tooltip!, /off: lockwise\.redis\.readOnly is on/);
  const messages = labels(tree, tree.roots[1]).slice(0, 4);
  assert.match(messages[0]!, /^Rows below as read at \d\d:\d\d:\d\d$/);
  assert.equal(messages[1], 'Connection refused at 127.0.0.1:1.');
  assert.match(messages[2]!, /^Reconnecting in [34]s$/);
  assert.match(messages[3]!, /^Partial: \d+ keys scanned, 2 rows shown$/);
  const lock = [...tree.nodes.values()].find((n) => n.kind === 'lock')!;
  assert.equal(renderNode(lock, Date.now()).contextValue, ContextValue.Lock);
  const retry = (tree.nodes.get(tree.roots[1]!) as { children: string[] }).children.find((id) => tree.nodes.get(id)!.kind === 'retry')!;
  assert.ok(tree.ticking.includes(retry), 'the reconnect countdown ticks, on a row of its own');
  assert.ok(!tree.ticking.includes(tree.roots[1]!), 'the connection row does not tick: its children would re-render with it');
  assert.ok(!tree.ticking.includes(lock.id), 'a stale row does not count down');
});

test('every holder format the core decodes renders with a label, a state icon and its raw value', async () => {
  const seeded = await seedAllFormats(client);
  const result = await core.list();
  const readAt = Date.now();
  const tree = buildTree(view(result, readAt));
  for (const lock of seeded.locks) {
    const item = lockItem(tree, lock.key, readAt);
    const row = result.rows.find((r) => r.key === lock.key)!;
    assert.ok(item.description!.endsWith(` · ${row.holder.label}`), lock.key);
    assert.equal(item.contextValue, ContextValue.LockWritable);
    assert.ok(['lock', 'warning', 'watch'].includes(item.icon.id), `${lock.key}: ${item.icon.id}`);
    assert.ok(item.tooltip!.includes(`(${escapeMarkdown(row.holder.format)})`), lock.key);
    assert.ok(item.tooltip!.includes(row.raw.slice(0, 2000)), `${lock.key}: raw value`);
  }
});
