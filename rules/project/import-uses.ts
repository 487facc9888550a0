// Which of a file's imports its code uses, told from the text alone (no parse), for the pre-check of a
// file with no lock code of its own (ProjectIndex.importsLockHelpers). Such a file can take a lock
// meaning only through a call that resolves through one of its import bindings, so a module it only
// re-exports (`export * from`, `__exportStar(require(...))`) or imports without using is never
// summarised for it, and of a module it imports names from only those names are looked up (through a
// barrel, only the modules that can export them). A statement of a shape not told here counts as a
// use of the whole module, as before.

export interface ImportUse {
  specifier: string;
  /** The names the code uses of the module; undefined: the whole module (a shape not told, a namespace handed on). */
  names?: string[];
  /**
   * Some of `names` are read off a namespace binding (`ns.acquire`, `const x = require(...)`): a module
   * whose one export is a default value is that value, and its members are not exports.
   */
  namespace?: boolean;
}

interface Binding {
  local: string;
  /** The name in the module: '*' for the module itself. */
  imported: string;
}

const SPECIFIER = /\bfrom\s*['"]([^'"\n]+)['"]|\b(?:require|import)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const KEYWORD = /\b(?:import|export)\b/g;
/** How far back a statement's keyword is looked for (a long named-import list fits). */
const LOOK_BACK = 4000;

const REEXPORT_CLAUSE = /^\s*(?:type\s+)?(?:\*\s*(?:as\s+[\w$]+\s*)?|\{[^}]*\}\s*)$/;
const IMPORT_CLAUSE = /^\s*(?:type\s+)?(?:([\w$]+)\s*(?:,\s*)?)?(?:\*\s*as\s+([\w$]+)\s*|\{([^}]*)\}\s*)?$/;
const NAMED_ELEMENT = /^(?:type\s+)?([\w$]+|'[^']*'|"[^"]*")(?:\s+as\s+([\w$]+))?$/;
const IMPORT_EQUALS = /\bimport\s+([\w$]+)\s*=\s*$/;
/** `const x = require(`, `const x = __importDefault(require(`: the binding holds the module (or its default). */
const REQUIRED_VALUE = /\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:[\w$.]+\s*\(\s*)?$/;
const REQUIRED_PATTERN = /\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*$/;
const PATTERN_ELEMENT = /^([\w$]+)(?:\s*:\s*([\w$]+))?$/;
/** `__exportStar(require(`, `module.exports = require(`, `exports.x = require(`: a re-export, no binding. */
const REEXPORTED = /(?:__exportStar|__export)\s*\(\s*$|\bmodule\.exports\s*=\s*$|\bexports\.[\w$]+\s*=\s*$/;

/** The bindings of an `import ... from` / `export ... from` whose specifier starts at `at`; undefined when not told. */
function fromClause(text: string, at: number): { bindings: Binding[]; start: number } | undefined {
  const from = Math.max(0, at - LOOK_BACK);
  const head = text.slice(from, at);
  let keyword: RegExpExecArray | undefined;
  for (const match of head.matchAll(KEYWORD)) keyword = match;
  if (!keyword) return undefined;
  const clause = head.slice(keyword.index + keyword[0].length);
  const start = from + keyword.index;
  if (keyword[0] === 'export') return REEXPORT_CLAUSE.test(clause) ? { bindings: [], start } : undefined;
  const parts = IMPORT_CLAUSE.exec(clause);
  if (!parts) return undefined;
  const bindings: Binding[] = [];
  if (parts[1]) bindings.push({ local: parts[1], imported: 'default' });
  if (parts[2]) bindings.push({ local: parts[2], imported: '*' });
  for (const element of parts[3]?.split(',') ?? []) {
    const trimmed = element.trim();
    if (!trimmed) continue;
    const named = NAMED_ELEMENT.exec(trimmed);
    if (!named) return undefined;
    const imported = named[1].replace(/^['"]|['"]$/g, '');
    bindings.push({ local: named[2] ?? imported, imported });
  }
  return bindings.length > 0 ? { bindings, start } : undefined;
}

/** The bindings of a `require('x')` / `import('x')` call starting at `at`; undefined when not told. */
function requireClause(text: string, at: number): { bindings: Binding[]; start: number } | undefined {
  const from = Math.max(0, at - 200);
  const head = text.slice(from, at);
  const whole = IMPORT_EQUALS.exec(head) ?? REQUIRED_VALUE.exec(head);
  if (whole) return { bindings: [{ local: whole[1], imported: '*' }], start: from + whole.index };
  const pattern = REQUIRED_PATTERN.exec(head);
  if (pattern) {
    const bindings: Binding[] = [];
    for (const element of pattern[1].split(',')) {
      const trimmed = element.trim();
      if (!trimmed) continue;
      const named = PATTERN_ELEMENT.exec(trimmed);
      if (!named) return undefined;
      bindings.push({ local: named[2] ?? named[1], imported: named[1] });
    }
    return bindings.length > 0 ? { bindings, start: from + pattern.index } : undefined;
  }
  const reexport = REEXPORTED.exec(head);
  return reexport ? { bindings: [], start: from + reexport.index } : undefined;
}

const WORD_CHAR = /[\w$]/;
/** `ns.name`, `ns?.name` right after a namespace binding's name. */
const MEMBER = /^\s*\??\.\s*([\w$]+)/;
/** `require('x').member`: the binding holds a member, not the module. */
const MEMBER_OF_CALL = /^\s*\??\./;

/**
 * Where `word` occurs as a whole word in `text`, outside `skip` (the binding's own statement); with
 * `first`, only the first place (is the name used at all?).
 */
function occurrences(text: string, word: string, skip: [number, number], first = false): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) {
    if (at >= skip[0] && at < skip[1]) continue;
    if (!WORD_CHAR.test(text[at - 1] ?? '') && !WORD_CHAR.test(text[at + word.length] ?? '')) {
      found.push(at);
      if (first) break;
    }
  }
  return found;
}

/** The members read off a namespace binding at each of its uses; undefined when one use is not a member read. */
function membersRead(text: string, local: string, uses: number[]): string[] | undefined {
  const members: string[] = [];
  for (const at of uses) {
    const member = MEMBER.exec(text.slice(at + local.length, at + local.length + 200));
    if (!member) return undefined;
    members.push(member[1]);
  }
  return members;
}

/** The file's import specifiers with the names its code uses from each (specifiers it uses nothing of are left out). */
export function usedImports(text: string): ImportUse[] {
  const uses: ImportUse[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2];
    const end = match.index + match[0].length;
    const clause = match[1] !== undefined ? fromClause(text, match.index) : requireClause(text, match.index);
    if (!clause) {
      uses.push({ specifier });
      continue;
    }
    const names: string[] = [];
    let namespace = false;
    let whole = false;
    for (const binding of clause.bindings) {
      // A named import only needs to be used once; a namespace's every use tells which members it reads.
      const at = occurrences(text, binding.local, [clause.start, end], binding.imported !== '*');
      if (at.length === 0) continue;
      if (binding.imported !== '*') {
        names.push(binding.imported);
        continue;
      }
      const members = MEMBER_OF_CALL.test(text.slice(end, end + 20)) ? undefined : membersRead(text, binding.local, at);
      if (members) names.push(...members);
      else whole = true;
      namespace = true;
    }
    if (whole) uses.push({ specifier });
    else if (names.length > 0) uses.push({ specifier, names, namespace });
  }
  return uses;
}
