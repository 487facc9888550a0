// The TTL typed for Extend Lock: "30s", "10m", "1h", "1h30m", "1500ms", or a bare number of
// milliseconds (as the CLI's --ttl). Bounded, so a slip of the keyboard cannot make a lock that
// practically never expires.

export const MAX_EXTEND_MS = 7 * 24 * 3600_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** Milliseconds, or a sentence saying what is wrong. */
export function parseTtlInput(text: string): { ms: number } | { error: string } {
  const input = text.trim().toLowerCase().replace(/\s+/g, '');
  let ms: number;
  if (/^\d+$/.test(input)) ms = Number(input);
  else {
    ms = 0;
    PART.lastIndex = 0;
    let end = 0;
    for (let m = PART.exec(input); m; m = PART.exec(input)) {
      ms += Number(m[1]) * UNIT_MS[m[2]!]!;
      end = PART.lastIndex;
    }
    if (input === '' || end !== input.length) return { error: 'A duration such as 30s, 10m, 1h or 1h30m (a bare number is milliseconds)' };
    ms = Math.round(ms);
  }
  if (ms < 1) return { error: 'The TTL must be at least 1 ms' };
  if (ms > MAX_EXTEND_MS) return { error: `At most ${humanDuration(MAX_EXTEND_MS)}: a longer TTL practically never expires` };
  return { ms };
}

/** A duration in the units a person types: "45s", "10m", "1h 30m", "1500 ms", "2.5s". */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['d', 86_400_000], ['h', 3600_000], ['m', 60_000]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(rest % 1000 === 0 ? `${rest / 1000}s` : `${(rest / 1000).toFixed(1).replace(/\.0$/, '')}s`);
  return parts.join(' ');
}
