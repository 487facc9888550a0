// Markdown escaping for text that comes from Redis (keys, values, holder labels are attacker-shaped:
// any byte can be in a key) so tooltips and snapshots render it literally.

/**
 * Escapes what is special inside a line (emphasis, code, links, HTML, table pipes); newlines become
 * spaces, so the text never starts a line and block markers (#, -, 1.) cannot apply.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ').replace(/[\\`*_[\]<>|~&]/g, '\\$&');
}

/** A fenced block longer than any backtick run inside, so the content cannot close it. */
export function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** Shortens long values for tooltips, which are for reading at a glance. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Inline code that survives any backticks in the text (GFM: a longer fence, padded by spaces). */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A GFM table cell: one line, pipes escaped (GFM honours `\|` even inside code spans). */
export function tableCell(markdown: string): string {
  return markdown.replace(/\r?\n|\r/g, ' ').replace(/\|/g, '\\|');
}
