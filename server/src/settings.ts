// The server's `lockwise.*` settings: one table says which keys exist, their defaults and how a raw
// value is validated. package.json contributes exactly these keys (checked by a test), so the table
// is the single place to add a setting.
import type { SeveritySetting } from '../../rules/types';

interface SettingSpec<T> {
  /** Key below the `lockwise` section, dotted. */
  key: string;
  default: T;
  /** The value when valid, undefined otherwise (then the default applies). */
  parse(raw: unknown): T | undefined;
}

const SEVERITIES: readonly string[] = ['off', 'info', 'warning', 'error'];

const asBoolean = (raw: unknown) => (typeof raw === 'boolean' ? raw : undefined);
const asNames = (raw: unknown) =>
  Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : undefined;
const asPositiveNumber = (raw: unknown) => (typeof raw === 'number' && raw > 0 ? raw : undefined);
const asPath = (raw: unknown) => (typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined);
function asSeverities(raw: unknown): Record<string, SeveritySetting> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Record<string, SeveritySetting> = {};
  for (const [id, value] of Object.entries(raw)) {
    if (typeof value === 'string' && SEVERITIES.includes(value)) out[id] = value as SeveritySetting;
  }
  return out;
}

function spec<T>(key: string, defaultValue: T, parse: (raw: unknown) => T | undefined): SettingSpec<T> {
  return { key, default: defaultValue, parse };
}

export const SETTING_SPECS = {
  enable: spec('enable', true, asBoolean),
  rules: spec<Record<string, SeveritySetting>>('rules', {}, asSeverities),
  acquireHelpers: spec<string[]>('helpers.acquire', [], asNames),
  releaseHelpers: spec<string[]>('helpers.release', [], asNames),
  extendHelpers: spec<string[]>('helpers.extend', [], asNames),
  maxFileSizeKb: spec('maxFileSizeKb', 1024, asPositiveNumber),
  withLockHelperPath: spec('withLock.helperPath', 'src/lib/with-lock.ts', asPath),
  baselineFile: spec('baseline.file', 'lockwise-baseline.json', asPath),
  baselineFindings: spec<'hint' | 'hidden'>('baseline.findings', 'hint', (raw) => (raw === 'hint' || raw === 'hidden' ? raw : undefined)),
};

type Specs = typeof SETTING_SPECS;
export type ServerSettings = { [K in keyof Specs]: Specs[K] extends SettingSpec<infer T> ? T : never };

/** The configuration section the server asks the client for. */
export const SECTION = 'lockwise';

function lookup(section: unknown, dotted: string): unknown {
  let value = section;
  for (const part of dotted.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Settings from the `lockwise` section as the client sent it; anything missing or invalid takes its default. */
export function parseSettings(section: unknown): ServerSettings {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTING_SPECS) as [string, SettingSpec<unknown>][]) {
    const parsed = s.parse(lookup(section, s.key));
    out[name] = parsed === undefined ? structuredClone(s.default) : parsed;
  }
  return out as ServerSettings;
}

export function defaultSettings(): ServerSettings {
  return parseSettings(undefined);
}

/**
 * Settings per scope (a workspace folder URI, or '' for files outside every folder), pulled with
 * `workspace/configuration` and cached until the client says they changed. Clients that cannot be
 * asked push the whole section with `didChangeConfiguration` instead.
 */
export class SettingsStore {
  private readonly cache = new Map<string, Promise<ServerSettings>>();
  private pushed: ServerSettings = defaultSettings();
  private pull: ((scopeUri: string | undefined) => Promise<unknown>) | undefined;

  /** Called once the client said (in initialize) that it answers `workspace/configuration`. */
  pullFrom(pull: (scopeUri: string | undefined) => Promise<unknown>): void {
    this.pull = pull;
    this.cache.clear();
  }

  /**
   * initializationOptions, for editors that configure a server that way: the `lockwise` section, either
   * as `{ "lockwise": {...} }` or as the section itself. They apply until a push replaces them, and
   * wherever `workspace/configuration` answers null (an editor with no `lockwise` settings).
   */
  initialize(options: unknown): void {
    if (typeof options !== 'object' || options === null) return;
    const section = (options as Record<string, unknown>)[SECTION] ?? options;
    this.pushed = parseSettings(section);
  }

  get(scopeUri: string | undefined): Promise<ServerSettings> {
    if (!this.pull) return Promise.resolve(this.pushed);
    const key = scopeUri ?? '';
    let entry = this.cache.get(key);
    if (!entry) {
      entry = this.pull(scopeUri).then((raw) => (raw === null || raw === undefined ? this.pushed : parseSettings(raw)), () => defaultSettings());
      this.cache.set(key, entry);
    }
    return entry;
  }

  /** After `didChangeConfiguration`: forget everything; `section` is what push-style clients sent. */
  changed(section: unknown): void {
    this.cache.clear();
    if (section !== undefined && section !== null) this.pushed = parseSettings(section);
  }
}
