// `contains` (rules/engine/nodes.ts) answers from full spans where they decide, and scans for token starts
// only where they do not: it must give the answer of its definition, by token starts, for every pair of
// nodes of a file: nested, apart, adjacent, sharing a start or an end, with comments between them, and
// zero-width (missing) nodes of a file with syntax errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ts } from '../../rules/engine/typescript';
import { contains } from '../../rules/engine/nodes';
import { lockHeavyFile } from '../../bench/fixtures/lock-heavy-file';
import { exampleFiles, seeded } from '../server/helpers/random-edits';

function allNodes(sourceFile: ts.SourceFile): ts.Node[] {
  const nodes: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    nodes.push(node);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return nodes;
}

const byTokenStarts = (outer: ts.Node, inner: ts.Node) => inner.end <= outer.end && inner.getStart() >= outer.getStart();

const TEXTS: Record<string, string> = {
  commented: `/* head */ async function a(k: string) { // one
  /* two */ await redis.set(k, 'v', 'PX', 10, 'NX'); /* three */ try { work(); } finally { await redis.del(k) }
}
// four
const b = (x) => /* five */ (x) /* six */;
`,
  broken: 'function f( { const x = ; if (a) } class { m( } await redis.del(',
  heavy: lockHeavyFile(80),
  ...Object.fromEntries(exampleFiles()),
};

for (const [name, text] of Object.entries(TEXTS)) {
  test(`contains agrees with token starts on ${name}`, () => {
    const sourceFile = ts.createSourceFile(`${name}.ts`, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const nodes = allNodes(sourceFile);
    const random = seeded(name.length);
    // Every pair on small files; on large ones each node against a sample, and against its neighbours and ancestors.
    const pairs: Array<[ts.Node, ts.Node]> = [];
    for (const [i, outer] of nodes.entries()) {
      if (nodes.length <= 400) for (const inner of nodes) pairs.push([outer, inner]);
      else {
        for (let k = 0; k < 20; k++) pairs.push([outer, nodes[Math.floor(random() * nodes.length)]]);
        for (const near of [nodes[i - 1], nodes[i + 1], outer.parent, outer.parent?.parent]) if (near) pairs.push([outer, near], [near, outer]);
      }
    }
    let inside = 0;
    for (const [outer, inner] of pairs) {
      const expected = byTokenStarts(outer, inner);
      if (expected) inside++;
      assert.equal(contains(outer, inner), expected, `${ts.SyntaxKind[outer.kind]} [${outer.pos}, ${outer.end}) / ${ts.SyntaxKind[inner.kind]} [${inner.pos}, ${inner.end})`);
    }
    // Both answers occur: the pairs test the fast paths and the scan.
    assert.ok(inside > 0 && inside < pairs.length);
  });
}
