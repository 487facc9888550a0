// What applies to one file: the editor settings give the defaults, the nearest `lockwise.config.json`
// (or package.json "lockwise" key) overrides them for its folder. Loaded configs are cached per
// directory until a config file changes; a broken config is reported on that file and the settings
// alone apply meanwhile. A directory without a config of its own shares its parent's entry, so a
// workspace scan looks at each directory's files once instead of walking up to the root per folder,
// and the files of one scope share one merged config.
import { dirname, relative, sep } from 'node:path';
import type { Ignore } from 'ignore';
import { ConfigError, emptyConfig, hasOwnConfig, loadConfig, type LockwiseConfig } from '../../rules/config';
import { compileIgnores } from '../../rules/ignore-globs';
import { ruleIds } from '../../rules/index';
import type { ServerSettings } from './settings';

interface FolderConfig {
  config: LockwiseConfig;
  /** Folder the config's ignore globs are relative to. */
  base?: string;
  ignores?: Ignore;
  /** The config merged with the settings it was last asked for with (settings objects are replaced, never changed). */
  merged?: { settings: ServerSettings; config: LockwiseConfig };
}

export interface ConfigProblem {
  /** The file to report on (package.json when the "lockwise" key is broken). */
  file: string;
  message: string;
}

// ConfigError.file names a package.json section as `<path> ("lockwise" key)`: the problem belongs on the file.
const PACKAGE_SECTION_SUFFIX = ' ("lockwise" key)';

export class ProjectConfigs {
  private readonly byDir = new Map<string, FolderConfig>();
  private readonly problems = new Map<string, ConfigProblem>();

  constructor(private readonly onProblemsChanged: (problems: ConfigProblem[]) => void) {}

  private folderConfig(dir: string): FolderConfig {
    const cached = this.byDir.get(dir);
    if (cached) return cached;
    const parent = dirname(dir);
    const entry = parent === dir || hasOwnConfig(dir) ? this.load(dir) : this.folderConfig(parent);
    this.byDir.set(dir, entry);
    return entry;
  }

  /** The config loadConfig finds from `dir` (its own when hasOwnConfig), or the problem it raised. */
  private load(dir: string): FolderConfig {
    let entry: FolderConfig;
    try {
      const loaded = loadConfig(dir, ruleIds);
      const base = loaded.file ? dirname(loaded.file) : undefined;
      const ignores = loaded.config.ignore.length > 0 ? compileIgnores(loaded.config.ignore, loaded.file ?? dir) : undefined;
      entry = { config: loaded.config, base, ignores };
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const file = err.file.endsWith(PACKAGE_SECTION_SUFFIX) ? err.file.slice(0, -PACKAGE_SECTION_SUFFIX.length) : err.file;
      if (!this.problems.has(file)) {
        this.problems.set(file, { file, message: err.message.slice(err.file.length + 2) });
        this.onProblemsChanged([...this.problems.values()]);
      }
      entry = { config: emptyConfig() };
    }
    return entry;
  }

  /** The merged config for a file (undefined path: an untitled buffer, settings only). */
  configFor(settings: ServerSettings, path: string | undefined): LockwiseConfig {
    if (!path) return mergeConfig(settings, emptyConfig());
    const entry = this.folderConfig(dirname(path));
    if (entry.merged?.settings !== settings) entry.merged = { settings, config: mergeConfig(settings, entry.config) };
    return entry.merged.config;
  }

  /** True when the file's config lists it under "ignore". */
  isIgnored(path: string): boolean {
    const { base, ignores } = this.folderConfig(dirname(path));
    if (!base || !ignores) return false;
    const rel = relative(base, path).split(sep).join('/');
    return rel !== '' && !rel.startsWith('../') && ignores.ignores(rel);
  }

  /** A config file changed somewhere: reload lazily, and re-report problems as they are found again. */
  clear(): void {
    this.byDir.clear();
    if (this.problems.size > 0) {
      this.problems.clear();
      this.onProblemsChanged([]);
    }
  }
}

/** Settings first, then the project's file: its severities win, helper names add up. */
export function mergeConfig(settings: ServerSettings, file: LockwiseConfig): LockwiseConfig {
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    rules: { ...settings.rules, ...file.rules },
    ignore: file.ignore,
    helpers: {
      acquire: union(settings.acquireHelpers, file.helpers.acquire),
      release: union(settings.releaseHelpers, file.helpers.release),
      extend: union(settings.extendHelpers, file.helpers.extend),
    },
    ...(file.server ? { server: file.server } : {}),
    ...(file.tests ? { tests: file.tests } : {}),
  };
}
