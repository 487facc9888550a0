// Language server memory under 2,000 random edits (target: peak RSS <= 250 MB). The built
// dist/server.js is driven over stdio by a real JSON-RPC client: the example app's files and a
// 5,000-line file (bench/fixtures/mixed-file.ts, or the examples repeated) are opened, then edited at random (seeded, so every run edits the same way),
// waiting for the diagnostics of every tenth edit. Printed: RSS at start (files open), peak (VmHWM)
// and at the end, from /proc (Linux only).
import { readFileSync } from 'node:fs';
import { startServer } from '../test/server/helpers/lsp-client';
import { applyEdit, exampleFiles, lspChange, randomEdit, seeded } from '../test/server/helpers/random-edits';
import { tempWorkspace } from '../test/server/helpers/workspace';
import { mixedFile } from './fixtures/mixed-file';

const EDITS = 2_000;

/** Without the bench corpus (bench/corpus.mjs): the example app's sources repeated to 5,000 lines. */
function largeFile(): string {
  const examples = [...exampleFiles().values()].join('\n');
  let text = '';
  while (text.split('\n').length < 5000) text += `${examples}\n`;
  return text;
}

function memoryOf(pid: number): { peakMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const ws = tempWorkspace('bench-memory');
  const client = await startServer({ folders: [{ uri: ws.uri, name: ws.name }] });
  try {
    const texts = new Map<string, string>();
    for (const [rel, text] of exampleFiles()) texts.set(ws.uriOf(rel.replace(/\//g, '_')), text);
    texts.set(ws.uriOf('mixed.ts'), mixedFile() ?? largeFile());
    for (const [uri, text] of texts) client.open(uri, text);
    for (const uri of texts.keys()) await client.waitForDiagnostics(uri, undefined, 60_000);
    const pid = client.process.pid!;
    const start = memoryOf(pid);
    const random = seeded(11);
    const uris = [...texts.keys()];
    let peakDuring = 0;
    for (let i = 0; i < EDITS; i++) {
      const uri = uris[Math.floor(random() * uris.length)]!;
      const text = texts.get(uri)!;
      const edit = randomEdit(text, random);
      client.change(uri, [lspChange(text, edit)]);
      texts.set(uri, applyEdit(text, edit));
      if (i % 10 === 9) {
        await client.waitForDiagnostics(uri, undefined, 60_000);
        peakDuring = Math.max(peakDuring, memoryOf(pid)?.rssMb ?? 0);
      }
    }
    for (const uri of uris) await client.waitForDiagnostics(uri, undefined, 60_000);
    const end = memoryOf(pid);
    if (!start || !end) {
      console.log('memory figures need /proc (Linux)');
      return;
    }
    console.log(`${texts.size} open files, ${EDITS} random edits:`);
    console.log(`  server RSS at start ${start.rssMb.toFixed(0)} MB, peak ${end.peakMb.toFixed(0)} MB (target <= 250 MB; highest sampled ${peakDuring.toFixed(0)} MB), at the end ${end.rssMb.toFixed(0)} MB`);
  } finally {
    await client.stop();
    ws.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
