import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allRules } from '../../rules/index';
import { typecheck, typecheckSources } from './harness';
import { tables } from './tables/index';

test('every rule has a case table', () => {
  assert.deepEqual(Object.keys(tables).sort(), allRules.map((r) => r.id));
});

test('every input and every fixed output of the rule tables type-checks against the real client packages', () => {
  const sources = Object.entries(tables).flatMap(([id, cases]) => typecheckSources(id, cases));
  assert.ok(sources.length > 0);
  assert.deepEqual(typecheck(sources), []);
});
