// Runs the built `dist/cli.js` as a real process on fixture trees written to the OS temp folder
// (outside this repository, so the repository's own .gitignore does not apply to them).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const CLI = resolve('dist/cli.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], cwd: string, env: Record<string, string | undefined> = {}, cli = CLI): CliRun {
  const run = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
    // A hang is a bug: fail instead of blocking the suite.
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export interface Tree {
  root: string;
  remove(): void;
}

/** Writes `files` (path -> content) under a fresh temp folder. */
export function makeTree(files: Record<string, string | Buffer>): Tree {
  const root = mkdtempSync(join(tmpdir(), 'lockwise-cli-'));
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Lock misuse that rule atomic-acquire flags: SETNX, then a separate EXPIRE on the same key. */
export const SETNX_THEN_EXPIRE = `import Redis from 'ioredis';

const redis = new Redis();

export async function runJob(id: string): Promise<void> {
  const key = \`lock:job:\${id}\`;
  const ok = await redis.setnx(key, 'token');
  if (!ok) return;
  await redis.expire(key, 10);
}
`;

/** Code without any lock: must produce nothing. */
export const NO_LOCKS = `export function add(a: number, b: number): number {
  return a + b;
}
`;

export interface JsonReport {
  version: number;
  filesScanned: number;
  filesAnalyzed: number;
  durationMs: number;
  findings: {
    file: string;
    rule: string;
    severity: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    message: string;
    related: { file: string; line: number; column: number; endLine: number; endColumn: number; message: string }[];
    noFix?: string;
    fixes: { title: string; unattended: boolean; edits: { line: number; column: number; endLine: number; endColumn: number; newText: string }[] }[];
  }[];
  errors: { file: string; message: string }[];
  baseline?: { file: string; suppressed: number; stale: number; written?: number };
}

export function checkJson(args: string[], cwd: string): { run: CliRun; report: JsonReport } {
  const run = runCli(['check', '--format', 'json', ...args], cwd);
  try {
    return { run, report: JSON.parse(run.stdout) as JsonReport };
  } catch {
    throw new Error(`stdout is not JSON (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
}
