// Reads the shared log the contending workers write and finds any two critical sections that overlap.
// Two independent checks: the order of the lines in the file (appends are atomic with O_APPEND), and
// the monotonic clock readings, which every process on the machine shares.

export interface CriticalSection {
  name: string;
  enter: bigint;
  exit: bigint;
}

/** Problems found in the log; empty when the sections were mutually exclusive. */
export function overlaps(log: string): { sections: CriticalSection[]; problems: string[] } {
  const problems: string[] = [];
  const sections: CriticalSection[] = [];
  let open: { name: string; enter: bigint } | undefined;
  for (const [index, line] of log.split('\n').filter(Boolean).entries()) {
    const [event, name = '', at = ''] = line.split(' ');
    if (event === 'enter') {
      if (open) problems.push(`line ${index + 1}: ${name} entered while ${open.name} was inside`);
      open = { name, enter: BigInt(at) };
    } else if (event === 'exit' && open && open.name === name) {
      sections.push({ name, enter: open.enter, exit: BigInt(at) });
      open = undefined;
    } else {
      problems.push(`line ${index + 1}: unexpected "${line}"`);
    }
  }
  const byEnter = [...sections].sort((a, b) => (a.enter < b.enter ? -1 : a.enter > b.enter ? 1 : 0));
  for (let i = 1; i < byEnter.length; i++) {
    const before = byEnter[i - 1] as CriticalSection;
    const section = byEnter[i] as CriticalSection;
    if (section.enter < before.exit) {
      problems.push(`${section.name} entered ${before.exit - section.enter} ns before ${before.name} left`);
    }
  }
  return { sections, problems };
}
