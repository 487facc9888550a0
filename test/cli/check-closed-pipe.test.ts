// `lockwise check | head`: the reader closes the pipe before the report is written out. The check
// stops writing without a stack trace and still exits with its own code (1: findings).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { makeTree } from './cli-process';

const MISTAKE = (i: number) => `import Redis from 'ioredis';
const redis = new Redis();
export async function job${i}(id: string) {
  await redis.setnx('lock:job${i}:' + id, 'me');
  await redis.expire('lock:job${i}:' + id, 30);
  await redis.del('lock:job${i}:' + id);
}
`;

test('a reader that closes the pipe early gets no stack trace, and the exit code still says findings', async () => {
  // Far more report than a pipe buffers (64 KB), so the writes meet the closed pipe.
  const tree = makeTree(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`src/job-${i}.ts`, MISTAKE(i)])));
  try {
    const child = spawn(process.execPath, [resolve('dist/cli.js'), 'check', '--format', 'json', '.'], { cwd: tree.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let read = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.stdout.once('data', (d: Buffer) => {
      read = d.length;
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    assert.ok(read > 0, 'the report had begun');
    assert.equal(stderr, '', 'nothing on stderr');
    assert.equal(code, 1);
  } finally {
    tree.remove();
  }
});
