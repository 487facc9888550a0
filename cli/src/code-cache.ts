// V8 compiles dist/cli-analyzer.js (10 MB: TypeScript and the rules) on every load, a quarter of a
// second here. The analysis worker loads it with a V8 code cache kept next to it instead
// (dist/cli-analyzer.cache), which the first run that finds none, or one V8 rejects (another Node
// version), writes after its analysis, so that the cache also holds the functions the analysis compiled.
// esbuild.mjs deletes the cache whenever it rebuilds the bundle: V8 checks a cache against the source's
// length only, not its content.
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

export interface CachedModule<T> {
  exports: T;
  /** Writes the cache, when this load had none it could use. Best effort: a read-only install keeps none. */
  saveCache(): void;
}

/** Loads a CommonJS file as `require` would, compiled with its code cache when V8 accepts it. */
export function requireWithCodeCache<T>(file: string): CachedModule<T> {
  const cacheFile = file.replace(/\.js$/, '.cache');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet.
  }
  // esbuild writes ASCII, which decodes as Latin-1 by a plain copy, ten times faster than as UTF-8.
  const bytes = readFileSync(file);
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const script = new Script(wrap(source), { filename: file, cachedData });
  const module = { exports: {} as T };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const cacheUsed = cachedData !== undefined && script.cachedDataRejected === false;
  return {
    exports: module.exports,
    saveCache() {
      if (cacheUsed) return;
      // Written aside and renamed, so that a concurrent run (or worker) reads either no cache or a whole one.
      // A random suffix, not the thread id: node:worker_threads alone costs a tenth of a check's start.
      const temp = `${cacheFile}.${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        writeFileSync(temp, script.createCachedData());
        renameSync(temp, cacheFile);
      } catch {
        rmSync(temp, { force: true });
      }
    },
  };
}
