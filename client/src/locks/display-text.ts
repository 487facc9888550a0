// Text from Redis (keys, values, holder labels) and from file names is data, not terminal or UI
// markup: a lock value "\x1b]0;PWNED\x07" would set the terminal's title, "lock:\r\nFAKE: row" would
// fake a row. Every front end shows such text through escapeControlChars; JSON output stays exact
// (JSON escapes control characters itself).

// C0 controls, DEL, C1 controls (0x9B alone is a CSI on some terminals), the line and paragraph
// separators, and the bidirectional controls that reorder what is shown ("Trojan Source").
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * `text` with every control character shown as an escape (\n, \r, \t, \xHH, \u{HHHH}) and backslashes
 * doubled, so what is shown is one unambiguous line that cannot move the cursor, recolour, retitle or
 * reorder anything. Text without such characters is returned as it is.
 */
export function escapeControlChars(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
