// The one typed reader of `lockwise.redis.*`. vscode-free: it reads through `inspect()` so that, in an
// untrusted workspace, values coming from the workspace are ignored and only the user's own (global)
// values count. The VS Code adapter passes `workspace.getConfiguration('lockwise.redis')`.
import { DEFAULT_COUNT, DEFAULT_PATTERNS, DEFAULT_ROW_CAP } from '../locks';
import type { ConnectionOptions, ListOptions } from '../locks/types';
import { connectionTargets, type ConnectionTarget } from './connection-targets';

export const SETTINGS_SECTION = 'lockwise.redis';

/** What `WorkspaceConfiguration.inspect()` returns (the fields this module uses). */
export interface SettingInspection<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface ConfigurationSource {
  inspect<T>(key: string): SettingInspection<T> | undefined;
}

interface Spec<T> {
  default: T;
  check(value: unknown): value is T;
  expected: string;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const intAtLeast = (min: number) => (v: unknown): v is number => Number.isInteger(v) && (v as number) >= min;
const numberAtLeast = (min: number) => (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min;

function spec<T>(def: T, check: (v: unknown) => v is T, expected: string): Spec<T> {
  return { default: def, check, expected };
}

/** Every `lockwise.redis.*` key with its default; package.json must contribute exactly these. */
export const REDIS_SETTINGS = {
  urls: spec(['redis://127.0.0.1:6379'], isStringArray, 'an array of redis:// or rediss:// URLs'),
  cluster: spec<string[]>([], isStringArray, 'an array of "host:port" seed nodes'),
  sentinels: spec<string[]>([], isStringArray, 'an array of "host:port" sentinels'),
  sentinelMasterName: spec('', isString, 'a string'),
  username: spec('', isString, 'a string'),
  db: spec(0, intAtLeast(0), 'an integer >= 0'),
  connectTimeoutMs: spec(5000, intAtLeast(100), 'an integer >= 100'),
  patterns: spec(DEFAULT_PATTERNS, isStringArray, 'an array of SCAN MATCH globs'),
  useLockSiteGlobs: spec(true, isBoolean, 'true or false'),
  refreshSeconds: spec(5, numberAtLeast(1), 'a number >= 1'),
  heldLongMinutes: spec(10, numberAtLeast(1), 'a number >= 1'),
  scanCount: spec(DEFAULT_COUNT, intAtLeast(1), 'an integer >= 1'),
  rowCap: spec(DEFAULT_ROW_CAP, intAtLeast(1), 'an integer >= 1'),
  'tls.enabled': spec(false, isBoolean, 'true or false'),
  'tls.caFile': spec('', isString, 'a file path'),
  'tls.certFile': spec('', isString, 'a file path'),
  'tls.keyFile': spec('', isString, 'a file path'),
  'tls.servername': spec('', isString, 'a host name'),
  'tls.rejectUnauthorized': spec(true, isBoolean, 'true or false'),
  readOnly: spec(false, isBoolean, 'true or false'),
  production: spec(false, isBoolean, 'true or false'),
} as const;

export type RedisSettingKey = keyof typeof REDIS_SETTINGS;
type ValueOf<K extends RedisSettingKey> = (typeof REDIS_SETTINGS)[K]['default'];

export interface PanelSettings {
  /** One tree connection node per target. Passwords are never part of settings. */
  targets: ConnectionTarget[];
  list: Required<Pick<ListOptions, 'patterns' | 'count' | 'rowCap'>>;
  /** Add the key globs the language server found in the workspace to the SCAN patterns (never when untrusted). */
  useLockSiteGlobs: boolean;
  refreshMs: number;
  /** A holder seen on a key for this long is flagged "held long". */
  heldLongMs: number;
  /** Whether release/extend may run at all, and if not, why (shown to the user). */
  writes: { allowed: true } | { allowed: false; reason: string };
  /** Invalid values (replaced by defaults) and refused values (a password in a URL). */
  problems: string[];
  /** Keys whose workspace values were ignored because the workspace is not trusted. */
  ignoredWorkspaceKeys: RedisSettingKey[];
}

export function readPanelSettings(source: ConfigurationSource, trusted: boolean): PanelSettings {
  const problems: string[] = [];
  const ignoredWorkspaceKeys: RedisSettingKey[] = [];
  const explicit = new Set<RedisSettingKey>();

  const read = <K extends RedisSettingKey>(key: K): ValueOf<K> => {
    const s = REDIS_SETTINGS[key] as Spec<ValueOf<K>>;
    // Copy array defaults so no caller can change the table.
    const fallback = () => (Array.isArray(s.default) ? [...s.default] : s.default) as ValueOf<K>;
    const inspected = source.inspect<unknown>(key) ?? {};
    const fromWorkspace = inspected.workspaceFolderValue ?? inspected.workspaceValue;
    if (!trusted && fromWorkspace !== undefined) ignoredWorkspaceKeys.push(key);
    const chosen = trusted ? (fromWorkspace ?? inspected.globalValue) : inspected.globalValue;
    if (chosen === undefined) return fallback();
    if (!s.check(chosen)) {
      problems.push(`${SETTINGS_SECTION}.${key} must be ${s.expected}; using the default.`);
      return fallback();
    }
    explicit.add(key);
    return chosen;
  };

  const readOnlySetting = read('readOnly');
  const production = read('production');
  // Production connections are read-only unless the user explicitly turned read-only off.
  const readOnly = explicit.has('readOnly') ? readOnlySetting : production;
  const writes: PanelSettings['writes'] = !trusted
    ? { allowed: false, reason: 'the workspace is not trusted' }
    : readOnly
      ? {
          allowed: false,
          reason: explicit.has('readOnly')
            ? `${SETTINGS_SECTION}.readOnly is on`
            : `${SETTINGS_SECTION}.production is on (read-only unless ${SETTINGS_SECTION}.readOnly is set to false)`,
        }
      : { allowed: true };

  const tlsEnabled = read('tls.enabled');
  const tls: NonNullable<ConnectionOptions['tls']> = {
    enabled: tlsEnabled,
    caFile: read('tls.caFile') || undefined,
    certFile: read('tls.certFile') || undefined,
    keyFile: read('tls.keyFile') || undefined,
    servername: read('tls.servername') || undefined,
    rejectUnauthorized: read('tls.rejectUnauthorized'),
  };

  const urls = read('urls');
  const cluster = read('cluster');
  const sentinels = read('sentinels');
  // The default local URL only applies when no other topology is configured.
  const useUrls = explicit.has('urls') || (cluster.length === 0 && sentinels.length === 0);
  const targets = connectionTargets(
    { urls: useUrls ? urls : [], cluster, sentinels, sentinelMasterName: read('sentinelMasterName') },
    {
      username: read('username') || undefined,
      db: read('db'),
      connectTimeoutMs: read('connectTimeoutMs'),
      tls,
      readOnly: !writes.allowed,
    },
    problems,
  );

  return {
    targets,
    list: { patterns: read('patterns'), count: read('scanCount'), rowCap: read('rowCap') },
    // The code of an untrusted workspace must not decide what is scanned on a Redis.
    useLockSiteGlobs: trusted && read('useLockSiteGlobs'),
    refreshMs: read('refreshSeconds') * 1000,
    heldLongMs: read('heldLongMinutes') * 60_000,
    writes,
    problems,
    ignoredWorkspaceKeys: ignoredWorkspaceKeys.sort(),
  };
}

/** The lines shown above the connections: invalid settings and what an untrusted workspace changes. */
export function settingsNotices(settings: PanelSettings): string[] {
  const notices = [...settings.problems];
  if (settings.ignoredWorkspaceKeys.length > 0) {
    const keys = settings.ignoredWorkspaceKeys.map((k) => `${SETTINGS_SECTION}.${k}`).join(', ');
    notices.push(`This workspace is not trusted: its values for ${keys} are ignored.`);
  }
  return notices;
}
