// Which configuration applies to a folder during `lockwise check`: the nearest config of that folder
// (a monorepo may hold several), or the one file given with `--config`, with `--rule` overrides on top.
import type { Ignore } from 'ignore';
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError, loadConfig, parseConfig, type LoadedConfig, type LockwiseConfig } from '../../rules/config';
import { compileIgnores } from '../../rules/ignore-globs';
import type { SeveritySetting } from '../../rules/types';

export interface ConfigScope {
  /** The config with the command line's `--rule` overrides applied. */
  config: LockwiseConfig;
  /** The config's folder: its `ignore` globs are relative to it. */
  base: string;
  /** The config's `ignore` globs, compiled once; undefined when it has none (most configs), so nothing is matched. */
  ignores?: Ignore;
}

export class ConfigResolver {
  private readonly byFile = new Map<string, ConfigScope>();
  /** What loadConfig found for each folder it passed. */
  private readonly byDir = new Map<string, LoadedConfig>();
  private readonly fixed?: ConfigScope;

  constructor(
    private readonly knownRules: readonly string[],
    private readonly overrides: Record<string, SeveritySetting>,
    configFile?: string,
  ) {
    if (configFile) {
      const file = resolve(configFile);
      this.fixed = this.scope(readExplicitConfig(file, knownRules), dirname(file), file);
    }
  }

  /** The scope for files in `dir`. Throws ConfigError when the config that applies is broken. */
  forDir(dir: string): ConfigScope {
    if (this.fixed) return this.fixed;
    const loaded = loadConfig(dir, this.knownRules, this.byDir);
    const key = loaded.file ?? '';
    let scope = this.byFile.get(key);
    if (!scope) {
      scope = this.scope(loaded.config, loaded.file ? dirname(loaded.file) : dir, loaded.file ?? dir);
      this.byFile.set(key, scope);
    }
    return scope;
  }

  private scope(config: LockwiseConfig, base: string, file: string): ConfigScope {
    return {
      config: { ...config, rules: { ...config.rules, ...this.overrides } },
      base,
      ignores: config.ignore.length > 0 ? compileIgnores(config.ignore, file) : undefined,
    };
  }
}

/** `--config FILE`: a lockwise.config.json-style file, or a package.json read through its "lockwise" key. */
function readExplicitConfig(file: string, knownRules: readonly string[]): LockwiseConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, `not valid JSON (${(err as Error).message})`);
  }
  if (basename(file) !== 'package.json') return parseConfig(raw, file, knownRules);
  if (typeof raw !== 'object' || raw === null || !('lockwise' in raw)) {
    throw new ConfigError(file, 'has no "lockwise" key');
  }
  return parseConfig(raw.lockwise, `${file} ("lockwise" key)`, knownRules);
}
