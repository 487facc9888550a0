// A unified diff of one file's text before and after `check --fix-dry-run`, in the `diff -u` / git
// format patch(1) reads. The changed middle is compared line by line (LCS) after the common head and
// tail are cut off, which keeps it small: fixes change a few lines of a file.
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string };

function lines(text: string): string[] {
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i++] }), j++;
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ kind: '-', line: a[i++] });
    else ops.push({ kind: '+', line: b[j++] });
  }
  return ops;
}

export function unifiedDiff(name: string, before: string, after: string): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
  const out = [`--- a/${name}`, `+++ b/${name}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === ' ') {
      k++;
      continue;
    }
    // A hunk: from CONTEXT lines before the change to CONTEXT lines after the last change near it.
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    while (end < ops.length) {
      if (ops[end].kind !== ' ') {
        end++;
        continue;
      }
      let run = end;
      while (run < ops.length && ops[run].kind === ' ') run++;
      if (run === ops.length || run - end > 2 * CONTEXT) {
        end = Math.min(run, end + CONTEXT);
        break;
      }
      end = run;
    }
    const oldStart = ops.slice(0, start).filter((o) => o.kind !== '+').length;
    const newStart = ops.slice(0, start).filter((o) => o.kind !== '-').length;
    const hunk = ops.slice(start, end);
    const oldCount = hunk.filter((o) => o.kind !== '+').length;
    const newCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${oldStart + (oldCount > 0 ? 1 : 0)},${oldCount} +${newStart + (newCount > 0 ? 1 : 0)},${newCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = end;
  }
  return `${out.join('\n')}\n`;
}
