// Text that came from Redis (keys, values, holder labels, error replies) is shown to people; control
// characters in it must not drive a terminal, fake rows or reorder a line. JSON output stays exact.

// C0 controls, DEL and C1 controls: \xNN. Bidi controls and the line/paragraph separators: \uNNNN.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The text with every control character written as an escape (\x1b, \u202e); printable text is kept. */
export function escapeControlChars(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
