// Code with no word the lock model reads, in the shapes that trip a lexer: regular expressions next
// to divisions, braces inside strings, templates and comments, nested templates, ASI. Padding known
// lock code with it makes the lean parse (rules/engine/lock-text.ts) blank something.
const FILLER_FUNCTION = (n: number) => `
/** Formats row ${n} for the report; braces in comments: { */
export function formatRow${n}(row: { id: number; tags: string[] }, width = 10): string {
  const ratio = row.id / width / 2;
  const pattern = /[{}]+\\/x/g;
  const label = \`row \${row.id} {\${row.tags.map((t) => \`<\${t}>\`).join(', ')}}\`;
  let out = '';
  for (let i = 0; i < row.tags.length; i++) {
    if (pattern.test(row.tags[i])) out += '}';
    else out += row.tags[i].replace(/"/g, "'") + String(ratio);
  }
  return label + out
}
`;
const FILLER_CLASS = (n: number) => `
export class Formatter${n} {
  private readonly widths = new Map<string, number>();
  format(value: unknown): string {
    switch (typeof value) {
      case 'number': return (value as number).toFixed(2);
      case 'string': { const s = value as string; return s.length > 3 ? s.slice(0, 3) + '…' : s; }
      default: return JSON.stringify(value) ?? '';
    }
  }
  width(column: string): number {
    return this.widths.get(column) ?? column.length * 2 / 3;
  }
}
`;
export const FILLER_METHOD = (n: number) => `
  describeRow${n}(row: { id: number; name: string }): string {
    const parts = [row.id, row.name].filter((p) => p !== undefined);
    const ratio = parts.length / 2 / 1;
    return \`\${parts.join(' / ')} (\${ratio > 1 ? '}' : '{'})\`;
  }
`;

/** `count` filler functions and classes. */
export const filler = (count: number) => Array.from({ length: count }, (_, n) => (n % 3 === 2 ? FILLER_CLASS(n) : FILLER_FUNCTION(n))).join('');
