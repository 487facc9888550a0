// Type-checks edited files in memory with the installed TypeScript compiler. Files given here shadow
// the disk; everything else (ioredis, redis, @types/node under the repository's node_modules) is
// read from disk, so the check sees the real client library types.
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowJs: true,
  checkJs: false,
  esModuleInterop: true,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
};

// Library declarations parsed once per test process: parsing them is most of the cost of a check.
const diskFiles = new Map<string, ts.SourceFile | undefined>();

/** Errors in `files` (absolute path -> text), formatted one per line; empty when it type-checks. */
export function typeErrors(files: Record<string, string>): string[] {
  const host = ts.createCompilerHost(OPTIONS);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => files[name] ?? readFile(name);
  host.fileExists = (name) => name in files || fileExists(name);
  // Module resolution skips folders that do not exist: a created helper's folder may be virtual too.
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) =>
    Object.keys(files).some((f) => f.startsWith(`${dir}/`)) || (directoryExists ? directoryExists(dir) : true);
  host.getSourceFile = (name, languageVersion) => {
    if (name in files) return ts.createSourceFile(name, files[name], languageVersion, true);
    if (!diskFiles.has(name)) {
      const text = readFile(name);
      diskFiles.set(name, text === undefined ? undefined : ts.createSourceFile(name, text, languageVersion, true));
    }
    return diskFiles.get(name);
  };
  const program = ts.createProgram(Object.keys(files), OPTIONS, host);
  const own = program.getSourceFiles().filter((f) => f.fileName in files);
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ].map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const location = where ? `${d.file?.fileName}:${where.line + 1}:${where.character + 1} ` : '';
    return `${location}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
