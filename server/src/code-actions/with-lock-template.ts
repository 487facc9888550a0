// The withLock helper's source, bundled into the server as text (esbuild's `type: 'text'` import
// attribute), so "Convert to withLock" can create it in a project without reading the extension's files.
// TypeScript resolves these imports as modules, not text, hence the expected errors.
// @ts-expect-error a .ts path is imported as text
import tsSource from '../../../rules/templates/with-lock.ts' with { type: 'text' };
// @ts-expect-error a .js file is imported as text
import jsSource from '../../../rules/templates/with-lock.js' with { type: 'text' };

export const WITH_LOCK_TS: string = tsSource;
export const WITH_LOCK_JS: string = jsSource;

/**
 * The JavaScript helper as a CommonJS module, for projects whose files `require`: the same code, its
 * imports as require calls, its exports gathered in module.exports.
 */
export function commonJsTemplate(esm: string = WITH_LOCK_JS): string {
  const names: string[] = [];
  const body = esm
    .replace(/^import \{ ([^}]+) \} from '([^']+)';$/gm, "const { $1 } = require('$2');")
    .replace(/^export ((?:async )?(?:function|class) )([\w$]+)/gm, (_, kind: string, name: string) => {
      names.push(name);
      return `${kind}${name}`;
    });
  return `'use strict';\n${body.trimEnd()}\n\nmodule.exports = { ${names.join(', ')} };\n`;
}
