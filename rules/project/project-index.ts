// The project-wide lock model: per-file summaries of the project's own lock functions, computed on
// demand through a host (host.ts) and kept by file text, and the analysis of a file whose calls to
// them take their meaning. A summary depends on the summaries of what its file imports (helpers that
// call helpers); each file remembers who resolved into it, so a change invalidates exactly the files
// whose meaning it can change.
import { basename, dirname } from 'node:path';
import { activeRules, runRules, scriptKindOf } from '../analyze';
import { emptyConfig, type LockwiseConfig } from '../config';
import { indexTree } from '../engine/file-index';
import { LOCK_NAME } from '../engine/lock-name';
import { buildModel, type LockModel } from '../engine/model';
import { mightHoldLockCode } from '../engine/prefilter';
import { ts } from '../engine/typescript';
import type { AnalysisResult } from '../types';
import { projectContext, Resolution, type ProjectContext } from './call-meanings';
import { readFileSymbols } from './file-symbols';
import type { ProjectHost } from './host';
import { ModuleResolver } from './resolve-module';
import { summarizeFile } from './summarize';
import { emptySummary, hasLockMeaning, type FileSummary } from './types';

export interface ProjectOptions {
  host: ProjectHost;
  /** The configuration of a file (its helpers shape its summary); default: none. */
  configFor?(path: string): LockwiseConfig;
}

interface Entry {
  text: string;
  summary: FileSummary;
}

