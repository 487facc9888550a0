// Fencing counters that sit next to a lock. Conventions recognised, for lock key K:
//   Lockwise withLock   {K}:fence, or K:fence when K already has a {hash tag} (same Cluster slot as K)
//   Redisson fenced lock redisson_lock_token:{K} (redisson_lock_token:K when K has braces)
//   generic              fence:K, and fence:<name> for K = lock:<name> / mutex:<name> / redlock:<name> / semaphore:<name>
// A counter is an integer (INCR); any other value under such a name is not taken for a fence.

/** The hash tag Redis Cluster hashes for a key: the text between the first "{" and the next "}", if non-empty. */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open < 0) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

export function lockwiseFenceKey(key: string): string {
  return hashTag(key) !== undefined ? `${key}:fence` : `{${key}}:fence`;
}

export function redissonFenceKey(key: string): string {
  return key.includes('{') ? `redisson_lock_token:${key}` : `redisson_lock_token:{${key}}`;
}

const LOCK_PREFIXES = ['lock:', 'mutex:', 'redlock:', 'semaphore:'];

/** Candidate fence keys for a lock, most specific first. */
export function fenceCandidates(key: string, type: string): string[] {
  const out = [lockwiseFenceKey(key), `fence:${key}`];
  const prefix = LOCK_PREFIXES.find((p) => key.startsWith(p));
  if (prefix && key.length > prefix.length) out.push(`fence:${key.slice(prefix.length)}`);
  if (type === 'hash') out.push(redissonFenceKey(key));
  return out;
}

export const isFenceValue = (value: unknown): value is string => typeof value === 'string' && /^-?\d{1,20}$/.test(value);

/** CRC16-XMODEM, the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Cluster slot of a key (its hash tag if it has one), so a fence read goes straight to its master. */
export function keySlot(key: string): number {
  return crc16(Buffer.from(hashTag(key) ?? key)) % 16384;
}

/** The first candidate of `key` (most specific first) whose value, among those read, is a counter. */
export function pickFence(key: string, type: string, values: ReadonlyMap<string, string>): { key: string; value: string } | undefined {
  for (const candidate of fenceCandidates(key, type)) {
    const value = values.get(candidate);
    if (isFenceValue(value)) return { key: candidate, value };
  }
  return undefined;
}
