// The withLock helper's source, bundled into the server as text (esbuild's `type: 'text'` import
// attribute), so "Convert to withLock" can create it in a project without reading the extension's files.
// TypeScript resolves these imports as modules, not text, hence the expected errors.
// @ts-expect-error a .ts path is imported as text
import tsSource from '../../../rules/templates/with-lock.ts' with { type: 'text' };
// @ts-expect-error a .js file is imported as text
import jsSource from '../../../rules/templates/with-lock.js' with { type: 'text' };

export const WITH_LOCK_TS: string = tsSource;
export const WITH_LOCK_JS: string = jsSource;
