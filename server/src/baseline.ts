// The language server's view of `lockwise check --baseline`: the workspace folder's baseline file
// (lockwise.baseline.file), re-read when it changes on disk. Recorded findings are marked baselined
// (shown as hints) or dropped (lockwise.baseline.findings = "hidden"). A broken file is logged once and
// ignored: every finding then shows as usual.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { BaselineMatcher, parseBaseline, type BaselineEntry } from '../../rules/baseline';
import type { Finding } from '../../rules/types';
import type { Log } from './analysis';
import type { ServerSettings } from './settings';

interface Loaded {
  stamp: string;
  /** Undefined when that version of the file could not be used. */
  byFile?: Map<string, BaselineEntry[]>;
}

export class Baselines {
  private readonly loaded = new Map<string, Loaded>();

  constructor(private readonly log: Log) {}

  /** The baseline file for a folder, by the folder's settings. */
  pathFor(folderPath: string, settings: ServerSettings): string {
    return isAbsolute(settings.baselineFile) ? settings.baselineFile : resolve(folderPath, settings.baselineFile);
  }

  /** `findings` of the file at `path`, with the baselined ones marked or left out. */
  apply(baselinePath: string, settings: ServerSettings, path: string, text: string, findings: Finding[]): Finding[] {
    if (findings.length === 0) return findings;
    const entries = this.read(baselinePath);
    if (!entries?.byFile) return findings;
    const rel = relative(dirname(baselinePath), path);
    const name = sep === '/' ? rel : rel.split(sep).join('/');
    const mine = entries.byFile.get(name);
    if (!mine) return findings;
    const known = new BaselineMatcher(mine).match(name, text, findings);
    if (settings.baselineFindings === 'hidden') return findings.filter((_, i) => !known[i]);
    return findings.map((f, i) => (known[i] ? { ...f, baselined: true } : f));
  }

  private read(path: string): Loaded | undefined {
    let stamp: string;
    try {
      const stat = statSync(path);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return undefined; // no baseline: the usual case
    }
    const cached = this.loaded.get(path);
    if (cached?.stamp === stamp) return cached;
    const loaded: Loaded = { stamp };
    try {
      const { entries } = parseBaseline(JSON.parse(readFileSync(path, 'utf8')), path);
      loaded.byFile = new Map<string, BaselineEntry[]>();
      for (const e of entries) loaded.byFile.set(e.file, [...(loaded.byFile.get(e.file) ?? []), e]);
    } catch (err) {
      this.log(`baseline ${path} ignored: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.loaded.set(path, loaded);
    return loaded;
  }
}
