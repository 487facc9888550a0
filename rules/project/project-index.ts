// The project-wide lock model: per-file summaries of the project's own lock functions, computed on
// demand through a host (host.ts) and kept by file text, and the analysis of a file whose calls to
// them take their meaning. A summary depends on the summaries of what its file imports (helpers that
// call helpers); each file remembers who resolved into it, so a change invalidates exactly the files
// whose meaning it can change.
import { dirname, join } from 'node:path';
import { activeRules, parseLean, runRules, scriptKindOf } from '../analyze';
import { emptyConfig, type LockwiseConfig } from '../config';
import { buildModel, type LockModel } from '../engine/model';
import { identifiersOfFile } from '../engine/file-index';
import { mightHoldLockCode } from '../engine/prefilter';
import { LOCK_NAME } from '../engine/lock-name';
import { ts } from '../engine/typescript';
import type { AnalysisResult } from '../types';
import { projectContext, Resolution, type ProjectContext } from './call-meanings';
import { readFileSymbols, type SummaryTarget } from './file-symbols';
import type { ProjectHost } from './host';
import { Implementers } from './implementers';
import { PackageClients } from './packages';
import { ModuleResolver } from './resolve-module';
import { summarizeFile } from './summarize';
import { emptySummary, hasLockMeaning, type FileSummary } from './types';
import { usedImports } from './import-uses';
import { mayMakeUnconfiguredClient } from '../engine/configured-client';
import { leanParseKeeps, mayCallLockHelpers, mayWrapCommands, namesAnyOf, wrapperSpans } from './pre-checks';

export interface ProjectOptions {
  host: ProjectHost;
  /** The configuration of a file (its helpers shape its summary); default: none. */
  configFor?(path: string): LockwiseConfig;
  /** A file's summary changed: the files in `affected` (its dependents) have a new meaning to analyse. */
  onMeaningChanged?(path: string, affected: ReadonlySet<string>): void;
  /**
   * How much text (characters) the models built while summarising imports may hold until their files'
   * own analyses take them: a batch run that analyses every file later sets it high, an editor keeps
   * little (default 2 MB).
   */
  spareText?: number;
}

interface Entry {
  text: string;
  summary: FileSummary;
  /** Made from a lean parse that blanked declarations that may be thin wrappers: true for the file's own model, not for an importer. */
  partial?: boolean;
}