// A file that can give a caller a lock meaning: lock code, a name that says lock, a Redis command
// method it may wrap, or a re-export (a barrel).
const REDIS_METHOD = /\.\s*(?:set|get|setnx|setNX|del|unlink|getdel|expire|pexpire|pExpire|eval|evalsha|evalSha|call|sendCommand)\s*\(/;
const REEXPORT = /\bexport\b[^;\n]*\bfrom\b|\bmodule\.exports\b|\bexports\.[\w$]+\s*=/;
/** Local composition is followed this many rounds (a helper calling a helper calling a helper). */
const LOCAL_ROUNDS = 3;

export function canGiveLockMeaning(text: string): boolean {
  return LOCK_NAME.test(text) || REDIS_METHOD.test(text) || REEXPORT.test(text) || mightHoldLockCode(text, { acquire: [], release: [], extend: [] });
}

export class ProjectIndex {
  readonly modules: ModuleResolver;
  private readonly entries = new Map<string, Entry>();
  private readonly inProgress = new Set<string>();
  /** path -> the files that resolved a specifier to it. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly resolution: Resolution;

  constructor(private readonly options: ProjectOptions) {
    this.modules = new ModuleResolver(options.host);
    this.resolution = new Resolution({ summaryOf: (specifier, from) => this.summaryFor(specifier, from) });
  }

  private configFor(path: string): LockwiseConfig {
    return this.options.configFor?.(path) ?? emptyConfig();
  }

  private summaryFor(specifier: string, fromPath: string): FileSummary | undefined {
    const path = this.modules.resolve(specifier, fromPath);
    if (!path) return undefined;
    let users = this.dependents.get(path);
    if (!users) this.dependents.set(path, (users = new Set()));
    users.add(fromPath);
    return this.summaryOf(path);
  }

  /** The summary of a project file (read through the host), computed once per text. */
  summaryOf(path: string, text = this.options.host.readFile(path)): FileSummary | undefined {
    if (text === undefined) return undefined;
    const entry = this.entries.get(path);
    if (entry && entry.text === text) return entry.summary;
    // An import cycle: the file being summarised lends what it has so far (nothing).
    if (this.inProgress.has(path)) return emptySummary(path);
    if (!canGiveLockMeaning(text) || !scriptKindOf(path)) {
      this.entries.set(path, { text, summary: emptySummary(path) });
      return this.entries.get(path)!.summary;
    }
    return this.build(path, text).summary;
  }

  /** Parses and models a file with the project's meanings, summarising it on the way. */
  private build(path: string, text: string): { summary: FileSummary; model: LockModel } {
    this.inProgress.add(path);
    try {
      const config = this.configFor(path);
      const sourceFile = ts.createSourceFile(path, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, scriptKindOf(path) ?? ts.ScriptKind.TS);
      indexTree(sourceFile);
      let summary = readFileSymbols(sourceFile, path).summary;
      let model = buildModel(sourceFile, config.helpers, this.contextOf(summary));
      let next = summarizeFile(model, path);
      // Helpers that call helpers of the same file: model again with the file's own meanings.
      for (let round = 1; round < LOCAL_ROUNDS && calledLocally(next, sourceFile) && JSON.stringify(next) !== JSON.stringify(summary); round++) {
        summary = next;
        model = buildModel(sourceFile, config.helpers, this.contextOf(summary));
        next = summarizeFile(model, path);
      }
      this.entries.set(path, { text, summary: next });
      return { summary: next, model };
    } finally {
      this.inProgress.delete(path);
    }
  }

  private contextOf(summary: FileSummary): ProjectContext {
    return projectContext(summary, this.resolution);
  }

  /**
   * Analyses one file of the project: its calls to project helpers (in it and in the files it
   * imports) take the helpers' meaning. Throws only where the parser cannot go on (see analyzeText).
   */
  analyze(path: string, text: string, options: { config?: LockwiseConfig; fixes?: boolean; only?: readonly string[] } = {}): AnalysisResult & { summary: FileSummary } {
    const config = options.config ?? this.configFor(path);
    const rules = activeRules(config, options.only);
    const { summary, model } = this.build(path, text);
    return { ...runRules(model, rules, config, options.fixes), parsed: true, summary };
  }

  /** Forget a file (changed or deleted); returns every file whose meaning may have changed with it. */
  invalidate(path: string): Set<string> {
    const affected = new Set<string>();
    const visit = (p: string) => {
      if (affected.has(p)) return;
      affected.add(p);
      this.entries.delete(p);
      for (const user of this.dependents.get(p) ?? []) visit(user);
    };
    visit(path);
    affected.delete(path);
    return affected;
  }

  /** A file was created, deleted or renamed, or a tsconfig changed: specifiers may name other files now. */
  resetResolution(): void {
    this.modules.reset();
    this.entries.clear();
    this.dependents.clear();
  }

  /** The files that import `path` (directly), as far as this index has seen. */
  dependentsOf(path: string): ReadonlySet<string> {
    return this.dependents.get(path) ?? new Set();
  }

  /**
   * Words a file that uses this one must contain: its module name and its exported names with a lock
   * meaning; empty when it gives no lock meaning. Files with none of them need no project analysis.
   */
  mentionKeys(path: string): string[] {
    const summary = this.entries.get(path)?.summary;
    if (!summary) return [];
    const names = [...this.resolution.exportedLockNames(summary)];
    if (names.length === 0) return [];
    const file = basename(path).replace(/\.[^.]*$/, '');
    return [file === 'index' ? basename(dirname(path)) : file, ...names];
  }
}

/** Does the file call one of its own functions that has a lock meaning? */
function calledLocally(summary: FileSummary, sourceFile: ts.SourceFile): boolean {
  const names = new Set<string>();
  for (const [name, fn] of Object.entries(summary.functions)) if (hasLockMeaning(fn)) names.add(name);
  for (const cls of Object.values(summary.classes)) for (const [name, fn] of Object.entries(cls.methods)) if (hasLockMeaning(fn)) names.add(name);
  for (const members of Object.values(summary.objects)) for (const [name, fn] of Object.entries(members)) if (hasLockMeaning(fn)) names.add(name);
  if (names.size === 0) return false;
  const text = sourceFile.text;
  // The definition is one occurrence of `name(`; a call is another.
  return [...names].some((name) => (text.match(new RegExp(`\\b${name.replace(/[$]/g, '\\$')}\\s*\\(`, 'g'))?.length ?? 0) > 1);
}
