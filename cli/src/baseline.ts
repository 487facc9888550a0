// `lockwise check --baseline FILE [--update-baseline]`: findings recorded in FILE are left out of the
// report and the exit code, and the report says how many were, and how many entries matched nothing
// (fixed code: drop them with --update-baseline). --update-baseline records every current finding.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { BaselineError, BaselineMatcher, entriesFor, parseBaseline, serializeBaseline, type BaselineEntry } from '../../rules/baseline';
import type { BaselineSummary, CheckedFile } from './format/report';

function readBaseline(path: string, display: string): BaselineEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BaselineError(display, code === 'ENOENT' ? 'no such baseline file (create it with --update-baseline)' : `cannot read the file (${code ?? String(err)})`);
  }
  try {
    return parseBaseline(JSON.parse(text), display).entries;
  } catch (err) {
    if (err instanceof BaselineError) throw err;
    throw new BaselineError(display, `not valid JSON (${(err as Error).message})`);
  }
}

/** A file's name as the baseline stores it: relative to the baseline's folder, '/' separators. */
function baselineName(baselineDir: string, cwd: string, file: CheckedFile): string {
  const rel = relative(baselineDir, resolve(cwd, file.name));
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** The report's files without the baselined findings, and what the baseline did. */
export function applyBaseline(
  files: CheckedFile[],
  cwd: string,
  baselineFile: string,
  display: string,
  update: boolean,
): { files: CheckedFile[]; summary: BaselineSummary } {
  const path = resolve(cwd, baselineFile);
  const dir = dirname(path);
  if (update) {
    // Read first when present, so a broken file is reported rather than overwritten unseen.
    if (existsSync(path)) readBaseline(path, display);
    const entries = files.flatMap((f) => entriesFor(baselineName(dir, cwd, f), f.text, f.findings));
    writeFileSync(path, serializeBaseline(entries));
    return { files: [], summary: { file: display, suppressed: entries.length, stale: 0, written: entries.length } };
  }
  const matcher = new BaselineMatcher(readBaseline(path, display));
  let suppressed = 0;
  const kept = files.map((f) => {
    const known = matcher.match(baselineName(dir, cwd, f), f.text, f.findings);
    suppressed += known.filter(Boolean).length;
    return { ...f, findings: f.findings.filter((_, i) => !known[i]) };
  });
  return { files: kept.filter((f) => f.findings.length > 0), summary: { file: display, suppressed, stale: matcher.stale } };
}
