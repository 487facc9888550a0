// Project configuration: `lockwise.config.json`, or a "lockwise" key in package.json.
// A broken config is an error naming the file and the problem, never a silent default.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SeveritySetting } from './types';

export interface HelperNames {
  /** Project functions that acquire a lock (treated like an acquire with a TTL). */
  acquire: string[];
  /** Project functions that release a lock with an owner check. */
  release: string[];
  /** Project functions that extend a lock with an owner check. */
  extend: string[];
}

/** The server the code runs against: fixes use its native owner-checked commands where it has them. */
export type ServerKind = 'redis' | 'redis-8.4' | 'valkey-9';
export const SERVER_KINDS: readonly ServerKind[] = ['redis', 'redis-8.4', 'valkey-9'];

export interface LockwiseConfig {
  /** Per-rule severity overrides; rules not named keep their default. */
  rules: Record<string, SeveritySetting>;
  /** Globs (gitignore syntax) of files not to analyse, relative to the config file's folder. */
  ignore: string[];
  helpers: HelperNames;
  /** Default "redis": Lua scripts, which every Redis and Valkey runs. */
  server?: ServerKind;
  /** Test files (rules/test-files.ts) are left out unless "check"; default "skip". */
  tests?: 'skip' | 'check';
}

export interface LoadedConfig {
  config: LockwiseConfig;
  /** The file the config came from; undefined when none was found. */
  file?: string;
}

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export const CONFIG_FILE = 'lockwise.config.json';
const SEVERITIES: readonly string[] = ['off', 'info', 'warning', 'error'];

export function emptyConfig(): LockwiseConfig {
  return { rules: {}, ignore: [], helpers: { acquire: [], release: [], extend: [] } };
}

function stringArray(value: unknown, where: string, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new ConfigError(file, `"${where}" must be an array of non-empty strings`);
  }
  return value as string[];
}

/** Validates a parsed config object; `knownRules` are the ids a severity may be set for. */
export function parseConfig(raw: unknown, file: string, knownRules: readonly string[]): LockwiseConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(file, 'the configuration must be a JSON object');
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!['$schema', 'rules', 'ignore', 'helpers', 'server', 'tests'].includes(key)) {
      throw new ConfigError(file, `unknown key "${key}" (expected "rules", "ignore", "helpers", "server" or "tests")`);
    }
  }
  const config = emptyConfig();

  if (obj.rules !== undefined) {
    if (typeof obj.rules !== 'object' || obj.rules === null || Array.isArray(obj.rules)) {
      throw new ConfigError(file, '"rules" must be an object mapping rule ids to severities');
    }
    for (const [id, severity] of Object.entries(obj.rules)) {
      if (!knownRules.includes(id)) {
        throw new ConfigError(file, `unknown rule "${id}" in "rules" (known: ${knownRules.join(', ')})`);
      }
      if (typeof severity !== 'string' || !SEVERITIES.includes(severity)) {
        throw new ConfigError(file, `rule "${id}" has severity ${JSON.stringify(severity)}; use one of ${SEVERITIES.join(', ')}`);
      }
      config.rules[id] = severity as SeveritySetting;
    }
  }

  config.ignore = stringArray(obj.ignore, 'ignore', file);
  if (obj.server !== undefined) {
    if (!(SERVER_KINDS as readonly unknown[]).includes(obj.server)) {
      throw new ConfigError(file, `"server" is ${JSON.stringify(obj.server)}; use one of ${SERVER_KINDS.join(', ')}`);
    }
    config.server = obj.server as ServerKind;
  }

  if (obj.tests !== undefined) {
    if (obj.tests !== 'skip' && obj.tests !== 'check') {
      throw new ConfigError(file, `"tests" is ${JSON.stringify(obj.tests)}; use "skip" (the default: test files are not checked) or "check"`);
    }
    config.tests = obj.tests;
  }

  if (obj.helpers !== undefined) {
    if (typeof obj.helpers !== 'object' || obj.helpers === null || Array.isArray(obj.helpers)) {
      throw new ConfigError(file, '"helpers" must be an object with "acquire", "release" and "extend" arrays');
    }
    const helpers = obj.helpers as Record<string, unknown>;
    for (const key of Object.keys(helpers)) {
      if (!['acquire', 'release', 'extend'].includes(key)) {
        throw new ConfigError(file, `unknown key "helpers.${key}" (expected "acquire", "release" or "extend")`);
      }
    }
    config.helpers = {
      acquire: stringArray(helpers.acquire, 'helpers.acquire', file),
      release: stringArray(helpers.release, 'helpers.release', file),
      extend: stringArray(helpers.extend, 'helpers.extend', file),
    };
  }
  return config;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    // A folder of that name, no permission...: a config that cannot be read is still a config error.
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(file, `cannot read the file (${code === 'EISDIR' ? 'EISDIR: it is a folder' : (code ?? (err as Error).message)})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, `not valid JSON (${(err as Error).message})`);
  }
}

/**
 * Whether loadConfig stops at `dir`: a lockwise.config.json, or a package.json with a "lockwise" key
 * (or one that cannot be read, which loadConfig reports).
 */
export function hasOwnConfig(dir: string): boolean {
  if (existsSync(join(dir, CONFIG_FILE))) return true;
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) return false;
  try {
    const pkg: unknown = JSON.parse(readFileSync(pkgFile, 'utf8'));
    return typeof pkg === 'object' && pkg !== null && 'lockwise' in pkg;
  } catch {
    return true;
  }
}

/**
 * Finds the config that applies to files in `dir`: the nearest `lockwise.config.json`, or the nearest
 * package.json with a "lockwise" key, walking up to the filesystem root. Throws ConfigError. With
 * `found`, each folder's answer is kept there, so that a walk over many package folders (a monorepo, a
 * vendored tree) reads and parses each ancestor's package.json once, not once per folder below it.
 */
export function loadConfig(dir: string, knownRules: readonly string[], found?: Map<string, LoadedConfig>): LoadedConfig {
  const passed: string[] = [];
  const answer = (loaded: LoadedConfig): LoadedConfig => {
    for (const d of passed) found?.set(d, loaded);
    return loaded;
  };
  for (let current = dir; ; current = dirname(current)) {
    const known = found?.get(current);
    if (known) return answer(known);
    passed.push(current);
    const configFile = join(current, CONFIG_FILE);
    if (existsSync(configFile)) {
      return answer({ config: parseConfig(readJson(configFile), configFile, knownRules), file: configFile });
    }
    const pkgFile = join(current, 'package.json');
    if (existsSync(pkgFile)) {
      const pkg = readJson(pkgFile);
      if (typeof pkg === 'object' && pkg !== null && 'lockwise' in pkg) {
        const section = (pkg as Record<string, unknown>).lockwise;
        return answer({ config: parseConfig(section, `${pkgFile} ("lockwise" key)`, knownRules), file: pkgFile });
      }
    }
    if (dirname(current) === current) return answer({ config: emptyConfig() });
  }
}
