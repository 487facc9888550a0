// The workspace scan tells the client how far it is (lockwise/scanProgress), so the VS Code status
// item can show "checking workspace 25/60": counts while it runs, then one "finished" with the total.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CHECK_WORKSPACE_REQUEST, SCAN_PROGRESS_NOTIFICATION, type CheckWorkspaceResult, type ScanProgress } from '../../server/src/protocol';
import { startServer, type LspClient } from './helpers/lsp-client';
import { IOREDIS_ORDERS } from './helpers/samples';
import { tempWorkspace, type TempWorkspace } from './helpers/workspace';

let ws: TempWorkspace;
let client: LspClient;

before(async () => {
  const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`src/orders-${i}.ts`, IOREDIS_ORDERS]));
  ws = tempWorkspace('scan-progress', files);
  client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
});

after(async () => {
  await client?.stop();
  ws?.remove();
});

test('a scan reports its progress and ends with one finished notification', async () => {
  const seen: ScanProgress[] = [];
  client.connection.onNotification(SCAN_PROGRESS_NOTIFICATION, (p: ScanProgress) => {
    seen.push(p);
  });
  const result = await client.request<CheckWorkspaceResult>(CHECK_WORKSPACE_REQUEST, {});
  assert.equal(result.files, 60);
  // Notifications sent before the answer arrive before it (one connection, in order).
  const last = seen.filter((p) => p.finished).pop();
  assert.ok(last, JSON.stringify(seen));
  assert.deepEqual(last, { done: 60, total: 60, finished: true });
  const running = seen.filter((p) => !p.finished && p.total === 60);
  assert.ok(running.length >= 2, `progress while running: ${JSON.stringify(seen)}`);
  assert.ok(running.every((p, i) => i === 0 || p.done >= running[i - 1].done), 'counts only go up');
});
