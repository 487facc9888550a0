// Key-prefix groups under a connection: "lock:order:42" and "lock:order:43" share "lock:order:*".
// Two leading segments are enough to separate resources without one group per lock.

const MAX_SEGMENTS = 2;

export function groupPrefix(key: string): string {
  const segments = key.split(':');
  if (segments.length === 1) return '(no prefix)';
  const kept = segments.slice(0, Math.min(MAX_SEGMENTS, segments.length - 1));
  return `${kept.join(':')}:*`;
}
