// Where "Convert to withLock" gets `withLock` from: the file already has it, or the project has the
// helper at the configured path (lockwise.withLock.helperPath), or the helper is created there from
// the template in the same edit. Also how to import it so that the result type-checks and runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ServerKind } from '../../../rules/config';
import { pathToUri } from '../uris';
import type { Folder } from '../workspace-folders';
import { forServer } from './with-lock-server';
import { commonJsTemplate, WITH_LOCK_JS, WITH_LOCK_TS } from './with-lock-template';

export interface HelperPlan {
  /** What to write in the import; undefined when the file already has withLock in scope. */
  specifier?: string;
  /** The helper to create first, when the project has none. */
  create?: { uri: string; text: string };
  /** The file is CommonJS: `const { withLock } = require(...)`, and a CommonJS helper. */
  commonJs?: boolean;
}

const JS_FILE = /\.[cm]?jsx?$/i;
const HAS_WITH_LOCK = /\bimport\s*(?:type\s+)?\{[^}]*\bwithLock\b[^}]*\}\s*from\b|\bfunction\s+withLock\b|\b(?:const|let|var)\s+(?:withLock\b|\{[^}]*\bwithLock\b[^}]*\}\s*=\s*require\()/;
const ES_MODULE_SYNTAX = /^\s*(?:import|export)\b/m;

/** TypeScript projects with node16/nodenext resolution need the `.js` extension on relative imports. */
function needsJsExtension(folder: Folder): boolean {
  try {
    return /"(?:module|moduleResolution)"\s*:\s*"node(?:16|18|next)"/i.test(readFileSync(join(folder.path, 'tsconfig.json'), 'utf8'));
  } catch {
    return false;
  }
}

function specifierFrom(fromFile: string, helper: string, keepExtension: boolean): string {
  let rel = relative(dirname(fromFile), helper).split(sep).join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  // An import of a TypeScript file names it by its output (.js), or by no extension at all.
  if (!keepExtension) return rel.replace(/\.[cm]?[jt]sx?$/, '');
  return rel.replace(/\.ts$/, '.js');
}

/**
 * How the document at `path` gets withLock; undefined when it cannot (no workspace folder to put the
 * helper in). A CommonJS file requires a CommonJS helper (.js, or .cjs in an ES module package). A
 * created helper renews and releases the way the config's `server` says (Lua, or native commands).
 */
export function planHelper(
  path: string | undefined,
  text: string,
  folder: Folder | undefined,
  helperPath: string,
  server: ServerKind,
): HelperPlan | undefined {
  if (HAS_WITH_LOCK.test(text)) return {};
  if (!path || !folder) return undefined;
  const isJs = JS_FILE.test(path);
  const typescriptProject = existsSync(join(folder.path, 'tsconfig.json'));
  if (isJs && (/\.cjs$/i.test(path) || (!ES_MODULE_SYNTAX.test(text) && !/\.mjs$/i.test(path)))) {
    return commonJsPlan(path, folder, helperPath, server);
  }

  const configured = resolve(folder.path, helperPath);
  const twin = configured.replace(/\.ts$/, '.js');
  const existing = [configured, twin].find((p) => existsSync(p));
  // A JavaScript project gets the JavaScript helper next to where the TypeScript one would go.
  const helper = existing ?? (isJs && !typescriptProject ? twin : configured);
  const keepExtension = isJs || (typescriptProject && needsJsExtension(folder));
  const specifier = specifierFrom(path, helper, keepExtension);
  if (existing) return { specifier };
  return { specifier, create: { uri: pathToUri(helper), text: forServer(helper.endsWith('.ts') ? WITH_LOCK_TS : WITH_LOCK_JS, server) } };
}

/** A package with "type": "module" reads .js as ES modules: its CommonJS helper is a .cjs file. */
function esmPackage(folder: Folder): boolean {
  try {
    return (JSON.parse(readFileSync(join(folder.path, 'package.json'), 'utf8')) as { type?: unknown }).type === 'module';
  } catch {
    return false;
  }
}

function commonJsPlan(path: string, folder: Folder, helperPath: string, server: ServerKind): HelperPlan {
  const helper = resolve(folder.path, helperPath).replace(/\.[cm]?[jt]s$/, esmPackage(folder) ? '.cjs' : '.js');
  const specifier = specifierFrom(path, helper, true);
  // An existing helper at that path is used as it is; the project made it.
  if (existsSync(helper)) return { specifier, commonJs: true };
  return { specifier, commonJs: true, create: { uri: pathToUri(helper), text: forServer(commonJsTemplate(), server) } };
}
