// Redis glob semantics (the ones SCAN MATCH uses): `*` any run of characters including ':' and '/',
// `?` one character, `[abc]` / `[^abc]` / `[a-z]` classes, `\x` a literal x. Used to match lock keys
// against the globs the language server derived from code, and by the view's filter.

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/-]/g;

export function hasGlobSyntax(text: string): boolean {
  return /[*?[\\]/.test(text);
}

export function redisGlobToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '\\' && i + 1 < glob.length) out += glob[++i]!.replace(REGEX_SPECIAL, '\\$&');
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith('^');
      if (negate) body = body.slice(1);
      // Keep ranges (a-z), escape everything else that a JS class would interpret.
      const cls = body.replace(/[\\\]^[]/g, '\\$&');
      out += `[${negate ? '^' : ''}${cls}]`;
      i = close;
    } else out += c.replace(REGEX_SPECIAL, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** How many literal characters a glob pins down: more means a more specific match. */
export function globSpecificity(glob: string): number {
  return glob.replace(/\\(.)/g, '$1').replace(/\[[^\]]*\]|[*?]/g, '').length;
}