// A file that can give a caller a lock meaning, told before it is parsed: lock code, a Redis command
// wrapper (pre-checks.ts), or a re-export (a barrel) give one by their text; a file with lock words
// and imports (a helper composed from another module's helpers) only if an import resolves to one.
const REEXPORT = /\bexport\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\b|\bmodule\.exports\s*=\s*require\s*\(|\bexports\.[\w$]+\s*=\s*require\s*\(|__exportStar\(\s*require\(|\.\.\.\s*require\s*\(/;
/** Local composition is followed this many rounds (a helper calling a helper calling a helper). */
const LOCAL_ROUNDS = 3;
const SPARE_TEXT = 2 * 1024 * 1024;
/** `: ILockService`, `: LockService | null`: a type annotation naming something lock-like. */
const LOCK_TYPE = /:\s*([A-Z][\w$]*)\b/g;
const CLASS_NAME = /\bclass\s+([\w$]+)/g;
/** `export * from`, `export type * from`, `{ ...require('./x') }`: a module whose summary exports more names than its text spells. */
const STAR_REEXPORT = /\bexport\s*(?:type\s+)?\*\s*from\b|\.\.\.\s*require\s*\(/;
// The client a project module makes (ProjectIndex.importedClient).
const IOREDIS_MODULE = /['"`](?:ioredis|iovalkey)['"`]/;
const NODE_REDIS_MODULE = /['"`](?:redis|@redis\/client)['"`]/;
const CREATES_NODE_REDIS = /\bcreateClient\s*\(/;
/** Identifier-like words (a name with non-ASCII letters is one word too). */
const WORD = /[\p{ID_Continue}$\u200c\u200d]+/gu;

/** An interface, object type or abstract class (a type to inject a lock service by: file-symbols' lockTypes). */
const TYPE_DECLARATION = /\binterface\s|\babstract\s+class\s|\btype\s+[\w$]+\s*=\s*\{/;
/** A member named like a lock operation, at the start of a line: `acquireLock(key: string)`, `release?: () => ...`. */
const LOCK_MEMBER = /^\s*(?:abstract\s+)?(?:acquire|release|tryAcquire|[\w$]*(?:lock|Lock|mutex|Mutex)[\w$]*)\s*\??\s*[(<:]/m;

function givesLockMeaningByText(text: string): boolean {
  return mightHoldLockCode(text, { acquire: [], release: [], extend: [] }) || mayWrapCommands(text) || REEXPORT.test(text) ||
    (TYPE_DECLARATION.test(text) && LOCK_MEMBER.test(text)) || mayMakeUnconfiguredClient(text);
}

export class ProjectIndex {
  readonly modules: ModuleResolver;
  private readonly entries = new Map<string, Entry>();
  private readonly inProgress = new Set<string>();
  /** path -> the files that resolved a specifier to it. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly resolution: Resolution;
  private readonly implementers: Implementers;
  private readonly packages: PackageClients;
  private readonly names = new Map<string, ReadonlySet<string>>();
  /** Models built while summarising an import, kept for that file's own analysis (a few: they hold trees). */
  private readonly spareModels = new Map<string, { text: string; helpers: string; model: LockModel }>();
  private spareChars = 0;

  constructor(private readonly options: ProjectOptions) {
    this.modules = new ModuleResolver(options.host);
    this.implementers = new Implementers(options.host);
    this.packages = new PackageClients(options.host);
    this.resolution = new Resolution({
      summaryOf: (specifier, from) => this.summaryFor(specifier, from),
      implementationsOf: (name, from) => this.implementationsOf(name, from),
      bindingsOf: (name, from) => this.bindingsOf(name, from),
      wordsOf: (specifier, from) => this.wordsOf(specifier, from),
    });
  }

  private configFor(path: string): LockwiseConfig {
    return this.options.configFor?.(path) ?? emptyConfig();
  }

  private summaryFor(specifier: string, fromPath: string): FileSummary | undefined {
    const path = this.modules.resolve(specifier, fromPath);
    if (!path) return undefined;
    this.dependOn(path, fromPath);
    return this.summaryOf(path);
  }

  /** `user`'s meaning is built on `path`'s summary: a change of `path` re-analyses it. */
  private dependOn(path: string, user: string): void {
    let users = this.dependents.get(path);
    if (!users) this.dependents.set(path, (users = new Set()));
    users.add(user);
  }

  /** Summaries of the classes that implement or extend `name` around `fromPath` (dependency injection by type). */
  private implementationsOf(name: string, fromPath: string): FileSummary[] {
    const found: FileSummary[] = [];
    for (const path of this.implementers.filesFor(name, fromPath)) {
      this.dependOn(path, fromPath);
      const summary = this.summaryOf(path);
      if (summary) found.push(summary);
    }
    return found;
  }

  /** The classes a container binding (implementers.ts) binds the type `name` to, with the binding file's summary. */
  private bindingsOf(name: string, fromPath: string): Array<{ module: FileSummary; cls: string }> {
    const found: Array<{ module: FileSummary; cls: string }> = [];
    for (const { path, cls } of this.implementers.bindingsFor(name, fromPath)) {
      this.dependOn(path, fromPath);
      const module = this.summaryOf(path);
      if (module) found.push({ module, cls });
    }
    return found;
  }

  /**
   * The summary of a project file, computed once per text: of `text` when given (an editor's), else
   * of the file as last read through the host (`invalidate` makes it read again).
   */
  summaryOf(path: string, given?: string): FileSummary | undefined {
    const entry = this.entries.get(path);
    const whole = entry && !entry.partial ? entry : undefined;
    if (whole && (given === undefined || whole.text === given)) return whole.summary;
    const text = given ?? this.options.host.readFile(path);
    if (text === undefined) return undefined;
    if (whole && whole.text === text) return whole.summary;
    // An import cycle: the file being summarised lends what it has so far (nothing).
    if (this.inProgress.has(path)) return emptySummary(path);
    if (!scriptKindOf(path) || !this.mayGiveLockMeaning(path, text)) {
      const summary = emptySummary(path);
      this.store(path, text, summary);
      return summary;
    }
    const { summary, model } = this.build(path, text);
    this.keepSpare(path, { text, helpers: JSON.stringify(this.configFor(path).helpers), model });
    return summary;
  }

  /** Keeps a model built while summarising an import; the oldest go first when over the text budget. */
  private keepSpare(path: string, spare: { text: string; helpers: string; model: LockModel }): void {
    this.takeSpare(path);
    const budget = this.options.spareText ?? SPARE_TEXT;
    for (const [oldest] of this.spareModels) {
      if (this.spareChars + spare.text.length <= budget) break;
      this.takeSpare(oldest);
    }
    if (spare.text.length > budget) return;
    this.spareModels.set(path, spare);
    this.spareChars += spare.text.length;
  }

  private takeSpare(path: string): { text: string; helpers: string; model: LockModel } | undefined {
    const spare = this.spareModels.get(path);
    if (spare) {
      this.spareModels.delete(path);
      this.spareChars -= spare.text.length;
    }
    return spare;
  }

  /**
   * Parses and models a file with the project's meanings, summarising it on the way (with
   * `summaryOnDemand`, only when the model needs it: see modelWithSummary).
   */
  private build(path: string, text: string, config = this.configFor(path), summaryOnDemand = false): { summary?: FileSummary; model: LockModel } {
    const keeps = leanParseKeeps(text, config.helpers);
    if (keeps !== config.helpers && summaryOnDemand && !this.dependents.get(path)?.size) {
      // A module that may wrap commands keeps every declaration that calls a method named like one
      // (`get(`: most business code) for its summary, which no file has asked for yet. Its own model
      // needs them only where the kept code calls them; a summary made without them is partial, and
      // made again with them when an importer asks (summaryOf).
      const lean = parseLean(path, text, config.helpers);
      const wrappers = wrapperSpans(text, lean.blanked);
      if (!namesAnyOf(text, lean.sourceFile.text, wrappers)) {
        const built = this.buildLean(path, text, lean, config, summaryOnDemand);
        const entry = this.entries.get(path);
        if (built.summary && entry && wrappers.length > 0) entry.partial = true;
        return built;
      }
    }
    return this.buildLean(path, text, parseLean(path, text, keeps), config, summaryOnDemand);
  }

  private buildLean(path: string, text: string, lean: ReturnType<typeof parseLean>, config: LockwiseConfig, summaryOnDemand: boolean): { summary?: FileSummary; model: LockModel } {
    // Declarations with no lock word are blanked before parsing (engine/lock-text.ts), but for the
    // methods a wrapper module wraps; the names of the helpers it turns out to call must not be in a
    // blanked span, or it is parsed again whole. Unsummarised, any of its own functions may be one.
    const built = this.modelWithSummary(path, text, lean.sourceFile, config, summaryOnDemand);
    if (lean.blanked.length === 0) return built;
    const own = built.summary ? localLockNames(built.summary) : built.targets.map((t) => t.name);
    const names = [...this.namesOf(path), ...own];
    const hidden = lean.blanked.some(([start, end]) => names.some((name) => text.slice(start, end).includes(name)));
    return hidden ? this.modelWithSummary(path, text, parseLean(path, text, config.helpers, true).sourceFile, config, summaryOnDemand) : built;
  }

  /**
   * The lock model of an already parsed file (an editor's kept tree) with the project's meanings.
   * `text` is the file's text as written (a lean tree's own text has declarations blanked). With
   * `summaryOnDemand` (an edit of an open document), a file no other file has resolved into, and that
   * calls none of its own functions, is not summarised: nothing depends on its meaning yet, and the
   * first file to import it summarises it then (summaryOf). On the lock-heavy file, summarising was a
   * third of the model's cost on every keystroke.
   */
  modelOf(path: string, text: string, sourceFile: ts.SourceFile, config: LockwiseConfig, summaryOnDemand = false): LockModel {
    return this.modelWithSummary(path, text, sourceFile, config, summaryOnDemand).model;
  }

  /**
   * The lock model of a part of an open document (one function with the file's context, the rest blanked:
   * rules/kept-analysis.ts), or undefined when the whole file must be modelled: another file depends on its
   * summary, its last model kept one, or the part calls its own functions. Stores nothing.
   */
  partModelOf(path: string, part: ts.SourceFile, config: LockwiseConfig): LockModel | undefined {
    if (this.dependents.get(path)?.size || this.entries.has(path) || this.inProgress.has(path)) return undefined;
    const symbols = readFileSymbols(part, path);
    if (callsOwnFunctions(symbols.targets, part)) return undefined;
    return buildModel(part, config.helpers, this.contextOf(symbols.summary));
  }

  private modelWithSummary(path: string, text: string, sourceFile: ts.SourceFile, config: LockwiseConfig): { summary: FileSummary; model: LockModel; targets: readonly SummaryTarget[] };
  private modelWithSummary(path: string, text: string, sourceFile: ts.SourceFile, config: LockwiseConfig, summaryOnDemand: boolean): { summary?: FileSummary; model: LockModel; targets: readonly SummaryTarget[] };
  private modelWithSummary(path: string, text: string, sourceFile: ts.SourceFile, config: LockwiseConfig, summaryOnDemand = false): { summary?: FileSummary; model: LockModel; targets: readonly SummaryTarget[] } {
    this.inProgress.add(path);
    try {
      const symbols = readFileSymbols(sourceFile, path);
      const { targets } = symbols;
      let summary = symbols.summary;
      let context = this.contextOf(summary);
      let model = buildModel(sourceFile, config.helpers, context);
      if (summaryOnDemand && !this.dependents.get(path)?.size && !callsOwnFunctions(targets, sourceFile)) {
        // Any summary kept from before is of another text, and nothing depends on it.
        this.entries.delete(path);
        this.names.set(path, context.names);
        return { model, targets };
      }
      let next = summarizeFile(model, symbols);
      // Helpers that call helpers of the same file: model again with the file's own meanings.
      for (let round = 1; round < LOCAL_ROUNDS && calledLocally(next, sourceFile) && JSON.stringify(next) !== JSON.stringify(summary); round++) {
        summary = next;
        context = this.contextOf(summary);
        model = buildModel(sourceFile, config.helpers, context);
        next = summarizeFile(model, symbols);
      }
      this.store(path, text, next);
      this.names.set(path, context.names);
      return { summary: next, model, targets };
    } finally {
      this.inProgress.delete(path);
    }
  }

  /** Keeps a file's summary; when it changed, the files built on the old one are told to re-analyse. */
  private store(path: string, text: string, summary: FileSummary): void {
    const before = this.entries.get(path);
    this.entries.set(path, { text, summary });
    // A changed container binding re-analyses the files resolved through it, as a changed summary does.
    const rebound = this.implementers.update(path, summary, text);
    if (before && before.text !== text && (rebound || JSON.stringify(before.summary) !== JSON.stringify(summary))) {
      const affected = this.invalidateDependents(path);
      if (affected.size > 0) this.options.onMeaningChanged?.(path, affected);
    }
  }

  /** The helper names the file's calls were resolved against last time (lean parses must keep them). */
  namesOf(path: string): ReadonlySet<string> {
    return this.names.get(path) ?? new Set();
  }

  private contextOf(summary: FileSummary): ProjectContext {
    return {
      ...projectContext(summary, this.resolution),
      packages: this.packages.of(summary.path),
      importedClient: () => this.importedClient(summary),
      readBeside: (relative) => this.readBeside(summary.path, relative),
      moduleText: (specifier) => this.moduleText(summary.path, specifier),
    };
  }

  /** The text of the project module `specifier` names from `from`: a change of it re-analyses `from`. */
  private moduleText(from: string, specifier: string): string | undefined {
    const path = this.modules.resolve(specifier, from);
    const text = path ? this.options.host.readFile(path) : undefined;
    if (path && text !== undefined) this.dependOn(path, from);
    return text;
  }

  /** A file beside `from` (a Lua script it reads): a change of it re-analyses `from`. */
  private readBeside(from: string, relative: string): string | undefined {
    const path = join(dirname(from), relative);
    this.dependOn(path, from);
    return this.options.host.readFile(path);
  }

  /**
   * The Redis client the file's imports of project modules make: ioredis if any of them imports it,
   * node-redis if one calls its `createClient` (`export default createClient(...)` in `config/redis`).
   */
  private importedClient(summary: FileSummary): 'node-redis' | 'ioredis' | undefined {
    let found: 'node-redis' | undefined;
    for (const { from } of Object.values(summary.imports)) {
      const text = from.startsWith('.') || from.startsWith('/') ? this.moduleText(summary.path, from) : undefined;
      if (text === undefined) continue;
      if (IOREDIS_MODULE.test(text)) return 'ioredis';
      if (NODE_REDIS_MODULE.test(text) && CREATES_NODE_REDIS.test(text)) found = 'node-redis';
    }
    return found;
  }

  /**
   * Analyses one file of the project: its calls to project helpers (in it and in the files it
   * imports) take the helpers' meaning. With `summaryOnDemand` (a batch run, where most files are
   * imported by none), the file is summarised only if its model needs it or another file asks for
   * it later (summaryOf). Throws only where the parser cannot go on (see analyzeText).
   */
  analyze(path: string, text: string, options: { config?: LockwiseConfig; fixes?: boolean; only?: readonly string[]; summaryOnDemand?: boolean } = {}): AnalysisResult {
    const config = options.config ?? this.configFor(path);
    const rules = activeRules(config, options.only);
    try {
      return this.analyzeFile(path, text, config, rules, options.fixes, options.summaryOnDemand);
    } catch (err) {
      // TypeScript's parser recurses per nesting level; absurd nesting exhausts the stack.
      if (err instanceof RangeError) throw new Error(`cannot analyse ${path}: the code is nested too deeply (${err.message})`, { cause: err });
      throw err;
    }
  }

  private analyzeFile(path: string, text: string, config: LockwiseConfig, rules: ReturnType<typeof activeRules>, fixes?: boolean, summaryOnDemand?: boolean): AnalysisResult {
    const spare = this.takeSpare(path);
    // The model built when another file imported this one, if nothing changed since.
    const kept = spare && spare.text === text && this.entries.get(path)?.text === text && spare.helpers === JSON.stringify(config.helpers);
    const model = kept ? spare.model : this.build(path, text, config, summaryOnDemand).model;
    return { ...runRules(model, rules, config, fixes), parsed: true };
  }

  /** Forget a file (changed or deleted); returns every file whose meaning may have changed with it. */
  invalidate(path: string): Set<string> {
    this.entries.delete(path);
    return this.invalidateDependents(path);
  }

  /** Drops the summaries that were built on `path`'s (transitively); returns their files. */
  private invalidateDependents(path: string): Set<string> {
    const affected = new Set<string>();
    const visit = (p: string) => {
      for (const user of this.dependents.get(p) ?? []) {
        if (affected.has(user) || user === path) continue;
        affected.add(user);
        this.entries.delete(user);
        visit(user);
      }
    };
    visit(path);
    return affected;
  }

  /**
   * A file was created, deleted or renamed, or a tsconfig changed: specifiers may name other files
   * now. Every summary is built again when next asked for; returns the files that had resolved
   * into the project (their meanings may differ).
   */
  resetResolution(): Set<string> {
    const users = new Set([...this.dependents.values()].flatMap((s) => [...s]));
    this.modules.reset();
    this.implementers.reset();
    this.entries.clear();
    this.dependents.clear();
    return users;
  }

  private mayGiveLockMeaning(path: string, text: string): boolean {
    if (givesLockMeaningByText(text)) return true;
    if (!mayCallLockHelpers(text)) return false;
    // While its imports are looked at, a cycle back to this file finds nothing here.
    this.inProgress.add(path);
    try {
      return this.importsLockHelpers(path, text);
    } finally {
      this.inProgress.delete(path);
    }
  }

  /**
   * Does a file with no lock code of its own import a project module whose helpers do something to
   * locks? Reads only the imports its code uses (import-uses.ts, no parse) and, of the modules they
   * resolve to, the summaries of the names used.
   */
  importsLockHelpers(path: string, text: string): boolean {
    for (const use of usedImports(text)) {
      const target = this.modules.resolve(use.specifier, path);
      const summary = target ? this.summaryOf(target) : undefined;
      if (!summary) continue;
      // A command wrapper counts too: the caller has a lock word (mayCallLockHelpers), its key or function.
      // A namespace of a module whose one export is a default value is that value: its members are not exports.
      const names = use.namespace && onlyDefaultExport(summary) ? undefined : use.names;
      if (names ? names.some((name) => this.resolution.exportLeadsToLock(summary, name)) : this.resolution.exportedLockNames(summary).size > 0 || this.resolution.exportedLockNames(summary, true).size > 0) return true;
      // `import { JobService }`, an interface declaring acquireLock that a project class implements with lock work.
      if (names?.some((name) => this.resolution.isLockType(summary, name) && this.resolution.implementationOf(summary, name))) return true;
    }
    return this.typedByLockImplementation(path, text);
  }

  /** The words of the text of the module a specifier names; undefined when it re-exports with `export * from`. */
  private wordsOf(specifier: string, fromPath: string): ReadonlySet<string> | undefined {
    const path = this.modules.resolve(specifier, fromPath);
    const text = path ? this.options.host.readFile(path) : undefined;
    if (!path || text === undefined) return undefined;
    // A later change of the module can make it export the name: the barrel depends on it all the same.
    this.dependOn(path, fromPath);
    return STAR_REEXPORT.test(text) ? undefined : new Set(text.match(WORD));
  }

  /**
   * Does the file type a value by an imported lock-named interface or abstract class (`private locks:
   * ILockService`) that a project class implements with lock work? Dependency injection binds the class
   * elsewhere, so the file's imports alone never lead to it.
   */
  private typedByLockImplementation(path: string, text: string): boolean {
    // In a class named like a lock (`class LockService { constructor(private kv: KeyValueStore) }`) any type counts.
    const inLockClass = [...text.matchAll(CLASS_NAME)].some(([, name]) => LOCK_NAME.test(name));
    for (const [, name] of text.matchAll(LOCK_TYPE)) {
      const wanted = Implementers.wanted(name);
      if (!inLockClass && !wanted) continue;
      const imported = new RegExp(`\\bimport\\b[^;]*(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])[^;]*\\bfrom\\s*['"]([^'"]+)['"]`).exec(text);
      if (!imported) continue;
      // Any type only when the project declares it: ioredis' `Redis` has no implementation to look for.
      const anyType = inLockClass && !wanted && !!this.modules.resolve(imported[1], path);
      if ((wanted || anyType) && this.resolution.implementationOf(emptySummary(path), name, anyType)) return true;
    }
    return false;
  }

  /** Has this file been summarised (its meaning may matter to others)? */
  has(path: string): boolean {
    return this.entries.has(path);
  }

}

function onlyDefaultExport(summary: FileSummary): boolean {
  const names = Object.keys(summary.exports);
  return names.length === 1 && names[0] === 'default';
}

/** The names of the file's own functions, methods and object members that have a lock meaning. */
function localLockNames(summary: FileSummary): Set<string> {
  const names = new Set<string>();
  for (const [name, fn] of Object.entries(summary.functions)) if (hasLockMeaning(fn)) names.add(name);
  for (const cls of Object.values(summary.classes)) for (const [name, fn] of Object.entries(cls.methods)) if (hasLockMeaning(fn)) names.add(name);
  for (const members of Object.values(summary.objects)) for (const [name, fn] of Object.entries(members)) if (hasLockMeaning(fn)) names.add(name);
  return names;
}

/**
 * Is one of these names of the file's own functions used anywhere but where it is defined? The
 * definition is one identifier of that name; a call (or a reference handing it on) is another. The
 * file index answers per name: a regular expression per name over the text cost as much as the model.
 */
function namedAgain(names: Iterable<string>, sourceFile: ts.SourceFile): boolean {
  for (const name of names) if (identifiersOfFile(sourceFile, name).length > 1) return true;
  return false;
}

/** Does the file name one of its own functions, methods or members anywhere but where it is defined? */
function callsOwnFunctions(targets: readonly SummaryTarget[], sourceFile: ts.SourceFile): boolean {
  return namedAgain(targets.map((t) => t.name), sourceFile);
}

/** Does the file call one of its own functions that has a lock meaning? */
function calledLocally(summary: FileSummary, sourceFile: ts.SourceFile): boolean {
  return namedAgain(localLockNames(summary), sourceFile);
}
